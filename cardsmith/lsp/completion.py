"""Completion: inside effect texts from the grammar's expected words and the checker's accepted names; in YAML
keys and values from the pack's vocabulary (timings, traits and their values, stats, card types, card ids)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as T

from cardsmith.compiler.cursor import expected_at
from cardsmith.compiler.schema import schema
from cardsmith.compiler.vocab import Vocabulary

from .positions import Lines, effect_texts, key_path_at, spot_at, typed_value, value_at
from .symbols import describe_entry, name_kind, name_kinds
from .workspace import Workspace

# The kind of completion item for each kind of name.
ITEM_KIND = {"resource": T.CompletionItemKind.Variable, "counter": T.CompletionItemKind.Variable,
             "param": T.CompletionItemKind.Constant, "zone": T.CompletionItemKind.Module,
             "trait": T.CompletionItemKind.Property, "trait value": T.CompletionItemKind.EnumMember,
             "stat": T.CompletionItemKind.Field, "piece": T.CompletionItemKind.Field,
             "timing": T.CompletionItemKind.Event, "card type": T.CompletionItemKind.Class,
             "flag": T.CompletionItemKind.Constant, "macro": T.CompletionItemKind.Function,
             "card": T.CompletionItemKind.Reference, "field": T.CompletionItemKind.Field,
             "word": T.CompletionItemKind.Keyword, "name": T.CompletionItemKind.Text}


def complete(ws: Workspace, path: Path, line: int, col: int, lines: Lines) -> list[T.CompletionItem]:
    state = ws.state_for(path)
    result = state.latest if state is not None else None
    buf = ws.buffer(path)
    if result is None or result.compiler is None or buf is None:
        return []
    voc, macros = result.compiler.voc, result.compiler.macros
    kind = ws.kind(path)
    doc = buf.doc
    spot = spot_at(doc, line, col) if doc is not None else None
    texts = {e.path: e.start for e in effect_texts(doc, kind, voc)} if doc is not None else {}
    if spot is not None and not spot.on_key and spot.path in texts and spot.offset is not None:
        return _effect(str(value_at(doc, spot.path)), spot.offset, texts[spot.path], voc, macros, lines, line, col)
    keys, value_of = key_path_at(buf.text, line, col)
    current = buf.lines[line] if line < len(buf.lines) else ""
    typed = typed_value(current, col)
    if value_of is not None and typed is not None and _is_effect(kind, keys, value_of, voc):
        start = "expression" if value_of == "requires" or _is_condition(value_of, voc) else "program"
        return _effect(typed, len(typed), start, voc, macros, lines, line, col)
    cards = ws.index(state).cards if kind == "scenario" else {}
    return _yaml(kind, keys, value_of, voc, cards, lines, line, col, current)


def _is_condition(timing: str, voc: Vocabulary) -> bool:
    entry = voc.timings.get(timing)
    return entry is not None and (entry.value or {}).get("kind") == "condition"


def _is_effect(kind: str, keys: tuple, value_of: str, voc: Vocabulary) -> bool:
    if kind == "cards":
        return (keys[-1:] == ("abilities",)) or value_of == "requires"
    if kind == "rules":
        return (keys == () and value_of in ("setup", "game")) or keys == ("macros",) or value_of in ("on-empty",
                                                                                                    "when-full")
    return kind == "scenario" and value_of == "do"


def _edit(lines: Lines, line: int, col: int, prefix: str, text: str) -> T.TextEdit:
    return T.TextEdit(T.Range(lines.position(line, col - len(prefix)), lines.position(line, col)), text)


def _effect(text: str, offset: int, start: str, voc: Vocabulary, macros: dict, lines: Lines, line: int,
            col: int) -> list[T.CompletionItem]:
    expected = expected_at(text, offset, voc, macros, start)
    if expected is None:
        return []
    prefix = expected.prefix
    items: dict[str, T.CompletionItem] = {}

    def add(label: str, kind: str, detail: str | None = None, doc: str | None = None, insert: str | None = None,
            sort: str = "1") -> None:
        if label in items:
            return
        items[label] = T.CompletionItem(
            label=label, kind=ITEM_KIND.get(kind, T.CompletionItemKind.Text), detail=detail,
            documentation=T.MarkupContent(T.MarkupKind.Markdown, doc) if doc else None,
            sort_text=f"{sort}{label}", filter_text=insert or label,
            text_edit=_edit(lines, line, col, prefix, insert or label))

    for signature, nxt in expected.macro_next:
        if not nxt.startswith("$"):
            add(nxt, "macro", f"macro '{signature}'", _macro_doc(macros, signature), sort="0")
    # Where the checker would take a statement, its list holds the macros' names (some may also name a zone,
    # as Earth's 'tableau'): offer each macro whole, with its words and parameters.
    actions = any(c in macros and name_kind(c, voc) == "name" for c in expected.candidates)
    # what every candidate here is (TM's tags are trait values, though some also name a piece or a resource)
    shared = set.intersection(*(set(name_kinds(c, voc)) for c in expected.candidates)) if expected.candidates \
        else set()
    for name in expected.candidates:
        if actions and name in macros:
            for m in macros[name]:
                fixed = m.signature.split(" $", 1)[0]
                add(m.signature, "macro", "macro", _macro_doc(macros, m.signature),
                    insert=fixed + (" " if "$" in m.signature else ""), sort="2")
            continue
        what = next((k for k in name_kinds(name, voc) if k in shared), None) or name_kind(name, voc)
        add(name, what, what, describe_entry(name, what, voc))
    for word in expected.keywords:
        if word.isalpha():
            add(word, "word", "keyword", sort="3")
    return list(items.values())


def _macro_doc(macros: dict, signature: str) -> str | None:
    for ms in macros.values():
        for m in ms if isinstance(ms, list) else ():
            if getattr(m, "signature", None) == signature:
                return f"```\n{signature}: {str(m.entry.value).strip()}\n```"
    return None


def _yaml(kind: str, keys: tuple, value_of: str | None, voc: Vocabulary, cards: dict, lines: Lines, line: int,
          col: int, current: str) -> list[T.CompletionItem]:
    before = current[:col]
    prefix = before[len(before.rstrip("abcdefghijklmnopqrstuvwxyz0123456789-")):]
    out: list[T.CompletionItem] = []

    def add(label: str, what: str, detail: str | None = None, doc: str | None = None, suffix: str = "") -> None:
        out.append(T.CompletionItem(
            label=label, kind=ITEM_KIND.get(what, T.CompletionItemKind.Text), detail=detail,
            documentation=T.MarkupContent(T.MarkupKind.Markdown, doc) if doc else None,
            text_edit=_edit(lines, line, col, prefix, label + suffix)))

    def names(section: dict, what: str, suffix: str = "") -> None:
        for name in section:
            add(name, what, what, describe_entry(name, what, voc), suffix)

    if kind == "cards":
        if value_of is None:
            parent = keys[-1] if keys else None
            if parent == "abilities":
                names(voc.timings, "timing", ": ")
            elif parent == "traits":
                names(voc.traits, "trait", ": ")
            elif parent == "stats":
                names(voc.stats, "stat", ": ")
            elif keys in (("cards", "-"), ("cards", "-", "back"), ("defaults",)):
                defs = schema("cards")["$defs"]
                shape = defs["partial"] if keys == ("defaults",) else defs["side"] if keys[-1] == "back" \
                    else defs["card"]
                for field, sub in shape["properties"].items():
                    sub = defs.get(sub.get("$ref", "").rsplit("/", 1)[-1], sub)
                    add(field, "field", "card field", sub.get("description"), ": ")
            elif keys == ():
                for field in ("defaults", "cards"):
                    add(field, "field", "card file", None, ":")
        elif value_of == "type":
            names(voc.card_types, "card type")
        elif keys[-1:] == ("traits",) and value_of in voc.traits:
            for v in voc.traits[value_of].value:
                add(v, "trait value", f"value of trait '{value_of}'")
    elif kind == "scenario":
        if value_of is None and keys[-1:] == ("counters",):
            names({**voc.resources, **voc.counters}, "resource", ": ")
        elif value_of is None and keys[-1:] == ("zones",):
            names(voc.zones, "zone", ": ")
        elif value_of not in ("do", "name", "cites", "pack"):
            for card_id, (card_name, _file, _span) in cards.items():
                add(card_id, "card", card_name)
    return out
