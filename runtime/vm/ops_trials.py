"""Whether an ability or a program can be done in full now: its guards (leading conditions and cost), then a
trial on a copy of the game (trial.py) when something in it may fall short.

Each handler takes (vm, frame, instruction) and returns None to go on."""

from __future__ import annotations

from .trial import guarded, needs_trial, performable


def op_CAN_ACTIVATE(vm, f, ins):
    cid = f.stack.pop()
    if cid is None:
        f.stack.append(False)
        return
    lk = vm.linker
    defn = vm.state.cards[cid].defn
    abilities = lk.abilities[defn]
    timing = next((t for t in lk.run_timings.get(ins[1]) or (ins[1],) if t in abilities), None)
    if timing is None:
        f.stack.append(False)
        return
    lc = abilities[timing]
    if not guarded(vm, f, lc, cid, cid):  # its leading conditions and cost
        f.stack.append(False)
        return
    saved = f.it, f.this
    f.it = f.this = cid  # the ability runs with its card as 'it' and 'this'
    try:
        tried = needs_trial(vm, f, lc)
    finally:
        f.it, f.this = saved
    f.stack.append(not tried or performable(vm, f, lc, cid, cid))


def op_CAN_PERFORM(vm, f, ins):
    lc = ins[1]  # a part of the program: it sees the program's local names and X
    f.stack.append(guarded(vm, f, lc, f.it, f.this, f.vars) and (not needs_trial(vm, f, lc)
                                                                or performable(vm, f, lc, f.it, f.this, f.vars, f.x)))
