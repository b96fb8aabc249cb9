"""Where the cursor is in a pack file: the YAML value or key under it, the place inside an effect text, and the
effect texts a file holds. Lines and columns here are 0-based and count code points (the server converts
to and from the client's units at its edge)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cardsmith.compiler.diagnostics import Diagnostics, Span
from cardsmith.compiler.vocab import Vocabulary
from cardsmith.compiler.yamlsrc import YamlDoc, load_yaml_text


@dataclass(frozen=True)
class Spot:
    path: tuple  # the value, or the key's value when `on_key`
    on_key: bool
    offset: int | None = None  # for a string value: the index of the cursor in it


@dataclass(frozen=True)
class EffectText:
    path: tuple
    start: str  # the grammar's start rule: program or expression


def load(text: str, file: str) -> YamlDoc | None:
    """The YAML of a buffer as it is (no schema: a field being typed is still a place to complete)."""
    return load_yaml_text(text, file, Diagnostics())


def _inside(span: Span, line: int, col: int) -> bool:
    """(line, col) 0-based within the span, its end included (typing at the end of a value is in it)."""
    here = (line + 1, col + 1)
    end = (span.end_line or span.line, span.end_col or span.col)
    return (span.line, span.col) <= here <= end


def spot_at(doc: YamlDoc, line: int, col: int) -> Spot | None:
    best: tuple | None = None
    for path, span in doc.key_spans.items():
        if _inside(span, line, col) and (best is None or len(path) > len(best[0])):
            best = (path, True)
    if best is not None:
        return Spot(best[0], True)
    for path, span in doc.spans.items():
        if path and _inside(span, line, col) and (best is None or len(path) > len(best[0])):
            best = (path, False)
    if best is None:
        return None
    offset = doc.value_offset(best[0], line + 1, col + 1)
    return Spot(best[0], False, offset)


_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z0-9_$\"' -]+?)\s*:(\s|$)")


def key_path_at(text: str, line: int, col: int) -> tuple[tuple[str, ...], str | None]:
    """For block YAML that may not parse yet: the keys ('-' for a list item) of the mapping the cursor's line
    is in, and the key the cursor's value belongs to (None where a key is being written)."""
    lines = text.split("\n")
    current = lines[line] if line < len(lines) else ""
    m = _KEY.match(current)
    value_of = None
    if m and col > m.end(3):
        value_of = m.group(3).strip("\"' ")
    indent = len(current) - len(current.lstrip(" "))
    if m and m.group(2):
        indent += len(m.group(2))  # '- key:' : the key stands inside the item
    elif current.strip() == "-":
        indent += 2
    elif not current.strip():
        indent = col
    path: list[str] = []
    if m and m.group(2):
        path.insert(0, "-")
    for i in range(line - 1, -1, -1):
        row = lines[i]
        stripped = row.strip()
        if not stripped or stripped.startswith("#"):
            continue
        ind = len(row) - len(row.lstrip(" "))
        km = _KEY.match(row)
        if km and km.group(2):  # '- key: ...': a list item's first key, at ind + 2
            key_ind = ind + len(km.group(2))
            if key_ind < indent:
                path.insert(0, km.group(3).strip("\"' "))
                indent = key_ind
            if ind < indent:
                path.insert(0, "-")
                indent = ind
            continue
        if stripped.startswith("-") and ind < indent:
            path.insert(0, "-")
            indent = ind
            continue
        if km and ind < indent:
            path.insert(0, km.group(3).strip("\"' "))
            indent = ind
        if ind == 0 and indent == 0:
            break
    return tuple(path), value_of


def effect_texts(doc: YamlDoc, kind: str, voc: Vocabulary | None) -> list[EffectText]:
    """The effect-language texts of a file of the given kind (cards, rules, scenario)."""
    v = doc.value if isinstance(doc.value, dict) else {}
    out: list[EffectText] = []
    conditions = {n for n, e in voc.timings.items() if (e.value or {}).get("kind") == "condition"} if voc else set()

    def card(base: tuple, raw) -> None:
        if not isinstance(raw, dict):
            return
        for timing, text in (raw.get("abilities") or {}).items():
            if isinstance(text, str):
                out.append(EffectText((*base, "abilities", timing), "expression" if timing in conditions
                                      else "program"))
        if isinstance(raw.get("requires"), str):
            out.append(EffectText((*base, "requires"), "expression"))
        if isinstance(raw.get("back"), dict):
            card((*base, "back"), raw["back"])

    if kind == "cards":
        for i, raw in enumerate(v.get("cards") or []):
            card(("cards", i), raw)
    elif kind == "rules":
        for key in ("setup", "game"):
            if isinstance(v.get(key), str):
                out.append(EffectText((key,), "program"))
        for name, body in (v.get("macros") or {}).items():
            if isinstance(body, str):
                out.append(EffectText(("macros", name), "program"))
        for section, field in (("zones", "on-empty"), ("pieces", "when-full")):
            for name, entry in (v.get(section) or {}).items():
                if isinstance(entry, dict) and isinstance(entry.get(field), str):
                    out.append(EffectText((section, name, field), "program"))
        for i, step in enumerate(v.get("scoring") or []):
            if isinstance(step, dict) and isinstance(step.get("score"), str):
                out.append(EffectText(("scoring", i, "score"), "program"))
        for i, t in enumerate(v.get("tiebreakers") or []):
            if isinstance(t, str):
                out.append(EffectText(("tiebreakers", i), "expression"))
    elif kind == "scenario":
        for i, sc in enumerate(v.get("scenarios") or []):
            if isinstance(sc, dict) and isinstance(sc.get("do"), str):
                out.append(EffectText(("scenarios", i, "do"), "program"))
    return out


def file_kind(path_name: str, parts: tuple[str, ...]) -> str:
    if "scenarios" in parts:
        return "scenario"
    if path_name == "pack.yaml":
        return "pack"
    if path_name == "rules.yaml":
        return "rules"
    return "cards"


def value_at(doc: YamlDoc, path: tuple):
    v = doc.value
    for k in path:
        try:
            v = v[k]
        except (KeyError, IndexError, TypeError):
            return None
    return v


_LINE_VALUE = re.compile(r"^\s*(?:-\s+)?[A-Za-z0-9_$-]+\s*:\s*[\"']?")


def typed_value(line_text: str, col: int) -> str | None:
    """The value being typed on a `key: value` line up to the cursor (a plain value's trailing spaces and an
    unclosed quote included), for a line the YAML reader cannot place yet."""
    m = _LINE_VALUE.match(line_text)
    if m is None or col < m.end():
        return None
    return line_text[m.end():col]


class Lines:
    """One file's lines, and the conversion between code points and the client's position units."""

    def __init__(self, text: str, codec=None) -> None:
        self.lines = text.split("\n")
        self.codec = codec

    def position(self, line: int, col: int):
        from lsprotocol import types as T

        pos = T.Position(max(line, 0), max(col, 0))
        if self.codec is None:
            return pos
        return self.codec.position_to_client_units(self.lines, pos)

    def range(self, span: Span):
        """An LSP range for a 1-based span (a whole-file finding, line 0, at the top)."""
        from lsprotocol import types as T

        if span.line <= 0:
            return T.Range(self.position(0, 0), self.position(0, 0))
        start = self.position(span.line - 1, max(span.col - 1, 0))
        if span.end_line and (span.end_line, span.end_col or 0) > (span.line, span.col):
            end = self.position(span.end_line - 1, max((span.end_col or 1) - 1, 0))
        else:
            end = self.position(span.line - 1, max(span.col, 1))
        return T.Range(start, end)

    def code_points(self, position) -> tuple[int, int]:
        if self.codec is None:
            return position.line, position.character
        cp = self.codec.position_from_client_units(self.lines, position)
        return cp.line, cp.character
