"""Read-only consistency checks of a game state, for tests and debugging.

`StateChecker(pack, state).check(state)` lists what is wrong with a state: a card in no zone or
in two, a card whose own record (zone, owner, cell) disagrees with the zone holding it, a card
count that changed, a counter below its declared `min` (default 0) or above its `max`, a negative
or undeclared piece, a live-trigger or live-modifier list out of step with the cards in play.
It changes nothing, and it is fast when all is well (it runs after every decision in the tests).

    checker = StateChecker(game.pack, game.state)
    ...
    assert not checker.check(game.state)
"""

from __future__ import annotations

from cardsmith.bytecode import CompiledPack

from .geometry import geometry
from .state import SHARED, GameState, automa_seats


class StateChecker:
    """Checks the states of one game (the card count is taken from the state it starts with)."""

    def __init__(self, pack: CompiledPack, state: GameState) -> None:
        self.pack = pack
        self.total = len(state.cards)
        self.resources = {n: (d.get("min", 0), d.get("max")) for n, d in pack.resources.items()}
        self.counters = {n: (d.get("min", 0), d.get("max")) for n, d in pack.counters.items()}
        self.pieces = set(pack.pieces)
        self.cells: dict[str, int] = {}
        for name, z in pack.zones.items():
            geo = geometry(z)
            if geo is not None:
                self.cells[name] = geo.size
        self.in_play = frozenset(n for n, z in pack.zones.items() if z.get("in-play"))
        self.has_triggers = [bool(c.triggers) or bool(c.claims) for c in pack.cards]  # live_triggers lists both
        self.has_modifiers = [bool(c.modifiers) for c in pack.cards]

    def check(self, state: GameState) -> list[str]:
        """Every problem found, as sentences; empty when the state is consistent."""
        if self._quick(state):
            return []
        return self.explain(state)

    # ------------------------------------------------------------ the fast path
    def _quick(self, state: GameState) -> bool:
        """True when the state is certainly consistent; False means: look closer (see `explain`)."""
        cards = state.cards
        n = len(cards)
        if n != self.total:
            return False
        cells, in_play = self.cells, self.in_play
        trig, mods = self.has_triggers, self.has_modifiers
        live_t, live_m = set(state.live_triggers), set(state.live_modifiers)
        if len(live_t) != len(state.live_triggers) or len(live_m) != len(state.live_modifiers):
            return False
        held = 0
        seen: set[int] = set()
        try:
            for (zname, seat), lst in state.zones.items():
                playing = zname in in_play
                if zname in cells:
                    for i, cid in enumerate(lst):
                        if cid is not None:
                            c = cards[cid]
                            if c.pos != i or c.zone != zname or c.seat != seat:
                                return False
                            if playing and (trig[c.defn] != (cid in live_t) or mods[c.defn] != (cid in live_m)):
                                return False
                            held += 1
                            seen.add(cid)
                else:
                    for cid in lst:
                        c = cards[cid]
                        if c.pos != -1 or c.zone != zname or c.seat != seat:
                            return False
                        if playing and (trig[c.defn] != (cid in live_t) or mods[c.defn] != (cid in live_m)):
                            return False
                    held += len(lst)
                    seen.update(lst)
        except (IndexError, TypeError):
            return False
        # n places hold n different cards, each recording the place: every card is in exactly one zone
        if held != n or len(seen) != n:
            return False
        for cid in live_t | live_m:
            if cards[cid].zone not in in_play:
                return False
        for c in cards:
            if c.pieces and min(c.pieces.values()) < 0:
                return False
        for seat in range(state.n):
            if _bounds(state.counters[seat], self.resources, ""):
                return False
        return not _bounds(state.globals, self.counters, "")

    # ------------------------------------------------------------ the full report
    def _name(self, state: GameState, cid: int) -> str:
        try:
            return f"card {cid} ({self.pack.cards[state.cards[cid].defn].id})"
        except (IndexError, TypeError):
            return f"card {cid}"

    def explain(self, state: GameState) -> list[str]:
        problems: list[str] = []
        cards = state.cards
        n = len(cards)
        if n != self.total:
            problems.append(f"the game has {n} cards; it started with {self.total}")
        ndefs = len(self.pack.cards)
        where: list[list[tuple[str, int]]] = [[] for _ in range(n)]
        for (zname, seat), lst in state.zones.items():
            if zname not in self.pack.zones:
                problems.append(f"zone '{zname}' is not declared by the pack")
                continue
            if seat != SHARED and not 0 <= seat < state.n:
                problems.append(f"zone {zname} belongs to seat {seat}, not a player of this game")
            celled = zname in self.cells
            if celled and len(lst) != self.cells[zname]:
                problems.append(f"board {zname}/{seat} has {len(lst)} cells, not {self.cells[zname]}")
            for i, cid in enumerate(lst):
                if cid is None:
                    if not celled:
                        problems.append(f"zone {zname}/{seat} holds an empty place at {i}")
                    continue
                if not isinstance(cid, int) or not 0 <= cid < n:
                    problems.append(f"zone {zname}/{seat} holds {cid!r}, which is not a card of the game")
                    continue
                where[cid].append((zname, seat))
                c = cards[cid]
                if c.zone != zname or c.seat != seat:
                    problems.append(f"{self._name(state, cid)} is in {zname}/{seat} but records {c.zone}/{c.seat}")
                if c.pos != (i if celled else -1):
                    problems.append(f"{self._name(state, cid)} is at place {i} of {zname}/{seat} but records "
                                    f"cell {c.pos}")
        for cid, places in enumerate(where):
            if len(places) != 1:
                shown = ", ".join(f"{z}/{s}" for z, s in places) or "no zone"
                problems.append(f"{self._name(state, cid)} is in {len(places)} zones ({shown})")
        for cid, c in enumerate(cards):
            if c.id != cid:
                problems.append(f"card {cid} records id {c.id}")
            if not 0 <= c.defn < ndefs:
                problems.append(f"card {cid} has definition {c.defn}, not a card of the pack")
                continue
            for piece, k in c.pieces.items():
                if piece.split("@", 1)[0] not in self.pieces:
                    problems.append(f"{self._name(state, cid)} holds undeclared pieces '{piece}'")
                elif k < 0:
                    problems.append(f"{self._name(state, cid)} holds {k} {piece}")
        bottomless = {state.n + i for i, a in enumerate(automa_seats(self.pack, state.n)) if a.get("bottomless")}
        for seat in range(state.seats):
            who = f"player {seat + 1}" if seat < state.n else f"automa seat {seat + 1 - state.n}"
            problems.extend(_bounds(state.counters[seat], self.resources, who, floor=seat not in bottomless))
        problems.extend(_bounds(state.globals, self.counters, "shared counters"))
        problems.extend(self._live(state, state.live_triggers, self.has_triggers, "triggers"))
        problems.extend(self._live(state, state.live_modifiers, self.has_modifiers, "modifiers"))
        for seat, ids in enumerate(state.activated):
            bad = sorted(c for c in ids or () if not 0 <= c < n)
            if bad:
                problems.append(f"player {seat + 1} has activated cards {bad}, which are not cards of the game")
        return problems

    def _live(self, state: GameState, live: list[int], has: list[bool], what: str) -> list[str]:
        out = []
        if len(set(live)) != len(live):
            out.append(f"a card is listed twice among the live {what}: {live}")
        cards = state.cards
        listed = set(live)
        for cid in sorted(listed):
            if not 0 <= cid < len(cards):
                out.append(f"the live {what} list {cid}, which is not a card of the game")
            elif cards[cid].zone not in self.in_play:
                out.append(f"{self._name(state, cid)} has live {what} but is in {cards[cid].zone}, not in play")
            elif not has[cards[cid].defn]:
                out.append(f"{self._name(state, cid)} is listed among the live {what} but has none")
        for c in cards:
            if c.zone in self.in_play and 0 <= c.defn < len(has) and has[c.defn] and c.id not in listed:
                out.append(f"{self._name(state, c.id)} is in play in {c.zone} but its {what} are not live")
        return out


def _bounds(values: dict[str, int], decls: dict[str, tuple[int, int | None]], whose: str,
            floor: bool = True) -> list[str]:
    """Counters outside their declared bounds (a bottomless automa seat's may be below the minimum: floor=False)."""
    out = []
    for name, v in values.items():
        decl = decls.get(name)
        if decl is None:
            out.append(f"{whose}: '{name}' is not a declared counter")
            continue
        lo, hi = decl
        if type(v) is not int:
            out.append(f"{whose}: {name} is {v!r}, not a whole number")
        elif v < lo and floor:
            out.append(f"{whose}: {name} is {v}, below its minimum {lo}")
        elif hi is not None and v > hi:
            out.append(f"{whose}: {name} is {v}, above its maximum {hi}")
    return out
