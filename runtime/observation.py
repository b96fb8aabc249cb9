"""What a seat knows of a game: the observation agents and the terminal player receive.

    obs = Observation(game, seat)
    obs.decision          # the pending decision as the seat sees it: a hidden card is HIDDEN, its label says where
    obs.table()           # counters, and every zone as the seat sees it (plain values, comparable)
    game2 = obs.sample(rng)   # a whole game consistent with what the seat knows (a determinization)

An observation never exposes a card the seat cannot see (visibility.py says which): not in the table,
not in the decision's options, labels or prompt. Agents that look ahead do it on `sample`: a copy of
the game in which every card unknown to the seat is dealt again at random among the places it
could be (cards with the same back: same start zone, and the same value of the type's declared
`back` stat or trait), the cards it knows only to be somewhere in a pile put in a random order, and
the game's own random generator reseeded (future shuffles are unknown too). The deal depends on
the observation and the generator only: two games that differ only in cards hidden from the seat
give the same sample for the same generator state, so nothing an agent computes can depend on
them.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from cardsmith.bytecode import CompiledPack

from .state import SHARED, GameState, automa_seats
from .visibility import visibility_for
from .vm import Decision

if TYPE_CHECKING:
    from .game import Game


class Hidden:
    """A card option the seat cannot see: it knows only the zone the card lies in."""

    __slots__ = ("seat", "zone")

    def __init__(self, zone: str, seat: int) -> None:
        self.zone = zone
        self.seat = seat

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hidden) and (self.zone, self.seat) == (other.zone, other.seat)

    def __hash__(self) -> int:
        return hash((self.zone, self.seat))

    def __repr__(self) -> str:
        return f"Hidden({self.zone!r}, {self.seat})"


def seat_word(pack: CompiledPack, st: GameState, owner: int, viewer: int) -> str:
    """Whose zone, as the viewer reads it: 'your', 'player 2's', 'the' (a shared zone)."""
    if owner == SHARED:
        return "the"
    if owner == viewer:
        return "your"
    if owner < st.n:
        return f"player {owner + 1}'s"
    a = automa_seats(pack, st.n)[owner - st.n]
    return f"{a.get('name') or a['id']}'s"


def zone_word(pack: CompiledPack, zone: str) -> str:
    return pack.zones[zone].get("names", {}).get("en", zone.replace("-", " "))


def hidden_label(pack: CompiledPack, st: GameState, zone: str, owner: int, viewer: int) -> str:
    return f"a card from {seat_word(pack, st, owner, viewer)} {zone_word(pack, zone)}"


class Observation:
    """What seat `seat` knows of `game` now. Cheap to make: everything is worked out on first use."""

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self.seat = seat
        self.pack = game.pack
        self.vis = visibility_for(game.pack)
        self._decision: Decision | None = None
        self._hidden: tuple | None = None

    @property
    def decisions_made(self) -> int:
        """How many decisions the game has seen so far (every seat's)."""
        return len(self._game.decisions)

    # ------------------------------------------------------------------ the decision
    @property
    def decision(self) -> Decision | None:
        """The pending decision (if it is this seat's) as the seat sees it."""
        if self._decision is None:
            d = self._game.pending
            if d is None or d.seat != self.seat:
                return None
            self._decision = observed_decision(self._game, d, self.seat)
        return self._decision

    # ------------------------------------------------------------------ the table
    def sees(self, cid: int) -> bool:
        st = self._game.state
        return not self.vis.hides or self.vis.seen_by(st, cid, self.seat)

    def card(self, cid: int) -> tuple | None:
        """(card id, definition id, pieces, flags, face down) of a card the seat sees; None for one it does not."""
        st = self._game.state
        if not self.sees(cid):
            return None
        c = st.cards[cid]
        return (cid, self.pack.cards[c.defn].id, tuple(sorted((k, v) for k, v in c.pieces.items() if v)),
                tuple(sorted(c.flags)), c.face_down)

    def zone(self, zone: str, owner: int) -> dict[str, Any] | None:
        """A zone as the seat sees it: how many cards (None when it cannot tell), the cards in order where
        it sees the zone (None in place of a card it cannot see), and the cards it knows lie in it without
        seeing them, sorted (it does not know where in the zone). None for a zone it knows nothing of."""
        st = self._game.state
        cards = st.zones[(zone, owner)]
        mode = self.vis.modes[zone]
        if mode == "nobody":
            return None
        present = [c for c in cards if c is not None]
        if mode in ("everyone", "top") or (mode == "owner" and owner == self.seat):
            if mode == "top":
                shown = [self.card(present[-1])] if present else []
                known = sorted(self.card(c)[1] for c in present[:-1] if self.sees(c))
                return {"count": len(present), "top": shown, "known": known}
            return {"count": len(present), "cards": [self.card(c) if c is not None else "empty" for c in cards]}
        known = sorted(self.pack.cards[st.cards[c].defn].id for c in present if self.sees(c))
        return {"count": len(present), "known": known}

    def table(self) -> dict[str, Any]:
        """Everything the seat knows, as plain values: two observations are equal when this is."""
        g = self._game
        st = g.state
        zones = {}
        for (zone, owner) in sorted(st.zones, key=lambda k: (k[0], k[1])):
            view = self.zone(zone, owner)
            if view is not None:
                zones[f"{zone}@{owner}"] = view
        f = g.vm.frames[-1] if g.vm.frames else None
        return {
            "seat": self.seat, "turn": st.turn, "active": st.active, "first": st.first, "over": st.over,
            "phase": g.phase, "decisions": len(g.decisions),
            "counters": [dict(sorted(c.items())) for c in st.counters],
            "globals": dict(sorted(st.globals.items())),
            "scores": [dict(sorted(s.items())) for s in st.scores],
            "zones": zones,
            "source": self.card(f.this) if f is not None and f.this is not None else None,
            "it": self.card(f.it) if f is not None and isinstance(f.it, int) else None,
            "decision": _decision_table(self.decision),
        }

    # ------------------------------------------------------------------ what the seat may compute with
    def _hidden_cards(self) -> tuple[tuple[tuple[list[int], list[int]], ...], tuple[tuple[tuple, list[int]], ...]]:
        """What a sample deals again: (the cards unknown to the seat that share a back, with their definitions
        sorted), and per pile the places of the cards the seat cannot see there (it may know a card is in the
        pile, not where)."""
        if self._hidden is None:
            st = self._game.state
            vis = self.vis
            bit = 1 << self.seat
            unknown: dict[tuple, list[int]] = {}
            piles: list[tuple[tuple, list[int]]] = []
            for key, cards in st.zones.items():
                zone, owner = key
                mode = vis.modes[zone]
                if zone in vis.reveals or mode == "everyone" or (mode == "owner" and owner == self.seat):
                    continue
                places = []
                last = len(cards) - 1
                for i, cid in enumerate(cards):
                    if cid is None or (mode == "top" and i == last):
                        continue
                    places.append(i)
                    if not st.known.get(cid, 0) & bit:
                        unknown.setdefault(vis.backs[st.cards[cid].defn], []).append(cid)
                if len(places) > 1 and self.pack.zones[zone]["kind"] == "pile":
                    piles.append((key, places))
            # face-down cards in zones the seat otherwise sees
            for cid, c in enumerate(st.cards):
                if c.face_down and vis.modes[c.zone] == "everyone" and c.zone not in vis.reveals \
                        and c.seat != self.seat and not st.known.get(cid, 0) & bit:
                    unknown.setdefault(vis.backs[c.defn], []).append(cid)
            cards = st.cards
            # each group with its definitions sorted: the deal must not depend on which card lay where
            groups = tuple((g, sorted(cards[c].defn for c in g)) for _, g in sorted(unknown.items()) if len(g) > 1)
            self._hidden = (groups, tuple(piles))
        return self._hidden

    def sample(self, rng: random.Random) -> Game:
        """A copy of the game, dealt again where the seat cannot see (see the module's docstring), standing at
        the same decision, asked again of the copy (its options are worked out from the copy's cards)."""
        # a fork: the game does not change while its seat's agent decides, and a sample copies only the cards
        # the deal or the look-ahead changes
        g = self._game.clone(silent=True, fork=True)
        st = g.state
        cards = st.cards
        groups, piles = self._hidden_cards()
        for group, defns in groups:
            for cid, d in zip(group, _shuffled(rng, defns), strict=True):
                if cards[cid].defn != d:
                    st.writable(cid).defn = d
        for key, places in piles:  # the order of a pile where the seat cannot see it
            zone = st.zones[key]
            for i, cid in zip(places, _shuffled(rng, [zone[i] for i in places]), strict=True):
                zone[i] = cid
        st.rng = random.Random(rng.getrandbits(64))
        if g.vm.at_once is not None:
            _redeal_at_once(g.vm.at_once, st, groups, rng)
        if g.pending is not None:  # ask again: options the copy's cards give (a drawn card is another)
            g.pending = None
            g.vm.pending = None
            g.vm.answer = None
            if g.vm.frames:
                g.vm.frames[-1].memo = None
            g.advance(limit_decisions=0)
        return g

    def score_now(self, rng: random.Random | None = None) -> list[int]:
        """Each seat's score if the game were scored now, worked out on a sample (so it can count cards the
        seat cannot see without showing them)."""
        from .evaluation import score_now

        return score_now(self.sample(rng or random.Random(0)))


def _shuffled(rng: random.Random, items: list) -> list:
    """`items` in a random order, every order equally likely: sorted by a random number each (one C call per
    item, where `random.shuffle` makes several Python calls per item; a sample deals a whole deck)."""
    r = rng.random
    return sorted(items, key=lambda _: r())


def _redeal_at_once(ao, st: GameState, groups, rng: random.Random) -> None:
    """In an 'each player at once', the game as it was when it began (which every part starts from) is dealt
    again as the sample is, and the parts' random generators are seeded again: what the seat does not know
    stays unknown after its part."""
    snap = ao.snapshot = ao.snapshot.clone()  # the original game's copy is shared: this sample's own
    for group, _ in groups:
        for cid in group:
            snap.cards[cid].defn = st.cards[cid].defn
    for key, zone in st.zones.items():  # a pile dealt again in another order, where it is as it was
        if sorted(c for c in zone if c is not None) == sorted(c for c in snap.zones[key] if c is not None):
            snap.zones[key] = list(zone)
    snap.rng = random.Random(rng.getrandbits(64))
    ao.seeds = [rng.getrandbits(64) for _ in ao.seeds]


def _card_step(o, hidden: bool = False) -> bool:
    """Whether an option is a step that spends a card ('card', card id or Hidden, currency)."""
    return (type(o) is tuple and len(o) >= 3 and o[0] == "card"
            and (isinstance(o[1], Hidden) if hidden else type(o[1]) is int))


def observed_decision(game: Game, d: Decision, seat: int) -> Decision:
    """`d` as `seat` sees it: a card option it cannot see becomes HIDDEN, labelled by its zone, and a prompt
    that names such a card names it no more."""
    vis = visibility_for(game.pack)
    if not vis.hides:
        return d
    st = game.state
    prompt = d.prompt
    if d.kind == "card":
        options = list(d.options)
        masked = False
        for i, o in enumerate(options):
            if o is not None and not vis.seen_by(st, o, seat):
                c = st.cards[o]
                options[i] = Hidden(c.zone, c.seat)
                masked = True
        if not masked:
            return d
        vm = game.vm

        def labels() -> list[str]:
            return [hidden_label(game.pack, st, o.zone, o.seat, seat) if isinstance(o, Hidden)
                    else vm.label(o) if o is not None else raw[i] for i, o in enumerate(options)]

        raw = d.labels
        return Decision(d.seat, d.kind, prompt, options, labels)
    if d.kind == "option" and any(_card_step(o) for o in d.options):
        # a payment's steps name the cards that may pay ('card', card, currency): a hidden one is masked
        options = list(d.options)
        masked = False
        for i, o in enumerate(options):
            if _card_step(o) and not vis.seen_by(st, o[1], seat):
                c = st.cards[o[1]]
                options[i] = (o[0], Hidden(c.zone, c.seat), *o[2:])
                masked = True
        if masked:
            raw_labels = d.labels

            def step_labels() -> list[str]:
                return [f"{hidden_label(game.pack, st, o[1].zone, o[1].seat, seat)} as {o[2]}"
                        if _card_step(o, hidden=True) else raw_labels[i] for i, o in enumerate(options)]

            return Decision(d.seat, d.kind, prompt, options, step_labels)
        return d
    if d.kind == "cell" and game.vm.frames:
        it = game.vm.frames[-1].it
        if isinstance(it, int) and not vis.seen_by(st, it, seat):
            c = st.cards[it]
            name = game.pack.cards[c.defn].name
            if prompt.endswith(name):
                prompt = prompt[: -len(name)] + hidden_label(game.pack, st, c.zone, c.seat, seat)
                return Decision(d.seat, d.kind, prompt, d.options, d.labels)
    return d


def _decision_table(d: Decision | None) -> dict | None:
    if d is None:
        return None
    return {"seat": d.seat, "kind": d.kind, "prompt": d.prompt, "labels": list(d.labels),
            "options": [repr(o) if isinstance(o, Hidden) else o for o in d.options]}


def observe(view: Any, decision: Decision | None = None) -> Observation:
    """The observation an agent works from: `view` is one already, or a game (callers that still hand agents
    the game), observed by the seat of `decision`."""
    if isinstance(view, Observation):
        return view
    seat = decision.seat if decision is not None else view.pending.seat
    return Observation(view, seat)
