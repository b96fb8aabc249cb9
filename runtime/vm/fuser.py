"""Superinstructions: runs of a program compiled into one Python function each.

At link time each region of a program between two entry points (the start, where a loop jumps back or a
handler jumps to, and where a frame resumes: after a decision that may ask, or after the frames an
instruction started) becomes one Python function, generated from the bytecode: the opcodes defined in
`inline` are written out, every other opcode calls its handler. Forward jumps inside a region stay
inside it: the region is a sequence of blocks, each run when `nxt` names it, so an if/else costs no trip
through the dispatch loop; a backward jump (a loop) goes back to the region's start, counted against the
step budget. The function stands in the place of the region's first instruction; the other instructions
stay where they were, so a program that resumes in the middle of a region simply runs them one by one.
Before a handler is called the stack is written back and `pc` is set as the dispatch loop would set it,
and a handler that returns something or moves `pc` ends the region: handlers see exactly what they would
see without fusion.

An inline opcode that runs on its own is a region of one instruction, made by the same definition.
"""

from __future__ import annotations

import bisect

from cardsmith.bytecode import BY_NAME, Code, CompiledPack
from cardsmith.runtime.geometry import geometry

from .inline import INLINE, JUMPS, RegionWriter, jump_dest


def compile_region(code: Code, prepared: list[tuple], start: int, end: int, linker):
    """Instructions start..end-1 of a program as one function (vm, frame, ins), or None when the
    program is too large for Python to compile (it then runs unfused)."""
    w = RegionWriter(code, prepared, start, end, linker)
    for k in range(start, end):
        if k != start and k in w.block_of:
            w.new_block(k)
        w.falls = True
        raw = code.ops[k]
        emit = INLINE.get(raw[0])
        if emit is not None:
            emit(w, raw, k)
        else:
            w.call_handler(k)
    src = w.source()
    try:
        exec(compile(src, f"<{code.name} [{start}:{end}]>", "exec"), w.consts)
    except (SyntaxError, RecursionError):  # pragma: no cover - a program too large to compile
        return None
    fn = w.consts["run"]
    fn.source = src
    return fn


def single_on_first_run(code: Code, prepared: list[tuple], k: int, linker) -> tuple:
    """The instruction slot of an inline opcode: compiled, as a region of one, when it first runs."""
    return (_single_first_run, code, prepared, k, linker)


def _single_first_run(vm, f, ins):
    _, code, prepared, k, linker = ins
    fn = compile_region(code, prepared, k, k + 1, linker)
    if fn is None:  # pragma: no cover - one instruction always compiles
        raise RuntimeError(f"internal: instruction {k} of {code.name} does not compile")
    new = (fn,)
    f.ops[k] = new  # the slot is shared by every frame of this program
    return fn(vm, f, new)


def entry_points(code: Code, pack: CompiledPack | None = None) -> set[int]:
    """Where a region must start: the start, the target of a backward jump or of a jump a handler makes,
    where a frame resumes, and the target of a forward jump that leaves its region."""
    heads = {0}
    jumps: list[tuple[int, int]] = []  # (from, to) of the jumps regions make inline
    for i, ins in enumerate(code.ops):
        name = ins[0]
        if name in JUMPS:
            jumps.append((i, jump_dest(code, ins[1])))
        elif name == "SWITCH":
            jumps.extend((i, jump_dest(code, t)) for t in ins[1])
        elif name in ("NEXT_PLAYER", "NEXT_PART"):
            heads.add(ins[1])  # their handlers jump
        op = BY_NAME.get(name)
        if name == "WINDOW":
            heads.add(i)  # it runs again when the option it started is done
        if name in ("RUN_ABILITY", "EMIT", "END_GAME") or \
                (op is not None and op.decides and not never_asks(ins, pack)):
            heads.add(i + 1)  # resumed here after a decision, or after the frames it started
    heads.update(t for i, t in jumps if t <= i)
    while True:  # a forward jump out of its region lands on the start of another
        starts = sorted(heads)
        more = {t for i, t in jumps if t > i and t not in heads
                and any(i < h <= t for h in starts[bisect.bisect_right(starts, i):][:1])}
        if not more:
            return heads
        heads |= more


def never_asks(ins: list, pack: CompiledPack | None) -> bool:
    """A decision opcode that, as prepared for this pack, can never ask: taking the top card of a pile
    (a draw) or putting a card into a zone without cells. It need not end a region (a region may stop in
    the middle anyway: what follows then runs one instruction at a time)."""
    if pack is None:
        return False
    if ins[0] == "TAKE":
        src, optional = ins[1], ins[2]
        zone = pack.zones.get(src["zone"][0], {})
        return not optional and (bool(src.get("all")) or (zone.get("kind") == "pile" and not src["filters"]))
    if ins[0] == "PUT":
        zone = pack.zones.get(ins[1]["zone"][0])
        return zone is not None and geometry(zone) is None
    return False


def fuse(code: Code, prepared: list[tuple], ops: list[tuple], linker) -> None:
    """Put a superinstruction at the start of every region of two or more instructions in `ops`."""
    heads = entry_points(code, linker.pack)
    n = len(code.ops)
    for start in sorted(h for h in heads if h < n):
        end = start + 1
        while end < n and end not in heads:
            end += 1
        if end - start >= 2:
            ops[start] = (_fuse_on_first_run, code, prepared, start, end, linker, ops[start])


def _fuse_on_first_run(vm, f, ins):
    """A region is compiled when it first runs (most card abilities never run in a given game); it then
    takes this instruction's place in the shared instruction list."""
    _, code, prepared, start, end, linker, alone = ins
    fn = compile_region(code, prepared, start, end, linker)
    new = (fn,) if fn is not None else alone
    f.ops[start] = new
    return new[0](vm, f, new)
