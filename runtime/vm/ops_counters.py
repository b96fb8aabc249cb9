"""Counters of players, pieces and flags on cards, and card faces. Gains, losses, costs and scores are defined in
inline.py.

Each handler takes (vm, frame, instruction) and returns None to go on, CHANGED after pushing or
popping frames, or SUSPEND when it needs a decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardsmith.runtime.state import Card

if TYPE_CHECKING:
    from .machine import VM

from .core import CHANGED, MAX_VALUE, Query
from .trial import short


def op_PLAYER_COUNTER(vm, f, ins):
    seat = f.stack.pop()
    f.stack.append(vm.state.counters[seat].get(ins[1], 0))


def room_for(vm: VM, card: Card, piece: str, seat: int) -> int | None:
    cap = vm.linker.capacity[piece]
    if cap is None:
        return None
    return vm.stat(card, cap, seat) - card.pieces.get(piece, 0)


def op_ADD_PIECES(vm, f, ins):
    n = f.stack.pop()
    piece, owned = ins[1], ins[2]
    cid = f.it
    if cid is None or n <= 0:
        return None
    card = vm.state.writable(cid)
    room = room_for(vm, card, piece, f.you)
    if room is not None and room < n:
        if vm.trial is not None:
            short(vm, f, "place", piece, card.seat)
        n = room
    if n <= 0:
        return None
    if card.pieces.get(piece, 0) + n > MAX_VALUE:
        raise vm.fault(f"more than {MAX_VALUE:.0e} {piece} on one card; no game counts that high")
    card.pieces[piece] = card.pieces.get(piece, 0) + n
    if owned:
        key = f"{piece}@{f.you}"
        card.pieces[key] = card.pieces.get(key, 0) + n
    if vm.log is not None:
        vm.log.append(("place", f.you, piece, n, vm.pack.cards[card.defn].id))
    result = None
    if room is not None and n == room and piece in vm.linker.when_full:
        vm.push(vm.linker.when_full[piece], f.you, cid, cid, f.step, f.depth)
        result = CHANGED
    if vm.state.live_triggers or vm.linker.rule_claims:
        result = vm.fire(f, "place", f.you, cid, piece) or result
    return result


def op_TAKE_PIECES(vm, f, ins):
    n = f.stack.pop()
    piece, owned = ins[1], ins[2]
    cid = f.it
    if cid is None or n <= 0:
        return None
    card = vm.state.writable(cid)
    have = card.pieces.get(piece, 0)
    stopped = piece in vm.linker.prevent_names and vm.prevented(f, piece, card.seat, card)
    if vm.trial is not None and (have < n or stopped):
        short(vm, f, "remove", piece, card.seat)
    n = min(n, have)
    if n <= 0 or stopped:
        return None
    card.pieces[piece] -= n
    if owned:
        key = f"{piece}@{f.you}"
        card.pieces[key] = max(card.pieces.get(key, 0) - n, 0)
    if vm.log is not None:
        vm.log.append(("remove", f.you, piece, n, vm.pack.cards[card.defn].id))
    if vm.state.live_triggers or vm.linker.rule_claims:
        return vm.fire(f, "remove", f.you, cid, piece)
    return None


def op_CAN_REMOVE(vm, f, ins):
    piece, target = ins[1], ins[2]
    cards = vm.state.cards
    guard = piece in vm.linker.prevent_names
    if isinstance(target, Query):
        have = sum(cards[c].pieces.get(piece, 0) for c in vm.query(target, f)
                   if not (guard and vm.prevented(f, piece, cards[c].seat, cards[c])))
    else:
        cid = f.it if "it" in target else f.vars[target["local"]] if "local" in target else f.this
        have = cards[cid].pieces.get(piece, 0) if cid is not None else 0
        if have and guard and vm.prevented(f, piece, cards[cid].seat, cards[cid]):
            have = 0
    f.stack[-1] = have >= f.stack[-1]


def op_CAN_MARK(vm, f, ins):
    flag, on, target = ins[1], ins[2], ins[3]
    cards = vm.state.cards
    if isinstance(target, Query):
        candidates = vm.query(target, f)
    else:
        cid = f.it if "it" in target else f.vars[target["local"]] if "local" in target else f.this
        candidates = [cid] if cid is not None else []
    f.stack.append(any((flag in cards[c].flags) != on for c in candidates))


def op_FLIP(vm, f, ins):
    cid = f.stack.pop()
    if cid is None:
        return
    card = vm.state.writable(cid)
    back = vm.linker.back[card.defn]
    if back is None:
        return
    live = card.zone in vm.linker.in_play
    if live:
        vm._relive(card, False)
    card.defn = back
    if live:
        vm._relive(card, True)
    if vm.log is not None:
        vm.log.append(("flip", card.id, vm.pack.cards[back].id))
    return vm.changed(f, card.zone) if vm.linker.claim_names else None
