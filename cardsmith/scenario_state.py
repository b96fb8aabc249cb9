"""The starting state a scenario describes, built from scratch: only the cards it names exist.

Every problem of the description (a name the pack does not declare, a player's zone described under
`shared`, a board position off the board, a copy that is not there) is a `SetupError` naming the path of
the offending value in the scenario file, so the runner reports it at its line and column.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cardsmith.bytecode import CompiledPack
from cardsmith.bytecode.inputs import printable
from cardsmith.compiler.diagnostics import did_you_mean
from cardsmith.runtime.geometry import geometry
from cardsmith.runtime.params import MAX_VALUE
from cardsmith.runtime.state import SHARED, Card, GameState, automa_seats
from cardsmith.runtime.vm import linker_for


class SetupError(Exception):
    """A scenario's description cannot be used: `path` leads to the entry at fault (reported at its key, a name,
    unless `value`: then at its value), `code` is its diagnostic."""

    def __init__(self, message: str, path: tuple, code: str = "E160", hint: str | None = None,
                 value: bool = False) -> None:
        super().__init__(message)
        self.path = path
        self.code = code
        self.hint = hint
        self.value = value


@dataclass
class Roster:
    """The cards the state made, per part of the description (a seat, or SHARED), in the order it lists
    them: what `ID#N` (the N-th copy of ID there) names, in the state and in every expectation."""

    made: dict[int, list[int]] = field(default_factory=dict)  # section -> card ids in the order listed

    def copy_of(self, st: GameState, pack: CompiledPack, section: int, card_id: str, n: int) -> Card | None:
        copies = [c for c in self.made.get(section, []) if pack.cards[st.cards[c].defn].id == card_id]
        return st.cards[copies[n - 1]] if 0 < n <= len(copies) else None

    def count(self, st: GameState, pack: CompiledPack, section: int, card_id: str) -> int:
        return sum(1 for c in self.made.get(section, []) if pack.cards[st.cards[c].defn].id == card_id)


def automa_in_game(pack: CompiledPack, n: int) -> list[dict]:
    """The automa seats of a game of `n` players: seats n, n + 1, ..."""
    return automa_seats(pack, n)


def split_ref(ref: str) -> tuple[str, int | None]:
    """'oak#2' -> ('oak', 2); 'oak' -> ('oak', None). A '#' not followed by a number is part of no id."""
    base, sep, n = ref.rpartition("#")
    if sep and n.isdigit() and len(n) <= 6:
        return base, int(n)
    return ref, None


def owner_of(pack: CompiledPack, zname: str) -> str:
    return pack.zones[zname].get("owner", "player")


def section_label(pack: CompiledPack, n: int, seat: int) -> str:
    if seat == SHARED:
        return "shared"
    return f"player {seat}" if seat < n else f"automa {automa_in_game(pack, n)[seat - n]['id']}"


def described_seats(pack: CompiledPack, n: int, described: dict, key: str) -> list[tuple[int, dict, tuple]]:
    """(seat, entry, path) for each player, each automa seat (by name) and the shared part a scenario's
    state or expectation describes."""
    players = described.get("players") or []
    if len(players) > n:
        raise SetupError(f"{'the state' if key == 'state' else 'the expectation'} describes {len(players)} players "
                         f"but the scenario has {n}", (key, "players", n))
    out = [(seat, p, (key, "players", seat)) for seat, p in enumerate(players)]
    names = [a["id"] for a in automa_in_game(pack, n)]
    for name, p in (described.get("automa") or {}).items():
        if name not in names:
            raise SetupError(f"the pack has no automa seat '{printable(name)}'", (key, "automa", name), "E101",
                             did_you_mean(name, names))
        out.append((n + names.index(name), p, (key, "automa", name)))
    out.append((SHARED, described.get("shared") or {}, (key, "shared")))
    return out


def build_state(pack: CompiledPack, n: int, sc: dict) -> tuple[GameState, Roster]:
    """A state holding exactly the cards the scenario names, where it puts them, and who made which."""
    st = GameState(n, len(automa_in_game(pack, n)))
    st.rng = random.Random(sc.get("seed", 0))
    st.params = {**pack.params, **(sc.get("params") or {})}
    for seat in range(st.seats):
        st.counters[seat] = {k: d.get("start", 0) for k, d in pack.resources.items()}
    st.globals = {k: d.get("start", 0) for k, d in pack.counters.items()}
    for zname, z in pack.zones.items():
        seats = [SHARED] if z.get("owner", "player") == "shared" else list(range(st.seats))
        for seat in seats:
            geo = geometry(z)
            st.zones[(zname, seat)] = [None] * geo.size if geo else []
    for key in ("active", "first"):
        seat = sc.get(key, 0)
        if seat >= n:
            raise SetupError(f"{'the active player' if key == 'active' else 'the first player'} {seat} does not "
                             f"exist with {n} players (seats count from 0)", (key,), value=True)
    st.active = sc.get("active", 0)
    st.first = sc.get("first", 0)
    index = {c.id: i for i, c in enumerate(pack.cards)}
    roster = Roster()
    setup = sc.get("state") or {}
    linker = linker_for(pack)
    described = described_seats(pack, n, setup, "state")
    for seat, p, base in described:
        store = st.counters[seat] if seat != SHARED else st.globals
        decls = pack.resources if seat != SHARED else pack.counters
        for k, v in (p.get("counters") or {}).items():
            if k not in decls:
                raise SetupError(f"unknown {'resource' if seat != SHARED else 'shared counter'} '{printable(k)}'",
                                 (*base, "counters", k), "E101", _counter_hint(pack, k, seat))
            if not -MAX_VALUE <= v <= MAX_VALUE:
                raise SetupError(f"a counter stays within ±{MAX_VALUE:.0e} in a game", (*base, "counters", k))
            store[k] = v
        for zname, content in (p.get("zones") or {}).items():
            check_zone_name(pack, zname, seat, (*base, "zones", zname))
            _fill_zone(st, pack, index, roster, zname, seat, content, (*base, "zones", zname))
    # pieces and flags name cards the zones hold: every zone is filled first
    for seat, p, base in described:
        for cref, value in (p.get("pieces") or {}).items():
            card = find_card(st, pack, roster, seat, cref, (*base, "pieces", cref), from_state=True)
            for piece, amount in value.items():
                set_pieces(pack, n, card, piece, amount, (*base, "pieces", cref, piece))
        for cref, flags in (p.get("flags") or {}).items():
            card = find_card(st, pack, roster, seat, cref, (*base, "flags", cref), from_state=True)
            for i, flag in enumerate(flags):
                check_flag(pack, flag, (*base, "flags", cref, i))
                card.flags.add(flag)
    for card in st.cards:
        if card.zone in linker.in_play:
            for lst, table in ((st.live_triggers, linker.live_cards), (st.live_modifiers, linker.modifiers)):
                if table[card.defn]:
                    lst.append(card.id)
    return st, roster


def _counter_hint(pack: CompiledPack, name: str, seat: int) -> str | None:
    own, other = (pack.resources, pack.counters) if seat != SHARED else (pack.counters, pack.resources)
    if name in other:
        return (f"'{name}' is a shared counter: describe it under 'shared'" if seat != SHARED
                else f"'{name}' is a resource each player has: describe it under 'players'")
    return did_you_mean(name, own)


def check_zone_name(pack: CompiledPack, zname: str, seat: int, path: tuple) -> None:
    """A zone the pack declares, described where it lives: a shared zone under `shared`, a player's under a
    player (or an automa seat)."""
    if zname not in pack.zones:
        raise SetupError(f"unknown zone '{printable(zname)}'", path, "E101", did_you_mean(zname, pack.zones))
    shared = owner_of(pack, zname) == "shared"
    if shared and seat != SHARED:
        raise SetupError(f"zone '{zname}' is shared: describe it under 'shared'", path)
    if not shared and seat == SHARED:
        raise SetupError(f"zone '{zname}' belongs to each player: describe it under 'players' (a list by seat)",
                         path)


def check_piece(pack: CompiledPack, piece: str, path: tuple) -> None:
    if piece not in pack.pieces:
        raise SetupError(f"unknown piece '{printable(piece)}'", path, "E101", did_you_mean(piece, pack.pieces))


def check_flag(pack: CompiledPack, flag: str, path: tuple) -> None:
    if flag not in pack.flags:
        raise SetupError(f"unknown flag '{printable(flag)}'", path, "E101", did_you_mean(flag, pack.flags))


def check_owner(pack: CompiledPack, n: int, owner: int, path: tuple) -> None:
    automa = automa_in_game(pack, n)
    if not 0 <= owner < n + len(automa):
        raise SetupError(f"owner {owner} is not a seat of this scenario (players 0 to {n - 1}"
                         f"{', then the automa seats' if automa else ''})", path, value=True)


def set_pieces(pack: CompiledPack, n: int, card: Card, piece: str, amount, path: tuple) -> None:
    """`amount` is a number, or {count: N, owner: SEAT} for pieces that belong to a seat (`place ... of yours`)."""
    check_piece(pack, piece, path)
    count = amount if isinstance(amount, int) else amount.get("count", 1)
    if count > MAX_VALUE:
        raise SetupError(f"pieces stay within {MAX_VALUE:.0e} in a game", path)
    card.pieces[piece] = count
    if isinstance(amount, dict) and "owner" in amount:
        check_owner(pack, n, amount["owner"], (*path, "owner"))
        card.pieces[f"{piece}@{amount['owner']}"] = count


def find_card(st: GameState, pack: CompiledPack, roster: Roster, seat: int, cref: str, path: tuple,
              from_state: bool) -> Card:
    """The card `cref` names in a part of the description: `ID#N`, the N-th copy of ID the state lists there
    (wherever it is now); `ID`, the first card of that id in that part's zones (as the state made them, or,
    in an expectation, as they are now)."""
    card_id, nth = split_ref(cref)
    if not any(c.id == card_id for c in pack.cards):
        raise SetupError(f"the pack has no card '{printable(card_id)}'", path, "E101",
                         did_you_mean(card_id, [c.id for c in pack.cards]))
    where = section_label(pack, st.n, seat)
    if nth is not None:
        card = roster.copy_of(st, pack, seat, card_id, nth)
        if card is None:
            have = roster.count(st, pack, seat, card_id)
            raise SetupError(f"the state lists {have} cop{'y' if have == 1 else 'ies'} of '{card_id}' under "
                             f"{where}, so there is no '{printable(cref)}'", path,
                             hint="copies are counted from 1, zone by zone in the order the state lists them")
        return card
    if from_state:
        card = roster.copy_of(st, pack, seat, card_id, 1)
    else:
        card = next((c for c in st.cards if c.seat == seat and pack.cards[c.defn].id == card_id), None)
    if card is None:
        raise SetupError(f"no card '{printable(card_id)}' in the zones of {where}", path)
    return card


def _fill_zone(st: GameState, pack: CompiledPack, index: dict, roster: Roster, zname: str, seat: int, content,
               path: tuple) -> None:
    z = pack.zones[zname]
    zseat = SHARED if owner_of(pack, zname) == "shared" else seat

    def new(card_id: str, where: tuple) -> Card:
        if card_id not in index:
            raise SetupError(f"the pack has no card '{printable(card_id)}'", where, "E101",
                             did_you_mean(card_id, index), value=True)
        c = Card(len(st.cards), index[card_id], zname, zseat)
        st.cards.append(c)
        roster.made.setdefault(seat, []).append(c.id)
        return c

    zone = st.zones[(zname, zseat)]
    geo = geometry(z)
    if geo is not None:
        if not isinstance(content, dict):
            raise SetupError("a board zone is described as 'row,col': card-id", path, value=True)
        places = {}
        for key in content:
            places[key] = board_key(key)
            if places[key] is None:
                raise SetupError(f"board position {printable(repr(key))} should look like '1,2' (row, column)",
                                 (*path, key))
        shift = _growing_shift(geo, places.values())
        for key, card_id in content.items():
            r, c = places[key]
            cell = geo.cell(r + shift[0], c + shift[1])
            if cell is None:
                raise SetupError(f"position '{key}' is not on the board of zone '{zname}'", (*path, key))
            card = new(card_id, (*path, key))
            card.pos = cell
            zone[card.pos] = card.id
        return
    if not isinstance(content, list):
        raise SetupError("list the card ids in this zone", path, value=True)
    cards = [new(cid, (*path, i)).id for i, cid in enumerate(content)]
    if z["kind"] == "pile":
        cards.reverse()  # listed top first; the top of a pile is the end of its list
    zone.extend(cards)


def board_key(key: str) -> tuple[int, int] | None:
    """'row,col' as two numbers (1-based), or None when the key is not of that form."""
    parts = key.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and len(p.strip()) <= 6 for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def _growing_shift(geo, places) -> tuple[int, int]:
    """Where a growing grid's described rows and columns (counted from the top-left corner of its cards)
    lie in its frame: centred, so that the span can still grow to its limit on every side."""
    if geo.limit is None or not places:
        return 0, 0
    rows = [r for r, _ in places]
    cols = [c for _, c in places]
    frame_h, frame_w = len(geo.rows), geo.width
    return ((frame_h - (max(rows) - min(rows) + 1)) // 2 - (min(rows) - 1),
            (frame_w - (max(cols) - min(cols) + 1)) // 2 - (min(cols) - 1))
