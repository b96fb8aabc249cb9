"""What an ability does, read from its checked, macro-expanded AST (never from its text).

The walk is generic: it visits every dataclass field of every node, so constructs the language
gains later are visited too. Three readings:

- `effects`: per statement kind a verb ("gains", "pays", "places" ...) and the names it acts on
  (`gain 2 soil` -> gains: soil). A statement class missing from VERBS is named after its class.
- `targets`: which players an ability reaches beyond its owner ("opponent", "left", "each-player" ...),
  from player scopes and from the owners of the zones it looks at.
- `selectors`: the card filters of its queries (`card in tableau with kind tree`), so a card can
  list the cards whose abilities refer to it.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass, fields

from cardsmith.compiler import ast as A

STATEMENTS: frozenset[type] = frozenset(typing.get_args(A.Stmt))

# The verb a designer would use for each statement kind; others are named after their class.
VERBS: dict[type, str] = {
    A.Gain: "gains", A.Lose: "loses", A.Pay: "pays", A.Place: "places", A.Remove: "removes",
    A.SetCounter: "sets", A.Mark: "marks", A.Modify: "modifies", A.Emit: "emits", A.Prevent: "prevents",
    A.Move: "moves", A.MoveCard: "moves", A.Shuffle: "shuffles", A.Reveal: "reveals",
    A.ActivateTiming: "activates", A.ActivateCopy: "activates",
}
# Statement kinds that name nothing themselves (their bodies do): no verb.
_CONTAINERS = frozenset({A.Group, A.May, A.Costed, A.If, A.Scoped, A.ForEach, A.Repeat, A.ChooseOne, A.ChooseCard,
                         A.Trigger, A.Nothing, A.Call})
# Fields that say how a statement works rather than what it acts on.
_MODE_FIELDS = frozenset({"kind", "op", "face", "end", "macro", "call", "scope", "subject", "verb", "span"})

_PLAYER_SCOPES = {"each": ("each-player",), "turns": ("each-player",), "each_other": ("opponent",),
                  "opponents": ("opponent",), "chosen": ("chosen-player",), "ref": ()}
_PLAYER_REFS = {"left": ("opponent", "left"), "right": ("opponent", "right"), "others": ("opponent",),
                "all": ("each-player",), "active": ("active",), "first": ("first",)}


# Every value `targets` can take.
TARGETS = frozenset(t for table in (_PLAYER_SCOPES, _PLAYER_REFS) for ts in table.values() for t in ts)


def kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def verb_of(kind: type) -> str | None:
    if kind in _CONTAINERS:
        return None
    return VERBS.get(kind) or kebab(kind.__name__)


def walk(node):
    """Every AST node under `node` (tuples and tuples of tuples included), depth first."""
    if isinstance(node, tuple):
        for n in node:
            yield from walk(n)
        return
    if not isinstance(node, A.Node):
        return
    yield node
    for f in fields(node):  # type: ignore[arg-type]
        if f.name != "span":
            yield from walk(getattr(node, f.name))


def _direct_names(node) -> list[str]:
    """The names a statement acts on: its own string fields (and strings in tuples of them, as a
    payment's items), and the zones of its source and destination."""
    out: list[str] = []

    def strings(v) -> None:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, tuple):
            for x in v:
                if not isinstance(x, A.Node):
                    strings(x)
        elif isinstance(v, A.Source | A.Dest):
            out.append(v.zone.name)
        elif isinstance(v, A.ZoneRef):
            out.append(v.name)

    for f in fields(node):
        if f.name not in _MODE_FIELDS:
            strings(getattr(node, f.name))
    return out


@dataclass
class Behaviour:
    """What one program does."""

    effects: dict[str, set[str]]  # verb -> names
    targets: set[str]
    macros: set[str]  # signatures of the macros it expands ("draw $n")
    names: set[str]  # every vocabulary name it mentions anywhere (resources, zones, pieces, stats ...)
    selectors: list[tuple[tuple[str, str, tuple[str, ...]], ...]]  # per query: ("type"|"trait", name, values)


def read(body, card_types: set[str], vocabulary: set[str]) -> Behaviour:
    b = Behaviour({}, set(), set(), set(), [])
    for n in walk(body):
        kind = type(n)
        if kind in STATEMENTS:
            verb = verb_of(kind)
            names = _direct_names(n) if verb else []
            if names:
                b.effects.setdefault(verb, set()).update(names)
        if isinstance(n, A.Group) and n.macro:
            b.macros.add(n.macro)
        # a kind the tables do not know yet is kept under its own name, so new scopes still show up
        if isinstance(n, A.Players):
            b.targets.update(_PLAYER_SCOPES.get(n.kind, (n.kind.replace("_", "-"),)))
        if isinstance(n, A.PlayerRef) and n.kind != "you":
            b.targets.update(_PLAYER_REFS.get(n.kind, (n.kind.replace("_", "-"),)))
        for f in fields(n):
            v = getattr(n, f.name)
            if f.name not in _MODE_FIELDS and isinstance(v, str) and v in vocabulary:
                b.names.add(v)
        sel = _selector(n, card_types)
        if sel:
            b.selectors.append(sel)
    return b


def _selector(node, card_types: set[str]):
    """The positive card filters of a query-like node (anything with a `filters` tuple, and 'it is ...')."""
    filters = getattr(node, "filters", None)
    if isinstance(node, A.CardIs):
        filters = (node.filter,)
    if not isinstance(filters, tuple):
        return None
    out = []
    for f in filters:
        if isinstance(f, A.TraitIs):
            out.append(("trait", f.trait, tuple(f.values)))
        elif isinstance(f, A.Has) and f.name in card_types:
            out.append(("type", f.name, ()))
    return tuple(out) or None


def selects(selector, card_type: str | None, traits: dict[str, list[str]]) -> bool:
    """Whether a card with this type and these traits passes every filter of a selector."""
    for kind, name, values in selector:
        if kind == "type" and card_type != name:
            return False
        if kind == "trait" and not set(traits.get(name, ())) & set(values):
            return False
    return True


def describe_selector(selector) -> str:
    return " ".join(f"{name}" if kind == "type" else f"{name} {'/'.join(values)}" for kind, name, values in selector)
