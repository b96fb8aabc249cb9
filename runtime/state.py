"""Game state: players' counters, shared counters, zones of cards, pieces and flags on cards.

Plain lists and dicts only, so a state can be cloned quickly (search agents) and written
to JSON (saves). Nothing here knows a game: zone names, counters and pieces come from
the compiled pack.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cardsmith.bytecode import CompiledPack

from .geometry import geometry

SHARED = -1


@dataclass(slots=True)
class Card:
    """One physical card in the game."""

    id: int
    defn: int  # index into pack.cards (changes when a double-sided card flips)
    zone: str
    seat: int  # owner of the zone the card is in; SHARED for shared zones
    pos: int = -1  # cell index in a grid zone
    pieces: dict[str, int] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    face_down: bool = False

    def clone(self) -> Card:
        # attribute by attribute: a search agent clones every card of a game thousands of times a decision,
        # and this is twice as fast as the dataclass constructor
        c = _new_card(Card)
        c.id, c.defn, c.zone, c.seat, c.pos, c.face_down = \
            self.id, self.defn, self.zone, self.seat, self.pos, self.face_down
        c.pieces = self.pieces.copy()
        c.flags = self.flags.copy()
        return c


_new_card = object.__new__


class ForkedRandom:
    """A fork's random generator: a copy of the game's, made when the fork first uses it (most trials never
    shuffle, and copying a generator's state is most of the cost of a fork)."""

    __slots__ = ("_own", "_src")

    def __init__(self, src) -> None:
        self._src = src
        self._own: random.Random | None = None

    def __getattr__(self, name: str):
        own = self._own
        if own is None:
            own = self._own = random.Random.__new__(random.Random)
            own.setstate(self._src.getstate())
        return getattr(own, name)



class GameState:
    """Everything that changes during a game."""

    __slots__ = (
        "activated",
        "active",
        "cards",
        "claims",
        "counters",
        "first",
        "globals",
        "known",
        "live_modifiers",
        "live_triggers",
        "n",
        "over",
        "owned",
        "params",
        "rng",
        "scores",
        "seats",
        "turn",
        "zones",
    )

    def __init__(self, n: int, automa: int = 0) -> None:
        self.n = n  # the players: seats 0..n-1 decide, take turns and sit next to each other
        self.seats = n + automa  # then the automa seats (rules.yaml `automa`): opponents with a score, no turns
        seats = self.seats
        self.counters: list[dict[str, int]] = [{} for _ in range(seats)]
        self.globals: dict[str, int] = {}
        self.params: dict[str, object] = {}
        self.zones: dict[tuple[str, int], list[int | None]] = {}
        self.cards: list[Card] = []
        self.active = 0
        self.first = 0
        self.rng = random.Random(0)
        self.scores: list[dict[str, int]] = [{} for _ in range(seats)]
        self.activated: list[set[int] | None] = [None] * seats  # cards activated in the running activation
        self.live_triggers: list[int] = []  # cards in play with triggers, in the order they arrived
        self.live_modifiers: list[int] = []
        self.over = False
        self.turn = 0
        self.claims: set[tuple] = set()  # claims made ('as soon as'): (claim, seat, card), kept for the game
        self.known: dict[int, int] = {}  # card id -> seats (bit mask) that remember it where it is (visibility.py)
        self.owned: set[int] | None = None  # a fork's own cards (see `fork`); None: every card is this state's

    def writable(self, cid: int) -> Card:
        """The card `cid`, to be changed: a fork copies a card it shares with the game it came from first."""
        owned = self.owned
        if owned is None or cid in owned:
            return self.cards[cid]
        c = self.cards[cid] = self.cards[cid].clone()
        owned.add(cid)
        return c

    def clone(self) -> GameState:
        return self._copy(fork=False)

    def fork(self) -> GameState:
        """A copy for a trial, cheaper than `clone`: it shares the cards with this state until it changes one
        (every change of a card goes through `writable`), so this state must not change while the fork is used."""
        return self._copy(fork=True)

    def _copy(self, fork: bool) -> GameState:
        s = GameState.__new__(GameState)
        s.n = self.n
        s.seats = self.seats
        s.counters = [dict(c) for c in self.counters]
        s.globals = dict(self.globals)
        s.params = self.params  # read-only during a game
        s.zones = {k: list(v) for k, v in self.zones.items()}
        if fork:
            s.cards = list(self.cards)
            s.owned = set()
        else:
            s.cards = [c.clone() for c in self.cards]
            s.owned = None
        s.active = self.active
        s.first = self.first
        if fork:
            s.rng = ForkedRandom(self.rng)
        else:
            s.rng = random.Random.__new__(random.Random)  # not seeded from the system: its state is set next
            s.rng.setstate(self.rng.getstate())
        s.scores = [dict(x) for x in self.scores]
        s.activated = [set(a) if a is not None else None for a in self.activated]
        s.live_triggers = list(self.live_triggers)
        s.live_modifiers = list(self.live_modifiers)
        s.over = self.over
        s.turn = self.turn
        s.claims = set(self.claims)
        s.known = dict(self.known)
        return s


def automa_seats(pack: CompiledPack, n: int) -> list[dict]:
    """The automa seats (rules.yaml `automa`) that sit in a game of `n` players, in the order declared; they
    are seats n, n + 1, ... A seat declared with `players` sits only in games of that many players (a solo
    game's neutral player)."""
    return [a for a in pack.automa if a.get("players", (0, n))[0] <= n <= a.get("players", (0, n))[1]]


def scored_seats(step: dict, st: GameState) -> range:
    """The seats a scoring step counts (rules.yaml `seats`): every seat, only the players or only the automa seats."""
    which = step.get("seats", "all")
    return range(st.n) if which == "players" else range(st.n, st.seats) if which == "automa" else range(st.seats)


def new_state(pack: CompiledPack, n: int, seed: int, params: dict | None = None) -> GameState:
    """A fresh state: counters at their start values, every card in the start zone of its type."""
    s = GameState(n, len(automa_seats(pack, n)))
    s.rng = random.Random(seed)
    s.params = {**pack.params, **(params or {})}
    for seat in range(s.seats):
        s.counters[seat] = {name: decl.get("start", 0) for name, decl in pack.resources.items()}
    s.globals = {name: decl.get("start", 0) for name, decl in pack.counters.items()}
    for zname, z in pack.zones.items():
        seats = [SHARED] if z.get("owner", "player") == "shared" else list(range(s.seats))
        geo = geometry(z)
        for seat in seats:
            s.zones[(zname, seat)] = [None] * geo.size if geo else []
    index = {c.id: i for i, c in enumerate(pack.cards)}
    for defn in pack.cards:
        if defn.is_back or defn.type is None:
            continue
        start = pack.card_types.get(defn.type, {}).get("start")
        if start is None:
            continue
        zone = s.zones[(start, SHARED)]
        cells = geometry(pack.zones[start]) is not None
        copies = defn.copies_by_players.get(str(n), 0) if defn.copies_by_players else defn.copies
        for _ in range(copies):
            cid = len(s.cards)
            card = Card(cid, index[defn.id], start, SHARED)
            s.cards.append(card)
            if cells:
                # A board's cards (e.g. the spaces of a map) fill its cells in the order they are listed.
                if None not in zone:
                    raise ValueError(f"more {defn.type} cards than cells in zone '{start}'")
                card.pos = zone.index(None)
                zone[card.pos] = cid
            else:
                zone.append(cid)
    return s
