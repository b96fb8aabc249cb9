"""Who sees which card: the zones' declared visibility, and what each seat has seen.

A zone declares in rules.yaml who may look at its cards (`visible:`):

- `everyone` (the default): the cards are face up on the table;
- `owner`: the owner of the zone sees them, the others see how many (a hand, a draft);
- `count`: nobody sees them, everyone sees how many (a deck, a face-down compost pile);
- `top`: everyone sees the top card only, and how many (a discard pile face up in a stack);
- `nobody`: nobody sees them nor how many (the box: cards out of the game).

The older `hidden: true` reads as `owner` for a hand, row, slot or board and as `count` for a pile.
A face-down card in a zone everyone sees is seen by the zone's owner only.

Besides what lies face up, a seat remembers: a card it saw and then watched go into a zone it
cannot see (the card it passed to its neighbour, the discard pile shuffled into the deck) stays
known to it — it knows the card is there, not where in a pile. A card that enters an in-play or
`played` zone has been played, and is known to everyone from then on, as is a card a program
reveals (`reveal`). Knowledge is lost when a seat cannot tell which card moved: a card taken from
a zone it cannot see into another one it cannot see (the opponent's choice from their hand, a
draw from the deck) makes every card of that zone unknown to it again.

The VM calls `Visibility.moved` on every move (before the card leaves); what seats know lives in
`GameState.known` (card id -> bit mask of seats), so a clone of the state carries it.
"""

from __future__ import annotations

from cardsmith.bytecode import CompiledPack

from .state import Card, GameState

MODES = ("everyone", "owner", "count", "top", "nobody")


def zone_mode(decl: dict) -> str:
    """A zone's visibility, from `visible:` or the older `hidden:` flag."""
    mode = decl.get("visible")
    if mode is not None:
        return mode
    if decl.get("hidden"):
        return "count" if decl.get("kind") == "pile" else "owner"
    return "everyone"


class Visibility:
    """A pack's visibility tables, shared by every game of the pack (see `visibility_for`)."""

    def __init__(self, pack: CompiledPack) -> None:
        self.pack = pack
        self.modes: dict[str, str] = {z: zone_mode(d) for z, d in pack.zones.items()}
        # a card that enters one of these has been played: everybody has seen it
        self.reveals = frozenset(z for z, d in pack.zones.items() if d.get("in-play") or d.get("played"))
        self.hides = any(m != "everyone" for m in self.modes.values())
        self.backs: list[tuple] = [self._back(c) for c in pack.cards]

    def _back(self, card) -> tuple:
        """What a card's back shows: cards of types that start in the same zone share a back, unless the type
        declares `back: NAME`, a stat or trait printed on the back too (Living Forest's animal levels)."""
        decl = self.pack.card_types.get(card.type or "", {})
        key: tuple = (decl.get("start") or card.type or "",)
        name = decl.get("back")
        if name is not None:
            key += (card.stats.get(name, self.pack.stats.get(name, 0)) if name in self.pack.stats
                    else tuple(sorted(card.traits.get(name, ()))),)
        return key

    def everyone(self, st: GameState) -> int:
        return (1 << st.seats) - 1

    def direct(self, st: GameState, card: Card, zone: str, seat: int, top: bool, face_down: bool) -> int:
        """The seats that see the face of a card lying in (zone, seat) (seat: the zone's owner, or SHARED),
        on top of it or not, face down or not, by the zone's declaration alone (no memory)."""
        mode = self.modes[zone]
        if mode == "everyone":
            if face_down:
                return 1 << seat if seat >= 0 else 0
            return self.everyone(st)
        if mode == "owner":
            return 1 << seat if seat >= 0 else 0
        if mode == "top":
            return self.everyone(st) if top and not face_down else 0
        return 0  # count, nobody

    def sees(self, st: GameState, cid: int) -> int:
        """The seats that know card `cid` where it is now: they see its face, or remember it."""
        card = st.cards[cid]
        zone = st.zones[(card.zone, card.seat)]
        top = bool(zone) and zone[-1] == cid
        return self.direct(st, card, card.zone, card.seat, top, card.face_down) | st.known.get(cid, 0)

    def seen_by(self, st: GameState, cid: int, seat: int) -> bool:
        return bool(self.sees(st, cid) >> seat & 1)

    def moved(self, st: GameState, card: Card, zname: str, seat: int, end: str | None, pos: int,
              face: str | None, whole: bool = False) -> None:
        """Update what seats know as `card` moves to (zname, seat); called before the move. `whole`: the move
        takes every card of its zone ('move all'), so nobody needs to see which card it is to follow it."""
        known = st.known
        src = st.zones[(card.zone, card.seat)]
        was_top = card.pos < 0 and bool(src) and src[-1] == card.id
        saw = self.direct(st, card, card.zone, card.seat, was_top, card.face_down)
        face_down = card.face_down if face is None else face == "down"
        dst = st.zones[(zname, seat)]
        lands_on_top = pos < 0 and end != "bottom"
        if lands_on_top and dst and self.modes[zname] == "top" and dst[-1] is not None:
            known[dst[-1]] = self.everyone(st)  # the card it covers was in sight: everybody remembers it
        sees_after = self.direct(st, card, zname, seat, lands_on_top, face_down)
        if zname in self.reveals:
            known[card.id] = self.everyone(st)
            return
        blind = 0 if whole else self.everyone(st) & ~saw & ~sees_after  # seats that cannot tell which card went
        if blind and known:
            # any card of the source may be the one that went: none is known there to those seats any more (the
            # source walked as it is: no set of it made at every move, a deck's hundred cards at every draw)
            for cid in src:
                k = known.get(cid)
                if k is not None and k & blind:
                    k &= ~blind
                    if k:
                        known[cid] = k
                    else:
                        del known[cid]
        k = (known.get(card.id, 0) & ~blind) | saw
        if k:
            known[card.id] = k
        elif card.id in known:
            del known[card.id]

    def reveal(self, st: GameState, cid: int) -> None:
        """A program showed the card to everybody (`reveal`)."""
        st.known[cid] = self.everyone(st)


_CACHE: dict[int, Visibility] = {}


def visibility_for(pack: CompiledPack) -> Visibility:
    """The pack's tables, made once per pack."""
    v = _CACHE.get(id(pack))
    if v is None or v.pack is not pack:
        v = _CACHE[id(pack)] = Visibility(pack)
    return v
