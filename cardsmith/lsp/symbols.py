"""Every place a pack chain declares or uses a name: card ids, macros, the vocabulary of rules.yaml (resources,
zones, traits, ...) and events. Go to definition, find references, rename and hover read this index, built
from the compiler's own word reader (compiler/effect_words.py) over every file of the chain and its scenarios.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardsmith.compiler.diagnostics import Span
from cardsmith.compiler.effect_words import SECTIONS, words
from cardsmith.compiler.pipeline import _base_verb  # the compiler's reading of a trigger's verb
from cardsmith.compiler.vocab import Vocabulary
from cardsmith.compiler.yamlsrc import YamlDoc

from .positions import effect_texts

SECTION_OF = {kind: section for section, kind in SECTIONS}
BUILTIN_EVENTS = ("gain", "lose", "place", "remove")  # emitted by the language itself (docs/language.rst)


@dataclass(frozen=True)
class Occurrence:
    file: Path
    span: Span  # 1-based, as diagnostics
    kind: str  # 'card', 'macro', 'event', or a name kind of effect_words (resource, zone, trait, ...)
    name: str  # the card id, the macro's first word, the event, the name
    definition: bool = False
    signature: str | None = None  # a macro's signature (None: any macro of that first word)
    first_word: bool = True  # for a macro: the word that is its name (rename changes only that one)

    def contains(self, line: int, col: int) -> bool:
        """0-based (line, col) inside the occurrence, its end included."""
        here = (line + 1, col + 1)
        return (self.span.line, self.span.col) <= here <= (self.span.end_line or self.span.line,
                                                            self.span.end_col or self.span.col)


def name_kinds(name: str, voc: Vocabulary) -> list[str]:
    """Everything the name is in the pack (a name may be a resource and a trait value at once)."""
    out = [kind for section, kind in SECTIONS if name in voc.sections[section]]
    if name in voc.flags:
        out.append("flag")
    if name in voc.trait_values:
        out.append("trait value")
    return out


def name_kind(name: str, voc: Vocabulary) -> str:
    kinds = name_kinds(name, voc)
    return kinds[0] if kinds else "name"


def describe_entry(name: str, kind: str, voc: Vocabulary) -> str | None:
    """Markdown: what the name is, where rules.yaml declares it, and its description."""
    section = SECTION_OF.get(kind)
    entry = voc.sections[section].get(name) if section else voc.flags.get(name) if kind == "flag" else None
    if kind == "trait value":
        traits = ", ".join(f"`{t}`" for t in voc.trait_values.get(name, []))
        return f"**trait value** `{name}` (of {traits})" if traits else None
    if entry is None:
        return None
    span = entry.key_span
    out = [f"**{kind}** `{name}` — declared in {span.file}:{span.line}"]
    value = entry.value if isinstance(entry.value, dict) else {}
    facts = {k: v for k, v in value.items() if k not in ("description", "names", "on-empty", "when-full")}
    if value.get("description"):
        out.append(str(value["description"]))
    if facts:
        out.append(", ".join(f"{k}: {v}" for k, v in facts.items()))
    elif isinstance(entry.value, list):
        out.append("values: " + ", ".join(map(str, entry.value)))
    return "\n\n".join(out)


def _key_word_span(doc: YamlDoc, path: tuple, word: str) -> Span:
    """The span of the first word of a mapping key (inside its quotes)."""
    span = doc.key_span(path)
    line = doc.text.split("\n")[span.line - 1] if span.line > 0 else ""
    col = span.col + (1 if line[span.col - 1:span.col] in ("'", '"') else 0)
    return Span(span.file, span.line, col, span.line, col + len(word))


def _scalar_span(doc: YamlDoc, path: tuple, value: str) -> Span:
    return doc.text_span(path, 0, len(value))


class Index:
    def __init__(self, voc: Vocabulary | None, macros: dict) -> None:
        self.voc = voc
        self.macros = macros
        self.items: list[Occurrence] = []
        self.cards: dict[str, tuple[str, Path, Span]] = {}  # card id -> (name, file, span of the id)

    def add_file(self, path: Path, kind: str, doc: YamlDoc) -> None:
        v = doc.value if isinstance(doc.value, dict) else {}
        if kind == "cards":
            for i, raw in enumerate(v.get("cards") or []):
                for base in (("cards", i), ("cards", i, "back")):
                    entry = raw if len(base) == 2 else (raw.get("back") if isinstance(raw, dict) else None)
                    if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                        span = _scalar_span(doc, (*base, "id"), entry["id"])
                        self.cards.setdefault(entry["id"], (str(entry.get("name", entry["id"])), path, span))
                        self.items.append(Occurrence(path, span, "card", entry["id"], definition=True))
        if kind == "rules":
            for section, what in SECTIONS:
                for name in v.get(section) or {}:
                    if section == "macros":
                        continue
                    self.items.append(Occurrence(path, _key_word_span(doc, (section, name), name), what, name, True))
            for name in v.get("macros") or {}:
                first = str(name).split(" ", 1)[0]
                self.items.append(Occurrence(path, _key_word_span(doc, ("macros", name), first), "macro", first,
                                             True, signature=str(name)))
        for text in effect_texts(doc, kind, self.voc):
            value = str(_get(doc, text.path))
            locate = doc.text_locator(text.path)
            for w in words(value, self.voc, self.macros):
                if w.kind in ("keyword", "number", "sign", "parameter"):
                    continue
                span = locate(w.start, w.end)
                if w.kind == "macro":
                    first = w.text == (w.signature or w.text).split(" ", 1)[0]
                    name = (w.signature or w.text).split(" ", 1)[0]
                    self.items.append(Occurrence(path, span, "macro", name, signature=w.signature, first_word=first))
                elif w.kind == "event":
                    emitted = value[:w.start].rstrip().endswith("emit")
                    self.items.append(Occurrence(path, span, "event", _base_verb(w.text), definition=emitted))
                else:
                    self.items.append(Occurrence(path, span, w.kind, w.text))

    def add_card_uses(self, path: Path, kind: str, doc: YamlDoc) -> None:
        """Card ids used as YAML values or keys (scenario zones and pieces, rules): once every card is known."""
        for p, value in _scalars(doc.value, ()):
            if isinstance(value, str) and value in self.cards and p[-1:] != ("id",):
                self.items.append(Occurrence(path, _scalar_span(doc, p, value), "card", value))
        for p in doc.key_spans:
            key = p[-1]
            if isinstance(key, str) and key in self.cards and kind == "scenario":
                self.items.append(Occurrence(path, _key_word_span(doc, p, key), "card", key))

    # ------------------------------------------------------------ queries
    def at(self, path: Path, line: int, col: int) -> Occurrence | None:
        found = [o for o in self.items if o.file == path and o.contains(line, col)]
        return min(found, key=lambda o: (o.span.end_col or 0) - o.span.col) if found else None

    def same(self, o: Occurrence) -> list[Occurrence]:
        """Every occurrence of the symbol `o` is one of."""
        if o.kind == "macro":
            return [x for x in self.items if x.kind == "macro" and x.name == o.name and
                    (o.signature is None or x.signature in (None, o.signature))]
        if o.kind in ("card", "event"):
            return [x for x in self.items if x.kind == o.kind and x.name == o.name]
        group = _group(o.kind)
        return [x for x in self.items if x.name == o.name and _group(x.kind) == group]

    def definitions(self, o: Occurrence) -> list[Occurrence]:
        return [x for x in self.same(o) if x.definition]


def _group(kind: str) -> str:
    # a name that the rules declare in one of these sections is one symbol, whatever the word around it
    return "counter" if kind in ("resource", "counter", "param") else kind


def _get(doc: YamlDoc, path: tuple):
    v = doc.value
    for k in path:
        v = v[k]
    return v


def _scalars(value, path: tuple):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _scalars(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _scalars(v, (*path, i))
    else:
        yield path, value


def build_index(files: list[tuple[Path, str, YamlDoc]], voc: Vocabulary | None, macros: dict) -> Index:
    index = Index(voc, macros)
    for path, kind, doc in files:
        index.add_file(path, kind, doc)
    for path, kind, doc in files:
        if kind in ("scenario", "rules", "cards"):
            index.add_card_uses(path, kind, doc)
    return index

