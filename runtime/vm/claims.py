"""Claims: 'as soon as COND [for each QUERY]: BODY', checked the moment something they read changes.

A claim's condition is read, for each player it watches (and each card of its query), after every change
to a name it reads: a counter gained, lost or set, a piece placed or removed, a flag marked, a card moved
into or out of a zone. The first time it holds, the claim is recorded in the state and its body runs at
once, before the program that made the change goes on; it never runs again for that player (and card),
whatever happens to the condition later. Claims that come true at the same change run in the declared
order: the players in turn from the active player (or as the claim's player loop says).

What a condition reads is found from its bytecode when the pack is linked, so a change to anything else
costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardsmith.bytecode import Code

from .core import Linked, Query, owner

if TYPE_CHECKING:
    from .machine import VM

ANY = "*"  # a condition that reads something no name covers (a card's stat): every change may matter
# opcodes and the operand that names what they read
_NAMED = {"COUNTER": 1, "GLOBAL": 1, "PLAYER_COUNTER": 1, "HAS": 1, "PIECES": 1}
_QUERIES = {"COUNT": 1, "SUM": 2, "SETS": 1, "PATH": 1, "LINES": 1, "NEIGHBOURS": 1, "DISTINCT": 1,
            "OCCURRENCES": 1, "FOR_CARDS": 1, "CHOOSE_CARD": 1}


class Claim:
    """A claim as the VM checks it: its condition, its query, its body, and which players it watches.
    `reads` is what the condition reads for any card; `card_reads(defn)` what it reads when the card of
    its query is of that definition (a goal reads what that card's goal reads)."""

    __slots__ = ("_by_defn", "_reading", "body", "code", "cond", "pack", "players", "query", "query_reads", "reads")

    def __init__(self, pack, code: Code, cond: Linked, query: Query | None, body: Linked, players: list | None,
                 reads: frozenset):
        self.pack, self.code = pack, code
        self.cond, self.query, self.body, self.players, self.reads = cond, query, body, players, reads
        self._by_defn: dict[int, frozenset] = {}
        self._reading: dict[str, frozenset[int]] = {}
        self.query_reads: frozenset = frozenset()  # what decides which cards the query holds

    def defns_reading(self, changed: str) -> frozenset[int]:
        """The card definitions for which this claim's condition reads `changed` (made once per name): a change
        no card of the query could care about costs no query."""
        hit = self._reading.get(changed)
        if hit is None:
            hit = self._reading[changed] = frozenset(
                d for d in range(len(self.pack.cards)) if changed in (r := self.card_reads(d)) or ANY in r)
        return hit

    def card_reads(self, defn: int) -> frozenset:
        hit = self._by_defn.get(defn)
        if hit is None:
            hit = self._by_defn[defn] = frozenset(flag_events(self.pack, reads(self.pack, self.code, card=defn))) \
                | self.query_reads
        return hit


def flag_events(pack, names: set[str]) -> set[str]:
    """A flag is changed by 'mark' (its name) and by 'unmark' (un + its name)."""
    return names | {f"un{n}" for n in names if n in pack.flags}


def reads(pack, code: Code, seen: set[int] | None = None, card: int | None = None) -> set[str]:
    """The names whose change can change what `code` computes (ANY when that cannot be told). With `card`,
    a card's condition ('goal of it') is that card's own, not any card's."""
    seen = set() if seen is None else seen
    if id(code) in seen:
        return set()
    seen.add(id(code))
    out: set[str] = set()
    for ins in code.ops:
        name = ins[0]
        if name in _NAMED:
            out.add(ins[1].rstrip("@"))
        elif name in _QUERIES:
            out |= _query_reads(pack, ins[_QUERIES[name]], seen)
            if name == "SUM":
                out.add(ins[1])
        elif name == "MATCH":
            out |= _filter_reads(pack, [ins[1]], seen)
        elif name == "STAT":
            out |= _in_play(pack)  # a stat changes with the modifiers live in play
        elif name == "PLACE_OF":
            out.add(ANY)  # where a card lies changes with any move
        elif name in ("PLACED", "BEST"):  # a ranking reads what its measure reads, for every player
            out |= reads(pack, Code.from_json(ins[1]["by"] if name == "PLACED" else ins[1]), seen)
        elif name == "COUNT_PLAYERS":  # the flags and counters its filters read, and their comparisons
            out |= _player_filter_reads(pack, ins[1]["filters"], seen)
        elif name == "CONDITION":
            defs = [pack.cards[card]] if card is not None else pack.cards
            for d in defs:
                if ins[1] in d.conditions:
                    out |= reads(pack, d.conditions[ins[1]], seen)
    return out


def _player_filter_reads(pack, filters: list, seen: set[int]) -> set[str]:
    out: set[str] = set()
    for flt in filters:
        while flt[0] == "not":
            flt = flt[1]
        out |= {flt[1], f"un{flt[1]}"}  # a player flag set or cleared (MARK_PLAYER), or a counter
        if flt[0] == "cmp" and isinstance(flt[3], dict):
            out |= reads(pack, Code.from_json(flt[3]), seen)
    return out


def _query_reads(pack, q: dict, seen: set[int]) -> set[str]:
    if q.get("card_on_stack"):
        return set()
    out = {z for z, _ in q["zones"] if z is not None}
    if any(z is None for z, _ in q["zones"]):
        out.add(ANY)
    out |= _filter_reads(pack, q["filters"], seen)
    if q.get("where"):
        out |= reads(pack, Code.from_json(q["where"]), seen)
    return out


def _filter_reads(pack, filters: list, seen: set[int]) -> set[str]:
    out: set[str] = set()
    for flt in filters:
        kind = flt[0]
        if kind in ("flag", "piece"):
            out.add(flt[1])
        elif kind == "not":
            out |= _filter_reads(pack, [flt[1]], seen)
        elif kind == "all":
            out |= _filter_reads(pack, flt[1], seen)
        elif kind == "stat":
            out |= {flt[1]} if flt[1] in pack.pieces else _in_play(pack)
            if isinstance(flt[3], dict):
                out |= reads(pack, Code.from_json(flt[3]), seen)
    return out


def _in_play(pack) -> set[str]:
    return {z for z, d in pack.zones.items() if d.get("in-play")}


def due(vm: VM, f, changed: str) -> list[tuple]:
    """(body, seat, card, claimer) of every claim that comes true now, recorded as claimed, in order: the rules'
    claims, then those of the cards in play. Runs after every change a claim could read (every move into a
    hand, in Earth): claims that do not read `changed` are passed over without building anything."""
    lk, st = vm.linker, vm.state
    found: list[tuple] = []
    for i, claim in enumerate(lk.rule_claims):
        reads = claim.reads
        if changed in reads or ANY in reads:
            _check(vm, f, changed, i, claim, None, found)
    per_card = lk.card_claims
    cards = st.cards
    for cid in st.live_triggers:  # the cards in play with claims of their own
        claims = per_card[cards[cid].defn]
        for i, claim in enumerate(claims):
            reads = claim.reads
            if changed in reads or ANY in reads:
                _check(vm, f, changed, (cid, i), claim, cid, found)
    return found


def _check(vm: VM, f, changed: str, key, claim: Claim, holder: int | None, found: list[tuple]) -> None:
    """Check one claim that reads `changed`, for each player (and card) it watches; record and keep what holds."""
    st = vm.state
    wanted = None
    if claim.query is not None:
        wanted = claim.defns_reading(changed)
        if not wanted:
            return
    for seat in _seats(vm, f, claim, holder):
        cands = [None]
        if claim.query is not None:
            probe = _Probe(seat, holder, f.vars)
            cands = vm.query(claim.query, probe)
        for card in cands:
            mark = (key, seat, card)
            if mark in st.claims:
                continue
            if card is not None and st.cards[card].defn not in wanted:  # only what its condition reads matters
                continue
            if vm.eval_sync(claim.cond, seat, card, holder, vars=f.vars):
                st.claims.add(mark)
                found.append((claim.body, seat, card, holder))


def _seats(vm: VM, f, claim: Claim, holder: int | None) -> list[int]:
    st = vm.state
    if holder is not None:  # a card's own claim watches its owner
        seat = st.cards[holder].seat
        return [seat] if seat >= 0 else []
    _kind, start = claim.players or ("each", "active")
    first = owner(vm, start, f)
    n = st.n
    if first >= n:
        first = st.active
    return [(first + i) % n for i in range(n)]


class _Probe:
    """What a claim's query sees: the watched player as 'you', no card as 'it'."""

    __slots__ = ("it", "this", "vars", "you")

    def __init__(self, you: int, this: int | None, vars: dict | None) -> None:
        self.you, self.it, self.this, self.vars = you, None, this, vars
