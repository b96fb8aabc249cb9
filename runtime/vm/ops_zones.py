"""Zones and movement: taking a card from a source, putting it somewhere, revealing, shuffling, and where a card lies.

Each handler takes (vm, frame, instruction) and returns None to go on, CHANGED after pushing or
popping frames, or SUSPEND when it needs a decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .machine import VM

from .core import CHANGED, SUSPEND, Frame, owner
from .trial import short


def _source_candidates(vm: VM, f: Frame, src: tuple) -> tuple[list[int], bool, tuple[str, int]]:
    """The cards a source offers and whether the player chooses among them."""
    zname, mode, end, pred, take_all = src
    seat = owner(vm, mode, f)
    zone = vm.state.zones[(zname, seat)]
    kind = vm.pack.zones[zname]["kind"]
    cards = vm.state.cards
    if take_all:
        found = [c for c in zone if c is not None and (pred is None or pred(vm, f, cards[c]))]
        if kind == "pile":  # one at a time from the end named ('move all card from bottom of deck')
            return found[:1] if end == "bottom" else found[-1:], False, (zname, seat)
        return found[:1], False, (zname, seat)
    if kind == "pile" and pred is None:
        if not zone:
            return [], False, (zname, seat)
        return [zone[0] if end == "bottom" else zone[-1]], False, (zname, seat)
    found = [c for c in zone if c is not None and (pred is None or pred(vm, f, cards[c]))]
    return found, True, (zname, seat)


def op_TAKE(vm, f, ins):
    src, optional = ins[1], ins[2]
    found, choose, key = vm.recall(f) or _source_candidates(vm, f, src)
    if not found:
        zname = key[0]
        if not any(c is not None for c in vm.state.zones[key]) and zname in vm.linker.on_empty \
                and f.refill != f.pc:
            # Refill (e.g. shuffle the discard into the deck), then take again.
            f.refill = f.pc
            f.pc -= 1
            vm.push(vm.linker.on_empty[zname], f.you, step=f.step, depth=f.depth)
            return CHANGED
        if vm.trial is not None and not optional and not src[4]:
            short(vm, f, "move", key[0], key[1])
        f.stack.append(False)
        return None
    if choose or optional:
        options = [*found, None] if optional else found
        a = vm.decide(f, "card", f"take a card from {key[0]}", options,
                      lambda: [vm.label(c) if c is not None else "stop" for c in options], memo=(found, choose, key))
        if a is None:
            return SUSPEND
        if options[a] is None:
            f.stack.append(False)
            return None
        f.it = options[a]
    else:
        f.it = found[0]
        if src[4] and src[3] is None and vm.vis is not None:
            vm.traced = f.it  # 'move all': every card goes, so a seat that knew them knows where they went
    f.refill = -1
    f.stack.append(True)
    return None


def op_CAN_TAKE(vm, f, ins):
    found, _, _ = _source_candidates(vm, f, ins[1])
    zname, mode, _, pred, _ = ins[1]
    if vm.pack.zones[zname]["kind"] == "pile" and pred is None:
        found = vm.zone_cards(zname, owner(vm, mode, f))
    f.stack[-1] = len(found) >= f.stack[-1]


def _legal_cells(vm: VM, zname: str, seat: int) -> list[int]:
    z = vm.pack.zones[zname]
    grid = vm.state.zones[(zname, seat)]
    free = [i for i, c in enumerate(grid) if c is None]
    geo = vm.linker.geo[zname]
    if z.get("placement", "anywhere") == "adjacent" and len(free) < len(grid):
        free = [i for i in free if any(grid[nb] is not None for nb in geo.neighbours[i])]
    if geo.limit is not None:  # a growing grid: the span of its cards stays within the limit
        free = [i for i in free if geo.fits(grid, i)]
    return free


def op_PUT(vm, f, ins):
    (zname, mode, end), face = ins[1], ins[2]
    cid = f.it
    if cid is None:
        return None
    seat = owner(vm, mode, f)
    z = vm.pack.zones[zname]
    geo = vm.linker.geo[zname]
    if geo is not None:
        cells = vm.recall(f) or _legal_cells(vm, zname, seat)
        if not cells:
            if vm.trial is not None:
                short(vm, f, "move", zname, seat)
            return None  # no legal place: the card stays where it is
        a = vm.decide(f, "cell", f"where to put {vm.pack.cards[vm.state.cards[cid].defn].name}", cells,
                      lambda: [geo.label_in(vm.state.zones[(zname, seat)], c) for c in cells], memo=cells)
        if a is None:
            return SUSPEND
        old = vm.state.cards[cid].zone
        vm.move(cid, zname, seat, pos=cells[a], face=face)
        return _moved(vm, f, old, zname)
    if z["kind"] == "slot" and vm.zone_cards(zname, seat):
        if vm.trial is not None:
            short(vm, f, "move", zname, seat)
        return None  # a slot holds one card
    old = vm.state.cards[cid].zone
    vm.move(cid, zname, seat, end=end, face=face)
    return _moved(vm, f, old, zname)


def _moved(vm: VM, f: Frame, old: str, new: str):
    """Claims that read either zone are checked after a move (nothing else listens to moves)."""
    if not vm.linker.claim_names:
        return None
    return vm.changed(f, new, old)


def op_PUT_CELL(vm, f, ins):
    (zname, mode, _), face = ins[1], ins[2]
    col = f.stack.pop()
    row = f.stack.pop()
    cid = f.it
    if cid is None:
        return None
    seat = owner(vm, mode, f)
    geo = vm.linker.geo[zname]
    # the checker allows boards only; a growing grid counts from the top-left corner of its cards' span
    cell = geo.absolute(vm.state.zones[(zname, seat)], row, col) if geo is not None else None
    # A cell that does not exist, is taken or breaks the board's placement rule: the card stays where it is.
    if cell is not None and cell in _legal_cells(vm, zname, seat):
        old = vm.state.cards[cid].zone
        vm.move(cid, zname, seat, pos=cell, face=face)
        return _moved(vm, f, old, zname)
    if vm.trial is not None:
        short(vm, f, "move", zname, seat)
    return None


def op_CAN_PUT(vm, f, ins):
    zname, mode, _ = ins[1]
    seat = owner(vm, mode, f)
    z = vm.pack.zones[zname]
    if vm.linker.geo[zname] is not None:
        f.stack.append(bool(_legal_cells(vm, zname, seat)))
    elif z["kind"] == "slot":
        f.stack.append(not vm.zone_cards(zname, seat))
    else:
        f.stack.append(True)


def op_SHUFFLE(vm, f, ins):
    zname, mode = ins[1]
    zone = vm.state.zones[(zname, owner(vm, mode, f))]
    vm.state.rng.shuffle(zone)


def op_REVEAL(vm, f, ins):
    n = f.stack.pop()
    zname, mode, end, _, _ = ins[1]
    zone = vm.zone_cards(zname, owner(vm, mode, f))
    if n <= 0 or not zone:
        return
    idx = n - 1
    if idx >= len(zone):
        f.it = None
    else:
        f.it = zone[idx] if end == "bottom" else zone[-1 - idx]
        if vm.vis is not None:
            vm.vis.reveal(vm.state, f.it)


def op_PLACE_OF(vm, f, ins):
    cid = f.stack[-1]
    if cid is None:
        f.stack[-1] = 0
        return
    card = vm.state.cards[cid]
    geo = vm.linker.geo.get(card.zone)
    if ins[1] == "position":
        if card.pos >= 0:
            f.stack[-1] = card.pos + 1
        else:
            zone = vm.state.zones[(card.zone, card.seat)]
            i = zone.index(cid)
            f.stack[-1] = (len(zone) - i) if vm.pack.zones[card.zone]["kind"] == "pile" else i + 1
        return
    if geo is None or card.pos < 0:
        f.stack[-1] = 0
        return
    r, c = geo.relative(vm.state.zones[(card.zone, card.seat)], card.pos)
    f.stack[-1] = r if ins[1] == "row" else c


def op_PASS_ZONES(vm, f, ins):
    """Every player's zone to the same zone of the left (right) neighbour, all at once, in its order: the cards are
    found first, then moved (a zone that receives cards has already given its own)."""
    zname, to = ins[1], ins[2]
    st = vm.state
    n = st.n
    step = 1 if to == "left" else -1
    given = [vm.zone_cards(zname, seat) for seat in range(n)]
    for seat, cards in enumerate(given):
        for cid in cards:
            vm.traced = cid  # the whole zone goes: who saw it follows it (visibility.py)
            vm.move(cid, zname, (seat + step) % n)
    return vm.changed(f, zname) if vm.linker.claim_names else None


def op_SWAP(vm, f, ins):
    """Two zones trade their cards, all at once, each keeping its order."""
    (za, ma), (zb, mb) = ins[1], ins[2]
    sa, sb = owner(vm, ma, f), owner(vm, mb, f)
    if (za, sa) == (zb, sb):
        return None
    first, second = vm.zone_cards(za, sa), vm.zone_cards(zb, sb)
    for cid in first:
        vm.traced = cid
        vm.move(cid, zb, sb)
    for cid in second:
        vm.traced = cid
        vm.move(cid, za, sa)
    return vm.changed(f, za, zb) if vm.linker.claim_names else None
