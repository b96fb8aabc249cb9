"""What a scenario expects, checked in two passes: its names before the game runs (a misspelt counter,
zone, piece, flag, card or scoring step is an error at its line and column, never compared with 0), then
the values after the program (and at each checkpoint), every difference reported."""

from __future__ import annotations

from cardsmith.bytecode import CompiledPack
from cardsmith.bytecode.inputs import printable
from cardsmith.compiler.diagnostics import did_you_mean
from cardsmith.runtime.game import Game
from cardsmith.runtime.geometry import geometry
from cardsmith.runtime.state import SHARED, GameState

from .scenario_state import (
    Roster,
    SetupError,
    _counter_hint,
    board_key,
    check_flag,
    check_owner,
    check_piece,
    check_zone_name,
    described_seats,
    find_card,
    section_label,
    split_ref,
)

ZONE_CHECKS = {"count", "contains", "excludes"}


def check_names(pack: CompiledPack, st: GameState, roster: Roster, expect: dict, key: tuple) -> list[SetupError]:
    """Every name of an expectation (`key`: its path in the scenario) the pack does not declare, every card
    it names that the state did not make, each as a located error."""
    out: list[SetupError] = []
    ids = [c.id for c in pack.cards]
    try:
        described = described_seats(pack, st.n, expect, key[-1])
    except SetupError as e:
        return [SetupError(str(e), (*key[:-1], *e.path), e.code, e.hint)]
    steps = [s["id"] for s in pack.scoring]
    for seat, p, base in described:
        base = (*key[:-1], *base)

        def attempt(fn, *args, out=out) -> None:
            try:
                fn(*args)
            except SetupError as e:
                out.append(e)

        decls = pack.resources if seat != SHARED else pack.counters
        for k in p.get("counters") or {}:
            if k not in decls:
                out.append(SetupError(f"unknown {'resource' if seat != SHARED else 'shared counter'} "
                                      f"'{printable(k)}'", (*base, "counters", k), "E101",
                                      _counter_hint(pack, k, seat)))
        for zname, want in (p.get("zones") or {}).items():
            zpath = (*base, "zones", zname)
            try:
                check_zone_name(pack, zname, seat, zpath)
            except SetupError as e:
                out.append(e)
                continue
            lists = [((), want)] if isinstance(want, list) else \
                [((part,), want.get(part, [])) for part in ("contains", "excludes")] if set(want) & ZONE_CHECKS \
                else []
            for sub, listed in lists:
                out += [SetupError(f"the pack has no card '{printable(cid)}'", (*zpath, *sub, i), "E101",
                                   did_you_mean(cid, ids), value=True)
                        for i, cid in enumerate(listed) if cid not in ids]
            if isinstance(want, dict) and not set(want) & ZONE_CHECKS:
                if geometry(pack.zones[zname]) is None:
                    out.append(SetupError(f"zone '{zname}' is not a board: expect a list of card ids or "
                                          "{count, contains, excludes}", zpath, value=True))
                    continue
                for pos, cid in want.items():
                    if board_key(pos) is None:
                        out.append(SetupError(f"board position {printable(repr(pos))} should look like '1,2' "
                                              "(row, column)", (*zpath, pos)))
                    elif cid not in ids:
                        out.append(SetupError(f"the pack has no card '{printable(cid)}'", (*zpath, pos), "E101",
                                              did_you_mean(cid, ids), value=True))
        for cref, pieces in (p.get("pieces") or {}).items():
            cpath = (*base, "pieces", cref)
            attempt(_check_ref, pack, st, roster, seat, cref, cpath)
            for piece, amount in pieces.items():
                attempt(check_piece, pack, piece, (*cpath, piece))
                if isinstance(amount, dict) and "owner" in amount:
                    attempt(check_owner, pack, st.n, amount["owner"], (*cpath, piece, "owner"))
        for cref, flags in (p.get("flags") or {}).items():
            fpath = (*base, "flags", cref)
            attempt(_check_ref, pack, st, roster, seat, cref, fpath)
            for i, flag in enumerate(flags):
                attempt(check_flag, pack, flag, (*fpath, i))
        for step in p.get("score-steps") or {}:
            if step not in steps:
                out.append(SetupError(f"unknown scoring step '{printable(step)}'", (*base, "score-steps", step),
                                      "E101", did_you_mean(step, steps) or f"steps: {', '.join(steps) or 'none'}"))
    seats = st.seats
    for field in ("winners", "first"):
        values = expect.get(field)
        for i, seat in enumerate(values if isinstance(values, list) else [] if values is None else [values]):
            if not 0 <= seat < (seats if field == "winners" else st.n):
                out.append(SetupError(f"seat {seat} is not a seat of this scenario", (*key, field, i)
                                      if isinstance(values, list) else (*key, field), value=True))
    return out


def _check_ref(pack: CompiledPack, st: GameState, roster: Roster, seat: int, cref: str, path: tuple) -> None:
    card_id, nth = split_ref(cref)
    if nth is not None:
        find_card(st, pack, roster, seat, cref, path, from_state=True)
    elif not any(c.id == card_id for c in pack.cards):
        raise SetupError(f"the pack has no card '{printable(card_id)}'", path, "E101",
                         did_you_mean(card_id, [c.id for c in pack.cards]))


def compare(game: Game, roster: Roster, expect: dict) -> list[str]:
    """Every difference between the game's state and an expectation whose names were checked."""
    pack, st = game.pack, game.state
    problems: list[str] = []
    for seat, p, _ in described_seats(pack, st.n, expect, "expect"):
        who = section_label(pack, st.n, seat)
        store = st.counters[seat] if seat != SHARED else st.globals
        for k, v in (p.get("counters") or {}).items():
            if store.get(k, 0) != v:
                problems.append(f"{who} {k}: expected {v}, got {store.get(k, 0)}")
        for zname, want in (p.get("zones") or {}).items():
            problems += _zone_problems(game, who, zname, seat, want)
        for cref, pieces in (p.get("pieces") or {}).items():
            try:
                card = find_card(st, pack, roster, seat, cref, (), from_state=False)
            except SetupError:
                problems.append(f"{who}: no card '{cref}' to check pieces on")
                continue
            for piece, amount in pieces.items():
                count = amount if isinstance(amount, int) else amount.get("count")
                if count is not None and card.pieces.get(piece, 0) != count:
                    problems.append(f"{who} {cref} {piece}: expected {count}, got {card.pieces.get(piece, 0)}")
                if isinstance(amount, dict) and "owner" in amount:
                    owners = _owners(card.pieces, piece)
                    want = {amount["owner"]: count if count is not None else card.pieces.get(piece, 0)}
                    if owners != want:
                        problems.append(f"{who} {cref} {piece}: expected owned by {_seat_words(pack, st.n, want)}, "
                                        f"got {_seat_words(pack, st.n, owners) or 'nobody'}")
        for cref, flags in (p.get("flags") or {}).items():
            try:
                card = find_card(st, pack, roster, seat, cref, (), from_state=False)
            except SetupError:
                card = None
            if card is None or set(flags) != card.flags:
                problems.append(f"{who} {cref} flags: expected {sorted(flags)}, got "
                                f"{sorted(card.flags) if card else 'no such card'}")
        if "score" in p and seat != SHARED:
            got = sum(st.scores[seat].values())
            if got != p["score"]:
                problems.append(f"{who} score: expected {p['score']}, got {got} ({st.scores[seat]})")
        for step, v in (p.get("score-steps") or {}).items():
            if st.scores[seat].get(step, 0) != v:
                problems.append(f"{who} score step {step}: expected {v}, got {st.scores[seat].get(step, 0)}")
    if "first" in expect and st.first != expect["first"]:
        problems.append(f"first player: expected player {expect['first']}, got player {st.first}")
    if "active" in expect and st.active != expect["active"]:
        problems.append(f"active player: expected player {expect['active']}, got player {st.active}")
    return problems


def _owners(pieces: dict[str, int], piece: str) -> dict[int, int]:
    prefix = f"{piece}@"
    return {int(k[len(prefix):]): v for k, v in pieces.items() if k.startswith(prefix) and v}


def _seat_words(pack: CompiledPack, n: int, owners: dict[int, int]) -> str:
    return ", ".join(f"{section_label(pack, n, s)} ({v})" for s, v in sorted(owners.items()))


def _zone_ids(game: Game, zname: str, seat: int) -> list[str]:
    pack = game.pack
    cards = [c for c in game.state.zones[(zname, seat)] if c is not None]
    if pack.zones[zname]["kind"] == "pile":
        cards = list(reversed(cards))
    return [pack.cards[game.state.cards[c].defn].id for c in cards]


def _zone_problems(game: Game, who: str, zname: str, seat: int, want) -> list[str]:
    pack, st = game.pack, game.state
    zseat = SHARED if pack.zones[zname].get("owner", "player") == "shared" else seat
    geo = geometry(pack.zones[zname])
    if geo is not None and isinstance(want, dict) and not set(want) & ZONE_CHECKS:
        out = []
        grid = st.zones[(zname, zseat)]
        for key, cid in want.items():
            r, c = board_key(key)  # type: ignore[misc]  # checked by check_names
            # a growing grid counts from the top-left corner of its cards' span
            cell = geo.absolute(grid, r, c) if any(x is not None for x in grid) else None
            got = grid[cell] if cell is not None else None
            got_id = pack.cards[st.cards[got].defn].id if got is not None else None
            if got_id != cid:
                out.append(f"{who} {zname} at {key}: expected {cid}, got {got_id or 'nothing'}")
        return out
    have = _zone_ids(game, zname, zseat)
    if isinstance(want, list):
        return [f"{who} {zname}: expected {want}, got {have}"] if have != want else []
    out = []
    if "count" in want and len(have) != want["count"]:
        out.append(f"{who} {zname}: expected {want['count']} cards, got {len(have)} ({have})")
    out += [f"{who} {zname}: expected to contain {cid}, has {have}" for cid in want.get("contains", [])
            if cid not in have]
    out += [f"{who} {zname}: expected not to contain {cid}" for cid in want.get("excludes", []) if cid in have]
    return out
