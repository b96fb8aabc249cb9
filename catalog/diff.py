"""What changed between two versions of a pack, card by card, and whether the game plays differently.

Behaviour is compared on the compiled form: each program's bytecode with its spans and its name left
out and the operands that only label things for players (a choice's option labels, a prompt) blanked,
together with the facts the runtime reads (type, traits, stats, copies, triggers, modifiers). So
reformatting a card, rewording it, or rewording a macro into one that compiles to the same program is
"text only"; a changed cost or a changed program is a behaviour change. Text is compared on the source
as written, the checked AST (which includes the macros as expanded) and the generated text.

Cards are matched by id; a card that disappears under one id while a card with the same name appears
under another is a rename, compared like any other pair.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from cardsmith.bytecode import CardDef, Code
from cardsmith.bytecode.opcodes import BY_NAME

from .records import CardRecord, Catalog

# Operands that only label a decision for players: they change with wording, never with behaviour.
PRESENTATION_OPERANDS = frozenset({"labels", "prompt"})
# Card facts shown in a diff; those the runtime reads also decide behaviour.
FACTS = ("name", "name_ja", "type", "traits", "stats", "copies", "original", "number", "pack", "back")
BEHAVIOUR_FACTS = frozenset({"type", "traits", "stats", "copies", "back"})
# Rule tables compared entry by entry; these keys of an entry are words for people, not rules.
RULE_TABLES = ("resources", "counters", "params", "zones", "card_types", "traits", "stats", "pieces", "timings")
WORDING_KEYS = frozenset({"description", "names", "name", "icon", "colour"})
STATUSES = ("added", "removed", "behaviour", "text", "unchanged")


def normal_code(code: Code | None) -> list | None:
    """A program as behaviour: instructions only, presentation operands blanked."""
    if code is None:
        return None
    out = []
    for ins in code.ops:
        op = BY_NAME.get(ins[0])
        names = op.operands if op else ()
        out.append([ins[0], *("" if i < len(names) and names[i] in PRESENTATION_OPERANDS else v
                              for i, v in enumerate(ins[1:]))])
    return out


def card_behaviour(c: CardDef) -> dict:
    """Everything about a compiled card that can change how a game goes."""
    return {
        "type": c.type, "traits": {k: sorted(v) for k, v in c.traits.items()}, "stats": dict(c.stats),
        "copies": c.copies, "is_back": c.is_back,
        "abilities": {t: normal_code(x) for t, x in c.abilities.items()},
        "checks": {t: normal_code(x) for t, x in c.checks.items()},
        "conditions": {t: normal_code(x) for t, x in c.conditions.items()},
        "triggers": [[t.subject, t.verb, t.name, t.filters, normal_code(t.code)] for t in c.triggers],
        "modifiers": [asdict(m) for m in c.modifiers], "prevents": c.prevents,
    }


# ------------------------------------------------------------------------------ the report


@dataclass
class FactChange:
    field: str
    old: Any
    new: Any
    behaviour: bool


@dataclass
class AbilityChange:
    timing: str
    change: str  # added | removed | behaviour | text
    source_old: str | None
    source_new: str | None


@dataclass
class CardChange:
    status: str  # added | removed | behaviour | text | unchanged
    id: str  # the new id (the old one for a removed card)
    name: str
    old_id: str | None = None
    old_name: str | None = None
    renamed: bool = False  # same id with another name, or same name under another id
    facts: list[FactChange] = field(default_factory=list)
    abilities: list[AbilityChange] = field(default_factory=list)
    text_old: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # lang -> [(timing label, text)]
    text_new: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    where: str = ""

    @property
    def behaviour(self) -> bool:
        return self.status in ("added", "removed", "behaviour")


@dataclass
class RuleChange:
    what: str  # "param completion-bonus", "program game", "macro draw $n" ...
    change: str  # added | removed | changed | reworded
    behaviour: bool
    detail: str = ""


@dataclass
class PackDiff:
    old: str  # the sides as the user named them
    new: str
    old_pack: dict
    new_pack: dict
    cards: list[CardChange]
    rules: list[RuleChange]

    def count(self, status: str) -> int:
        return sum(1 for c in self.cards if c.status == status)

    @property
    def renamed(self) -> int:
        return sum(1 for c in self.cards if c.renamed)

    @property
    def behaviour_changed(self) -> bool:
        return any(c.behaviour for c in self.cards) or any(r.behaviour for r in self.rules)

    @property
    def changed(self) -> bool:
        return any(c.status != "unchanged" for c in self.cards) or bool(self.rules) or \
            self.old_pack.get("version") != self.new_pack.get("version")

    def summary(self) -> dict[str, int]:
        return {"added": self.count("added"), "removed": self.count("removed"), "renamed": self.renamed,
                "behaviour": self.count("behaviour"), "text": self.count("text"),
                "unchanged": self.count("unchanged"), "rules": len(self.rules),
                "rules_behaviour": sum(1 for r in self.rules if r.behaviour)}

    def to_json(self) -> dict:
        return {"old": self.old, "new": self.new, "old_pack": self.old_pack, "new_pack": self.new_pack,
                "summary": self.summary(), "behaviour_changed": self.behaviour_changed,
                "cards": [{**asdict(c), "behaviour": c.behaviour} for c in self.cards if c.status != "unchanged"],
                "rules": [asdict(r) for r in self.rules]}


def diff_catalogs(old: Catalog, new: Catalog, old_label: str = "old", new_label: str = "new") -> PackDiff:
    old_ids = {c.id: c for c in old.cards}
    new_ids = {c.id: c for c in new.cards}
    pairs: list[tuple[CardRecord | None, CardRecord | None]] = []
    gone = [c for c in old.cards if c.id not in new_ids]
    came = [c for c in new.cards if c.id not in old_ids]
    by_name = {}
    for c in came:
        by_name.setdefault(c.name.casefold(), []).append(c)
    renamed_to: dict[str, CardRecord] = {}
    for c in gone:
        cands = by_name.get(c.name.casefold()) or []
        if len(cands) == 1 and cands[0].id not in {r.id for r in renamed_to.values()}:
            renamed_to[c.id] = cands[0]
    for c in new.cards:
        if c.id in old_ids:
            pairs.append((old_ids[c.id], c))
    pairs += [(c, renamed_to[c.id]) for c in gone if c.id in renamed_to]
    taken = {r.id for r in renamed_to.values()}
    macro_texts = (_macro_texts(old), _macro_texts(new))
    changes = [_pair(old, new, o, n, macro_texts) for o, n in pairs]
    changes += [_single("added", new, c) for c in came if c.id not in taken]
    changes += [_single("removed", old, c) for c in gone if c.id not in renamed_to]
    order = {s: i for i, s in enumerate(STATUSES)}
    changes.sort(key=lambda ch: (order[ch.status], ch.id))
    return PackDiff(old_label, new_label, _pack_info(old), _pack_info(new), changes, _rules(old, new))


def _pack_info(cat: Catalog) -> dict:
    return {"id": cat.id, "name": cat.name.get("en", cat.id), "version": cat.version, "cards": len(cat.cards),
            "chain": [f"{p['id']} {p['version']}" for p in cat.chain]}


def _texts(c: CardRecord) -> dict[str, list[tuple[str, str]]]:
    langs = sorted({lang for a in c.abilities for lang in a.text})
    return {lang: [(a.label.get(lang, a.timing), a.text.get(lang, "")) for a in c.abilities] for lang in langs}


def _single(status: str, cat: Catalog, c: CardRecord) -> CardChange:
    texts = _texts(c)
    return CardChange(status, c.id, c.name, facts=[], abilities=[],
                      text_old=texts if status == "removed" else {}, text_new=texts if status == "added" else {},
                      where=c.where)


def _macro_texts(cat: Catalog) -> dict[str, str]:
    """Each macro's body as written in rules.yaml, by signature."""
    return {m.signature: str(m.entry.value) for name, ms in cat.result.compiler.macros.items()
            if not name.startswith("__") for m in ms}


def _pair(old: Catalog, new: Catalog, o: CardRecord, n: CardRecord, macro_texts) -> CardChange:
    od, nd = old.pack.card(o.id), new.pack.card(n.id)
    facts = []
    for f in FACTS:
        a, b = _fact(o, f), _fact(n, f)
        if f == "back" and o.id != n.id:
            continue  # a renamed double-sided card: its sides are compared themselves
        if a != b:
            facts.append(FactChange(f, a, b, f in BEHAVIOUR_FACTS))
    ob, nb = card_behaviour(od), card_behaviour(nd)
    behaviour = ob != nb
    abilities = []
    o_ab = {a.timing: a for a in o.abilities}
    n_ab = {a.timing: a for a in n.abilities}
    for timing in dict.fromkeys([*o_ab, *n_ab]):
        a, b = o_ab.get(timing), n_ab.get(timing)
        if a is None or b is None:
            abilities.append(AbilityChange(timing, "added" if a is None else "removed", a and a.source,
                                           b and b.source))
            continue
        same_code = _timing_code(ob, timing) == _timing_code(nb, timing) and \
            (not _has_triggers(od, nd) or ob["triggers"] == nb["triggers"])
        same_text = a.source == b.source and a.text == b.text and a.macros == b.macros and \
            old.result.asts.get(f"{o.id} {timing}") == new.result.asts.get(f"{n.id} {timing}") and \
            all(macro_texts[0].get(m) == macro_texts[1].get(m) for m in b.macros)
        if not same_code:
            abilities.append(AbilityChange(timing, "behaviour", a.source, b.source))
        elif not same_text:
            abilities.append(AbilityChange(timing, "text", a.source, b.source))
    renamed = o.id != n.id or o.name != n.name
    text_changed = renamed or bool(abilities) or bool(facts)
    status = "behaviour" if behaviour else "text" if text_changed else "unchanged"
    show = status != "unchanged"
    return CardChange(status, n.id, n.name, old_id=o.id if o.id != n.id else None,
                      old_name=o.name if o.name != n.name else None, renamed=renamed, facts=facts,
                      abilities=abilities, text_old=_texts(o) if show else {}, text_new=_texts(n) if show else {},
                      where=n.where)


def _timing_code(b: dict, timing: str):
    return tuple(b[k].get(timing) for k in ("abilities", "checks", "conditions"))


def _has_triggers(a: CardDef, b: CardDef) -> bool:
    return bool(a.triggers or b.triggers)


def _fact(c: CardRecord, f: str):
    if f == "traits":
        return {k: sorted(v) for k, v in c.traits.items()}
    if f == "name_ja":  # the printed Japanese name, when the card has one of its own
        ja = c.names.get("ja")
        return ja if ja and ja != c.name else None
    return getattr(c, f)


# ------------------------------------------------------------------------------ rules


def _rules(old: Catalog, new: Catalog) -> list[RuleChange]:
    out: list[RuleChange] = []
    op, np_ = old.pack, new.pack
    if op.players != np_.players:
        out.append(RuleChange("players", "changed", True, f"{_span(op.players)} -> {_span(np_.players)}"))
    for table in RULE_TABLES:
        a, b = getattr(op, table), getattr(np_, table)
        word = table[:-1].replace("_", " ") if table.endswith("s") else table
        for key in dict.fromkeys([*a, *b]):
            if key not in a:
                out.append(RuleChange(f"{word} {key}", "added", True, _short(b[key])))
            elif key not in b:
                out.append(RuleChange(f"{word} {key}", "removed", True, _short(a[key])))
            elif a[key] != b[key]:
                rules_same = _rule_part(a[key]) == _rule_part(b[key])
                out.append(RuleChange(f"{word} {key}", "reworded" if rules_same else "changed", not rules_same,
                                      _change(a[key], b[key])))
    if op.activation != np_.activation:
        out.append(RuleChange("activation order", "changed", True))
    for label, a, b in _programs(old, new):
        if a is None or b is None:
            out.append(RuleChange(label, "added" if a is None else "removed", True))
        elif normal_code(a) != normal_code(b):
            out.append(RuleChange(label, "changed", True))
    out += _macros(old, new)
    return out


def _rule_part(value):
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k not in WORDING_KEYS}
    return value


def _span(players) -> str:
    lo, hi = players
    return f"{lo}-{hi}" if lo != hi else str(lo)


def _change(a, b) -> str:
    """old -> new; for two tables only the keys that differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
        return "; ".join(f"{k}: {_short(a.get(k, '(none)'))} -> {_short(b.get(k, '(none)'))}" for k in keys)
    return f"{_short(a)} -> {_short(b)}"


def _short(value) -> str:
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= 80 else text[:77] + "..."


def _programs(old: Catalog, new: Catalog):
    """(label, old code, new code) of every rules-level program."""
    def codes(cat: Catalog) -> dict[str, Code]:
        cards = {c.id for c in cat.pack.cards}
        return {label: code for label, code in cat.pack.codes() if label.split(" ", 1)[0] not in cards}

    a, b = codes(old), codes(new)
    for label in dict.fromkeys([*a, *b]):
        yield f"program {label}", a.get(label), b.get(label)


def _macros(old: Catalog, new: Catalog) -> list[RuleChange]:
    """Macros added, removed or reworded; for a reworded one, whether the cards using it still compile to
    the same bytecode (the behaviour of each card is reported with the card)."""
    def table(cat: Catalog) -> dict:
        return {m.signature: m for name, ms in cat.result.compiler.macros.items() if not name.startswith("__")
                for m in ms}

    a, b = table(old), table(new)
    old_b = {c.id: card_behaviour(c) for c in old.pack.cards}
    out = []
    for sig in dict.fromkeys([*a, *b]):
        if sig not in a or sig not in b:
            out.append(RuleChange(f"macro '{sig}'", "added" if sig not in a else "removed", False))
            continue
        if a[sig].body == b[sig].body and str(a[sig].entry.value) == str(b[sig].entry.value):
            continue
        users = [c for c in new.cards if any(sig in ab.macros for ab in c.abilities)]
        differ = [c.id for c in users if c.id in old_b and old_b[c.id] != card_behaviour(new.pack.card(c.id))]
        if differ:
            detail = f"{len(differ)} of the {len(users)} cards using it behave differently: " + ", ".join(differ[:8]) \
                + (" ..." if len(differ) > 8 else "")
        elif len(users) == 1:
            detail = "the card using it compiles to the same bytecode"
        else:
            detail = f"the {len(users)} cards using it compile to the same bytecode" if users else "no card uses it"
        out.append(RuleChange(f"macro '{sig}'", "changed" if differ else "reworded", bool(differ), detail))
    return out
