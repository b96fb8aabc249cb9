"""The baseline for the ability benchmark: the same abilities written by hand in Python.

This is how a programmer would write these games without cardsmith: a few helpers over the same
GameState (draw, gain with bounds, place pieces, move a card) and one function per ability. They
change the state exactly as the bytecode does (the benchmark checks that after every run), and they
ask for decisions through `choose(kind, options)` like the VM asks an agent.
"""

from __future__ import annotations

from cardsmith.bytecode import CompiledPack
from cardsmith.runtime.geometry import geometry
from cardsmith.runtime.state import SHARED, GameState


def policy(options: list) -> int:
    """The answer both sides give: the first card of an optional card choice, else the last option."""
    if len(options) > 1 and options[-1] is None:
        return 0
    return len(options) - 1


def choose(options: list) -> int:
    return 0 if len(options) == 1 else policy(options)


class Hand:
    """Per-pack tables a hand-written engine would keep (built once, like the VM's Linker), and the helpers
    it would write: each filter a table lookup per card (built once per trait value), one pass where one
    does, each counter's store and bounds found once per pack, not on every gain."""

    def __init__(self, pack: CompiledPack) -> None:
        self.pack = pack
        self.index = {c.id: i for i, c in enumerate(pack.cards)}
        self.traits = [{t: frozenset(v) for t, v in c.traits.items()} for c in pack.cards]
        self.stats = [{**pack.stats, **c.stats} for c in pack.cards]
        self.types = [c.type for c in pack.cards]
        self.resources = pack.resources
        self.counters = pack.counters
        self.in_play = {z for z, d in pack.zones.items() if d.get("in-play")}
        self.geo = {z: geometry(d) for z, d in pack.zones.items()}
        self.caps = {p: d.get("capacity") for p, d in pack.pieces.items()}
        self.has_triggers = [bool(c.triggers) for c in pack.cards]
        self.has_modifiers = [bool(c.modifiers) for c in pack.cards]
        self.live_tables = [(tr, mo) for tr, mo in zip(self.has_triggers, self.has_modifiers, strict=True)]
        # per counter: (a player's resource?, max, min)
        self.bounds = {**{n: (True, d.get("max"), d.get("min", 0)) for n, d in pack.resources.items()},
                       **{n: (False, d.get("max"), d.get("min", 0)) for n, d in pack.counters.items()}}
        self._with: dict[tuple[str, str], list[bool]] = {}

    def having(self, trait: str, value: str) -> list[bool]:
        """Per card definition: whether it has `value` among its `trait` values (made once per pair)."""
        table = self._with.get((trait, value))
        if table is None:
            table = self._with[(trait, value)] = [value in t.get(trait, ()) for t in self.traits]
        return table

    # ------------------------------------------------------------ counters
    def gain(self, st: GameState, you: int, name: str, n: int) -> None:
        if n <= 0:
            return
        own, hi, _ = self.bounds[name]
        store = st.counters[you] if own else st.globals
        v = store.get(name, 0) + n
        store[name] = hi if hi is not None and v > hi else v

    def lose(self, st: GameState, you: int, name: str, n: int) -> None:
        if n <= 0:
            return
        own, _, lo = self.bounds[name]
        store = st.counters[you] if own else st.globals
        v = store.get(name, 0) - n
        store[name] = lo if v < lo else v

    def score(self, st: GameState, you: int, step: str, n: int) -> None:
        sc = st.scores[you]
        sc[step] = sc.get(step, 0) + n

    # ------------------------------------------------------------ cards
    def has(self, st: GameState, cid: int, trait: str, value: str) -> bool:
        return value in self.traits[st.cards[cid].defn].get(trait, ())

    def cards_in(self, st: GameState, zone: str, seat: int) -> list[int]:
        return [c for c in st.zones[(zone, seat)] if c is not None]

    def count(self, st: GameState, zone: str, seat: int, trait: str, value: str) -> int:
        """How many cards in the zone have the trait value: one pass, a table lookup per card."""
        table, cards = self.having(trait, value), st.cards
        return sum(1 for c in st.zones[(zone, seat)] if c is not None and table[cards[c].defn])

    def matching(self, st: GameState, zone: str, seat: int, trait: str, value: str) -> list[int]:
        table, cards = self.having(trait, value), st.cards
        return [c for c in st.zones[(zone, seat)] if c is not None and table[cards[c].defn]]

    def move(self, st: GameState, cid: int, zone: str, seat: int, face: str | None = None, pos: int = -1) -> None:
        card = st.cards[cid]
        old = st.zones[(card.zone, card.seat)]
        if card.pos >= 0:
            old[card.pos] = None
        else:
            old.remove(cid)
        was = card.zone in self.in_play
        if pos >= 0:
            st.zones[(zone, seat)][pos] = cid
        else:
            st.zones[(zone, seat)].append(cid)
        card.zone, card.seat, card.pos = zone, seat, pos
        if face is not None:
            card.face_down = face == "down"
        now = zone in self.in_play
        if was != now:
            tr, mo = self.live_tables[card.defn]
            for lst, has in ((st.live_triggers, tr), (st.live_modifiers, mo)):
                if has:
                    if now:
                        lst.append(cid)
                    else:
                        lst.remove(cid)

    def draw(self, st: GameState, you: int, n: int, to: str = "hand", face: str | None = None,
             source: str = "deck") -> None:
        """The top n cards of a shared pile to a player's zone; neither is in play, so no live list changes."""
        deck = st.zones[(source, SHARED)]
        if to in self.in_play or source in self.in_play:
            for _ in range(n):
                if not deck:
                    return
                self.move(st, deck[-1], to, you, face)
            return
        dest, cards = st.zones[(to, you)], st.cards
        for _ in range(min(n, len(deck))):
            cid = deck.pop()
            dest.append(cid)
            card = cards[cid]
            card.zone, card.seat, card.pos = to, you, -1
            if face is not None:
                card.face_down = face == "down"

    def room(self, st: GameState, cid: int, piece: str) -> int | None:
        cap = self.caps[piece]
        if cap is None:
            return None
        card = st.cards[cid]
        return self.stats[card.defn].get(cap, 0) - card.pieces.get(piece, 0)

    def place(self, st: GameState, cid: int, piece: str, n: int, owner: int | None = None) -> None:
        """Put up to n pieces on a card, as many as fit; a growth that fills the card makes a canopy."""
        card = st.cards[cid]
        cap = self.caps[piece]
        room = None if cap is None else self.stats[card.defn].get(cap, 0) - card.pieces.get(piece, 0)
        if room is not None and n > room:
            n = room
        if n <= 0:
            return
        card.pieces[piece] = card.pieces.get(piece, 0) + n
        if owner is not None:
            key = f"{piece}@{owner}"
            card.pieces[key] = card.pieces.get(key, 0) + n
        if room is not None and n == room and piece == "growth":
            card.flags.add("canopy")

    def place_up_to(self, st: GameState, you: int, piece: str, n: int, optional: bool, zone: str = "tableau") -> None:
        """'place N piece on card in tableau', one piece at a time on a chosen card with room: the room of each
        card is worked out once, then kept up to date as pieces go on."""
        cards, cap, stats = st.cards, self.caps[piece], self.stats
        rooms = {c: (None if cap is None else stats[cards[c].defn].get(cap, 0) - cards[c].pieces.get(piece, 0))
                 for c in st.zones[(zone, you)] if c is not None}
        for _ in range(n):
            found = [c for c, r in rooms.items() if r is None or r > 0]
            if not found:
                return
            options = [*found, None] if optional else found
            pick = options[choose(options)]
            if pick is None:
                return
            self.place(st, pick, piece, 1)
            if rooms[pick] is not None:
                rooms[pick] -= 1
