"""The effect-language source of every ability, as the designer wrote it, with its file and line.

Read from the loaded YAML documents the compile kept (`CompileResult.sources`), in chain order, so
a card an expansion redefines shows the expansion's text, as the compiler used it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AbilitySource:
    text: str
    file: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def ability_sources(result) -> dict[str, dict[str, AbilitySource]]:
    """card id -> timing (or 'requires') -> the source of that ability."""
    out: dict[str, dict[str, AbilitySource]] = {}
    for src in result.sources:
        for doc in src.card_docs:
            for i, raw in enumerate((doc.value or {}).get("cards") or []):
                path = ("cards", i)
                _one(doc, path, raw, out)
                back = raw.get("back")
                if isinstance(back, dict) and back.get("id"):
                    _one(doc, (*path, "back"), back, out)
    return out


def _one(doc, path: tuple, raw: dict, out: dict) -> None:
    entries: dict[str, AbilitySource] = {}
    for timing, text in (raw.get("abilities") or {}).items():
        span = doc.span((*path, "abilities", timing))
        entries[timing] = AbilitySource(str(text).strip(), span.file, span.line)
    if raw.get("requires") is not None:
        span = doc.span((*path, "requires"))
        entries["requires"] = AbilitySource(str(raw["requires"]).strip(), span.file, span.line)
    out[str(raw["id"])] = entries
