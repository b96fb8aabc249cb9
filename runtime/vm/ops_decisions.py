"""Decisions: the opcodes that may ask an agent. Each computes its options, asks through `VM.decide` (suspending when a
real choice is left) and changes nothing before the answer.

Each handler takes (vm, frame, instruction) and returns None to go on, CHANGED after pushing or
popping frames, or SUSPEND when it needs a decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .machine import VM

from .core import CHANGED, MAX_OPTIONS, SUSPEND, owner
from .ops_counters import room_for
from .trial import answers_that_work, body_needs, orders, region_risky, short


def op_WINDOW(vm, f, ins):
    """The window's options that can happen now, and 'pass'; the option chosen runs, and the window is
    offered again when it is done (the instruction runs again), until the player passes."""
    options = vm.linker.windows[ins[1]]
    offered = [i for i, (_, guard, _) in enumerate(options)
               if guard is None or vm.eval_sync(guard, f.you, f.it, f.this, vars=f.vars)]
    if not offered:
        return None
    choices = [*offered, None]
    a = vm.decide(f, "option", f"at any time ({ins[1]})", choices,
                  lambda: [options[i][0] if i is not None else "pass" for i in choices])
    if a is None:
        return SUSPEND
    if choices[a] is None:
        return None
    label, _, body = options[choices[a]]
    if vm.log is not None:
        vm.log.append(("choose", f.you, label))
    f.pc -= 1  # back here when the option is done: the window stays open until the player passes
    vm.push(body, f.you, f.it, f.this, f.step, f.depth, f.decider)
    return CHANGED


def op_CHOOSE_X(vm, f, ins):
    lo, hi = f.stack[-2], f.stack[-1]
    if hi - lo >= MAX_OPTIONS:  # a list of them all would be built, labelled, saved
        raise vm.fault(f"choose X from {lo:,} to {hi:,} would offer more than {MAX_OPTIONS:,} numbers")
    options = list(range(lo, max(lo, hi) + 1))
    a = vm.decide(f, "number", "choose X", options)
    if a is None:
        return SUSPEND
    del f.stack[-2:]
    f.x = options[a]


def op_CHOOSE(vm, f, ins):
    labels = ins[1]
    n = len(labels)
    guards = f.stack[-n:]
    offered = [i for i in range(n) if guards[i]]
    if not offered:
        del f.stack[-n:]
        f.stack.append(n)
        return None
    a = vm.decide(f, "option", "choose one", offered, lambda: [labels[i] for i in offered])
    if a is None:
        return SUSPEND
    del f.stack[-n:]
    if vm.log is not None:
        vm.log.append(("choose", f.you, labels[offered[a]]))
    f.stack.append(offered[a])
    return None


def op_ORDER(vm, f, ins):
    """'in any order': the player picks an order of the parts; only the orders that can be done in full are
    offered when a part may fall short (all of them when none can)."""
    labels = ins[1]
    options = vm.recall(f)
    if options is None:
        options = orders(len(labels))
        code = f.lc.code
        end = code.ops[f.pc][1]  # NEXT_PART's target: after the last part
        if vm.trial is None and region_risky(vm.linker, code, f.pc + 1, end):
            good = answers_that_work(vm, f, len(options), end)
            options = [options[i] for i in good] or options
    a = vm.decide(f, "option", "in which order", options,
                  lambda: [", then ".join(labels[i] for i in o) for o in options], memo=options)
    if a is None:
        return SUSPEND
    if vm.log is not None:
        vm.log.append(("order", f.you, list(options[a])))
    f.stack.append([options[a], 0])


def op_MAY(vm, f, ins):
    a = vm.decide(f, "may", ins[1], [False, True], ["no", "yes"], default=1)
    if a is None:
        return SUSPEND
    f.stack.append(a == 1)


def op_UPTO(vm, f, ins):
    n = f.stack[-1]
    if n <= 0:
        f.stack[-1] = 0
        return None
    if n >= MAX_OPTIONS:
        raise vm.fault(f"'up to {n:,}' would offer more than {MAX_OPTIONS:,} numbers")
    options = list(range(n + 1))
    a = vm.decide(f, "number", ins[1], options, default=n)
    if a is None:
        return SUSPEND
    f.stack[-1] = options[a]
    return None


def _unreserved(vm: VM, found: list[int], seat: int) -> list[int]:
    """The cards a player may pick: not those another player reserved with a `reserves` piece (Land Claim)."""
    reserving = vm.linker.reserving
    if not reserving:
        return found
    cards = vm.state.cards
    return [c for c in found if not (p := cards[c].pieces)
            or not any(p.get(r, 0) > 0 and not p.get(f"{r}@{seat}", 0) for r in reserving)]


def op_CHOOSE_CARD(vm, f, ins):
    tr = vm.trial
    if tr is not None and f.depth == tr.depth and not ins[2] and vm.answer is None:
        return _choose_in_trial(vm, f, ins[1], tr)
    found = vm.recall(f)
    if found is None:
        found = _unreserved(vm, vm.query(ins[1], f), f.you)
    optional = ins[2]
    if not found:
        if vm.trial is not None and not optional:
            _nothing_to_choose(vm, f)
        f.stack.append(False)
        return
    options = [*found, None] if optional else found
    a = vm.decide(f, "card", "choose a card", options,
                  lambda: [vm.label(c) if c is not None else "none" for c in options], memo=found)
    if a is None:
        return SUSPEND
    if options[a] is None:
        f.stack.append(False)
        return
    f.it = options[a]
    f.stack.append(True)


def _choose_in_trial(vm, f, q, tr) -> None:
    """A choice of a card in a trial: the matching cards are looked at one at a time (the where of a card
    that is never chosen is never worked out), the path's answer being the index of the card to take."""
    first = _nth(vm, f, q, 0)
    if first is None:
        _nothing_to_choose(vm, f)
        f.stack.append(False)
        return
    a = tr.answer(None)
    card = first if a == 0 else _nth(vm, f, q, a)
    if card is None:
        raise tr.past_the_end()  # no card left to try
    f.it = card
    f.stack.append(True)


def _nth(vm, f, q, k: int) -> int | None:
    """The k-th card (from 0) a query finds that the player may pick, or None."""
    if q.reverse:  # the whole query's order, backwards
        found = _unreserved(vm, vm.query(q, f), f.you)
        return found[k] if k < len(found) else None
    st = vm.state
    cards, zones, pred = st.cards, st.zones, q.pred
    seen = 0
    for zname, mode in q.zones:
        if mode in ("others", "all"):
            seats = [(f.you + i) % st.n for i in range(0 if mode == "all" else 1, st.n)]
        else:
            seats = (owner(vm, mode, f),)
        for seat in seats:
            row = zones[(zname, seat)]
            for cid in row:
                if cid is not None and (pred is None or pred(vm, f, cards[cid])) and _unreserved(vm, [cid], f.you):
                    if seen == k:
                        return cid
                    seen += 1
    return None


def _nothing_to_choose(vm, f) -> None:
    """A choice of a card with none to choose, in a trial: it falls short when what it governs must happen."""
    code = f.lc.code
    nxt = code.ops[f.pc] if f.pc < len(code.ops) else None
    if nxt is not None and nxt[0] == "JUMP_IF_NOT" and body_needs(vm.linker, code, f.pc + 1, nxt[1]):
        short(vm, f, "choose", "", f.you)


def op_PICK_HOLDER(vm, f, ins):
    q, piece, mode, optional = ins[1], ins[2], ins[3], ins[4]
    cards = vm.state.cards
    found = vm.recall(f)
    if found is not None:
        pass
    elif mode == "add":
        cap = vm.linker.capacity[piece]
        if cap is None:
            found = vm.query(q, f)
        elif cap not in vm.linker.modified_stats:  # the room is the card's own capacity stat
            stats = vm.linker.stats
            found = [c for c in vm.query(q, f) if stats[cards[c].defn].get(cap, 0) > cards[c].pieces.get(piece, 0)]
        else:
            found = [c for c in vm.query(q, f) if (room := room_for(vm, cards[c], piece, f.you)) is None or room > 0]
    else:
        found = [c for c in vm.query(q, f) if cards[c].pieces.get(piece, 0) > 0
                 and not (piece in vm.linker.prevent_names and vm.prevented(f, piece, cards[c].seat, cards[c]))]
    if found:
        found = _unreserved(vm, found, f.you)
    if not found:
        if not optional and vm.trial is not None:
            short(vm, f, "place" if mode == "add" else "remove", piece, f.you)
        f.stack.append(False)
        return None
    options = [*found, None] if optional else found
    verb = "put" if mode == "add" else "take"
    a = vm.decide(f, "card", f"{verb} a {piece}", options,
                  lambda: [vm.label(c) if c is not None else "stop" for c in options], memo=found)
    if a is None:
        return SUSPEND
    if options[a] is None:
        f.stack.append(False)
        return None
    f.it = options[a]
    f.stack.append(True)
    return None
