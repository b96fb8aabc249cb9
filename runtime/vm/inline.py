"""The opcodes defined once, as Python source: values, arithmetic, jumps, counters, costs, scores, flags.

Each definition writes the code of one instruction into a region (see `fuser`): stack values live in
local variables (`RegionWriter.sym`), constants are folded in, and a jump becomes a branch between the
region's blocks. The same definition makes both forms an instruction can run in: inside a fused region
of many instructions, and on its own as a region of one (how it runs when fusion is off, or when a
program resumes in the middle of a region). No opcode here has a hand-written handler, so the two
forms cannot disagree.

A definition that may start trigger programs writes the stack back and sets `pc` first, exactly as the
dispatch loop would before calling a handler, and returns what `fire` returns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from cardsmith.bytecode import Code
from cardsmith.runtime.state import Card

from .core import MAX_VALUE, RETURNED, div, owner
from .trial import short

INT_ATOM = re.compile(r"\((-?\d+)\)")

BIN_CODE = {"+": "({a} + {b})", "-": "({a} - {b})", "*": "({a} * {b})", "/": "_div({a}, {b})",
            "%": "({a} % {b} if {b} else 0)", "min": "min({a}, {b})", "max": "max({a}, {b})",
            "and": "bool({a} and {b})", "or": "bool({a} or {b})", "=": "({a} == {b})", "!=": "({a} != {b})",
            "<": "({a} < {b})", "<=": "({a} <= {b})", ">": "({a} > {b})", ">=": "({a} >= {b})"}

# Jumps a region makes itself (NEXT_PLAYER jumps inside its handler).
JUMPS = ("JUMP", "JUMP_IF", "JUMP_IF_NOT", "COUNTDOWN", "NEXT_CARD")


def jump_dest(code: Code, t: int) -> int:
    """Where a jump to `t` ends up once the unconditional jumps there are followed (each of which would
    be a dispatch of its own)."""
    seen = set()
    while t < len(code.ops) and code.ops[t][0] == "JUMP" and t not in seen:
        seen.add(t)
        t = code.ops[t][1]
    return t


def _param_value(v: Any) -> int:
    return v if isinstance(v, int) else len(v)


def _too_big(vm, f, pc: int, v: int):
    """Stop a program whose number left the bounds a game keeps (a loop that multiplies a counter by itself would
    otherwise grow it to millions of digits, and take the machine's memory and time with it)."""
    f.pc = pc
    digits = int(abs(v).bit_length() * 0.30103) + 1  # about: str() refuses numbers of over 4,300 digits
    raise vm.fault(f"a number grew past ±{MAX_VALUE:.0e} (to about {digits:,} digits); no game counts that high "
                   "(a loop that multiplies or doubles?)")


def _sum_pieces(cards: list[Card], found: list[int], name: str) -> int:
    total = 0
    for cid in found:
        total += cards[cid].pieces.get(name, 0)
    return total


def _sum_stats(stats: list[dict[str, int]], cards: list[Card], found: list[int], name: str) -> int:
    total = 0
    for cid in found:
        total += stats[cards[cid].defn].get(name, 0)
    return total


def _sum_modified(vm, found: list[int], name: str, seat: int) -> int:
    cards = vm.state.cards
    total = 0
    for cid in found:
        total += vm.stat(cards[cid], name, seat)
    return total


class RegionWriter:
    """The source of one region (instructions start..end-1 of a program) as it is being written.

    `sym` is the top of the stack as atoms (temporaries or literals), bottom first; `lines` the current
    block's code, indented one space; `blocks` the blocks written so far."""

    def __init__(self, code: Code, prepared: list[tuple], start: int, end: int, linker) -> None:
        self.code, self.prepared, self.start, self.end, self.linker = code, prepared, start, end, linker
        self.consts: dict[str, Any] = {"_div": div, "_param": _param_value, "_owner": owner, "_too_big": _too_big,
                                       "_sum_pieces": _sum_pieces, "_sum_stats": _sum_stats,
                                       "_sum_modified": _sum_modified, "_RETURNED": RETURNED, "_short": short}
        firsts = {start}  # blocks: the region's start, the targets of its forward jumps, what follows a jump
        for k in range(start, end):
            raw = code.ops[k]
            if raw[0] in JUMPS or raw[0] == "SWITCH":
                targets = raw[1] if raw[0] == "SWITCH" else [raw[1]]
                firsts.update(t for t in (jump_dest(code, t) for t in targets) if k < t < end)
                if k + 1 < end:
                    firsts.add(k + 1)
        self.block_of = {k: i for i, k in enumerate(sorted(firsts))}
        self.sym: list[str] = []
        self.temps = 0
        self.lines: list[str] = []
        self.blocks: list[list[str]] = []
        self.looping = False  # a jump back to the region's start: the body runs in a loop
        self.falls = True  # the current block may go on into the next one

    # --- values
    def const(self, v: Any) -> str:
        if v is None or isinstance(v, bool):
            return repr(v)
        if type(v) is int:
            return f"({v})"
        name = f"K{len(self.consts)}"
        self.consts[name] = v
        return name

    def temp(self, expr: str) -> str:
        t = f"t{self.temps}"
        self.temps += 1
        self.lines.append(f" {t} = {expr}")
        return t

    def push(self, expr: str) -> None:
        self.sym.append(self.temp(expr))

    def pop(self) -> str:
        return self.sym.pop() if self.sym else self.temp("s.pop()")

    def flush(self) -> None:
        """Write the symbolic stack back to the frame's stack."""
        if len(self.sym) == 1:
            self.lines.append(f" s.append({self.sym[0]})")
        elif self.sym:
            self.lines.append(f" s.extend(({', '.join(self.sym)},))")
        self.sym.clear()

    # --- control
    def finish(self, pad: str) -> None:
        """The end of the program: what RETURN does, here, unless the frame is not on the frame stack (a
        pure program that eval_sync or a query's 'where' runs on a frame of its own)."""
        n = len(self.code.ops)
        self.lines += [f"{pad}fr = vm.frames", f"{pad}if fr and fr[-1] is f:", f"{pad} f.pc = {n + 1}",
                       f"{pad} fr.pop()", f"{pad} return _RETURNED", f"{pad}f.pc = {n}", f"{pad}return None"]

    def goto(self, k: int, t: int, pad: str) -> None:
        """Jump from instruction k to t: the block that starts there, back to the region's start (a
        loop, counted against the step budget as the dispatcher would count it), or out."""
        t = jump_dest(self.code, t)
        if k < t < self.end:
            self.lines.append(f"{pad}nxt = {self.block_of[t]}")
        elif t == len(self.code.ops):
            self.finish(pad)
        elif t == self.start:
            self.looping = True
            self.lines += [f"{pad}vm.steps += 1",
                           f"{pad}if vm.steps > vm.budget:  # the dispatch loop stops a loop that never ends",
                           f"{pad} f.pc = {t}", f"{pad} return None", f"{pad}continue"]
        else:
            self.lines += [f"{pad}f.pc = {t}", f"{pad}return None"]

    def call_handler(self, k: int) -> None:
        """Run instruction k by its handler, as the dispatch loop would; leave the region if it asks to."""
        self.flush()
        prepared = self.prepared[k]
        self.consts[f"H{k}"], self.consts[f"I{k}"] = prepared[0], prepared
        self.lines += [f" f.pc = {k + 1}", f" r = H{k}(vm, f, I{k})", f" if r is not None or f.pc != {k + 1}:",
                       "  return r"]

    def fire(self, k: int, pad: str, verb: str, card: str, name: str) -> None:
        """Start the triggers of an event, after writing back the stack and setting pc."""
        # rules-level claims watch whether or not a card in play has triggers
        test = "True" if self.linker.rule_claims else "st.live_triggers"
        self.lines += [f"{pad}if {test}:", f"{pad} f.pc = {k + 1}",
                       f"{pad} r = vm.fire(f, {verb}, f.you, {card}, {name})", f"{pad} if r is not None:",
                       f"{pad}  return r"]

    def new_block(self, k: int) -> None:
        self.flush()
        if self.falls:
            self.lines.append(f" nxt = {self.block_of[k]}")
        self.blocks.append(self.lines)
        self.lines = []

    def source(self) -> str:
        self.flush()
        if self.falls and self.end == len(self.code.ops):
            self.finish(" ")
        elif self.falls and self.end > self.start + 1:  # one instruction: the dispatch loop set pc already
            self.lines += [f" f.pc = {self.end}", " return None"]
        self.blocks.append(self.lines)
        body = "\n".join(line for block in self.blocks for line in block)
        out = ["def run(vm, f, ins):"]
        for local, pattern in _LOCALS:  # only the locals the body uses: a region of one stays cheap
            if pattern.search(body):
                out.append(local)
        pad = ""
        if self.looping:
            out.append(" while True:")
            pad = " "
        for i, block in enumerate(self.blocks):
            if i:
                out.append(f"{pad} if nxt == {i}:")
            out.extend(pad + (" " if i else "") + line for line in block)
        return "\n".join(out) + "\n"


_LOCALS = ((" st = vm.state", re.compile(r"\bst\.")), (" s = f.stack", re.compile(r"\bs[.\[]")),
           (" log = vm.log", re.compile(r"\blog\b")))

Emit = Callable[[RegionWriter, list, int], None]
INLINE: dict[str, Emit] = {}


def defines(*names: str) -> Callable[[Emit], Emit]:
    def register(fn: Emit) -> Emit:
        for name in names:
            INLINE[name] = fn
        return fn
    return register


# ------------------------------------------------------------------ values and arithmetic


@defines("PUSH")
def _push(w: RegionWriter, raw: list, k: int) -> None:
    w.sym.append(w.const(raw[1]))


@defines("POP")
def _pop(w: RegionWriter, raw: list, k: int) -> None:
    if w.sym:
        w.sym.pop()
    else:
        w.lines.append(" s.pop()")


@defines("DUP")
def _dup(w: RegionWriter, raw: list, k: int) -> None:
    w.sym.append(w.sym[-1] if w.sym else w.temp("s[-1]"))


_FRAME_VALUES = {"IT": "f.it", "THIS": "f.this", "X": "f.x", "NPLAYERS": "st.n",
                 "TOTAL_SCORE": "sum(st.scores[f.you].values())"}


@defines(*_FRAME_VALUES)
def _frame_value(w: RegionWriter, raw: list, k: int) -> None:
    w.push(_FRAME_VALUES[raw[0]])


@defines("LOCAL")
def _local(w: RegionWriter, raw: list, k: int) -> None:
    w.push(f"f.vars[{w.const(raw[1])}]")


@defines("SET_LOCAL")
def _set_local(w: RegionWriter, raw: list, k: int) -> None:
    """Bind a local name in the frame (its table is made on the first binding)."""
    v = w.temp(w.pop())
    w.lines += [f" if type({v}) is int and not {-MAX_VALUE} <= {v} <= {MAX_VALUE}: _too_big(vm, f, {k + 1}, {v})",
                " if f.vars is None:", "  f.vars = {}", f" f.vars[{w.const(raw[1])}] = {v}"]


@defines("COUNTER")
def _counter(w: RegionWriter, raw: list, k: int) -> None:
    w.push(f"st.counters[f.you].get({w.const(raw[1])}, 0)")


@defines("GLOBAL")
def _global(w: RegionWriter, raw: list, k: int) -> None:
    w.push(f"st.globals.get({w.const(raw[1])}, 0)")


@defines("PARAM")
def _param(w: RegionWriter, raw: list, k: int) -> None:
    w.push(f"_param(st.params[{w.const(raw[1])}])")


@defines("PLAYER")
def _player(w: RegionWriter, raw: list, k: int) -> None:
    w.push("f.you" if raw[1] == "you" else f"_owner(vm, {w.const(raw[1])}, f)")


@defines("BIN")
def _bin(w: RegionWriter, raw: list, k: int) -> None:
    b, a = w.pop(), w.pop()
    w.push(BIN_CODE[raw[1]].format(a=a, b=b))


@defines("NOT")
def _not(w: RegionWriter, raw: list, k: int) -> None:
    w.push(f"not {w.pop()}")


@defines("BOOL")
def _bool(w: RegionWriter, raw: list, k: int) -> None:
    w.push(f"bool({w.pop()})")


@defines("NEG")
def _neg(w: RegionWriter, raw: list, k: int) -> None:
    a = w.pop()
    m = INT_ATOM.fullmatch(a)
    if m:
        w.sym.append(f"({-int(m.group(1))})")
    else:
        w.push(f"-{a}")


@defines("ABS")
def _abs(w: RegionWriter, raw: list, k: int) -> None:
    w.push(f"abs({w.pop()})")


@defines("PER")
def _per(w: RegionWriter, raw: list, k: int) -> None:
    n, a = w.pop(), w.pop()
    w.push(f"{a} * {n}" if raw[1] == 1 else f"{a} * ({n} // {w.const(raw[1])})")


# ------------------------------------------------------------------ card facts and counts


@defines("STAT")
def _stat(w: RegionWriter, raw: list, k: int) -> None:
    c = w.pop()
    w.push(f"0 if {c} is None else vm.stat(st.cards[{c}], {w.const(raw[1])}, f.you)")


@defines("PIECES")
def _pieces(w: RegionWriter, raw: list, k: int) -> None:
    c = w.pop()
    key = w.const(raw[1])
    if raw[1].endswith("@"):  # the pieces the current player placed
        key = f"({key} + str(f.you))"
    w.push(f"0 if {c} is None else st.cards[{c}].pieces.get({key}, 0)")


@defines("COUNT")
def _count(w: RegionWriter, raw: list, k: int) -> None:
    query = w.prepared[k][1]
    w.push(f"len({w.const(query.run)}(vm, f))" if query.run is not None else f"len(vm.query({w.const(query)}, f))")


@defines("SUM")
def _sum(w: RegionWriter, raw: list, k: int) -> None:
    query = w.prepared[k][2]
    found = f"{w.const(query.run)}(vm, f)" if query.run is not None else f"vm.query({w.const(query)}, f)"
    name = raw[1]
    if name in w.linker.pack.pieces:
        w.push(f"_sum_pieces(st.cards, {found}, {w.const(name)})")
    elif name not in w.linker.modified_stats:  # no modifier touches it: the card's own stat
        w.push(f"_sum_stats({w.const(w.linker.stats)}, st.cards, {found}, {w.const(name)})")
    else:
        w.push(f"_sum_modified(vm, {found}, {w.const(name)}, f.you)")


# ------------------------------------------------------------------ counters, costs, scores, flags


def _store(w: RegionWriter, name: str) -> tuple[str, dict]:
    """Where a counter lives: the current player's resources, or the shared counters."""
    pack = w.linker.pack
    if name in pack.resources:
        return "st.counters[f.you]", pack.resources[name]
    if name in pack.counters:
        return "st.globals", pack.counters[name]
    raise ValueError(f"'{name}' is neither a resource nor a shared counter")  # the checker forbids it


@defines("SET")
def _set(w: RegionWriter, raw: list, k: int) -> None:
    store, decl = _store(w, raw[1])
    v = w.temp(w.pop())
    lo, hi = decl.get("min"), decl.get("max")
    if lo is not None:
        w.lines.append(f" if {v} < {w.const(lo)}: {v} = {w.const(lo)}")
    if hi is not None:
        w.lines.append(f" if {v} > {w.const(hi)}: {v} = {w.const(hi)}")
    w.lines.append(f" if not {-MAX_VALUE} <= {v} <= {MAX_VALUE}: _too_big(vm, f, {k + 1}, {v})")
    w.lines.append(f" {store}[{w.const(raw[1])}] = {v}")
    if w.linker.claims_read(raw[1]):  # a claim reads it: check it now
        w.flush()
        w.lines += [f" f.pc = {k + 1}", f" r = vm.changed(f, {w.const(raw[1])})", " if r is not None:", "  return r"]


@defines("HAS")
def _has(w: RegionWriter, raw: list, k: int) -> None:
    name = raw[1]
    store, _ = _store(w, name)
    need = w.pop()
    has = f"{store}.get({w.const(name)}, 0) >= {need}"
    if name in w.linker.prevent_names:  # a loss a 'prevent' stops cannot pay a cost
        has += f" and not ({need} > 0 and vm.prevented(f, {w.const(name)}, f.you))"
    w.push(has)


@defines("GAIN", "LOSE")
def _gain_lose(w: RegionWriter, raw: list, k: int) -> None:
    """Add to or take from a counter within its bounds (a loss not below the minimum, 0 by default, except from a
    bottomless automa seat);
    log it and start the triggers that listen. An amount of 0 or less does nothing; a loss that a
    live 'prevent' stops does nothing. In a trial (trial.py) a gain or loss the bounds cut short, or a
    loss a 'prevent' stops, falls short."""
    name, counter = raw[0], raw[1]
    store, decl = _store(w, counter)
    seat = "f.you" if store.startswith("st.counters") else "(-1)"
    n = w.pop()
    m = INT_ATOM.fullmatch(n)
    if m is not None and int(m.group(1)) <= 0:
        return  # gains or loses nothing
    w.flush()
    key = w.const(counter)
    verb = name.lower()
    conditions = [] if m is not None else [f"{n} > 0"]
    stopped = name == "LOSE" and counter in w.linker.prevent_names
    if stopped:
        w.lines.append(f" if {' and '.join(conditions) or 'True'} and vm.prevented(f, {key}, f.you):")
        w.lines.append(f"  if vm.trial is not None: _short(vm, f, {verb!r}, {key}, {seat})")
        conditions.append(f"not vm.prevented(f, {key}, f.you)")
    pad = " " if conditions else ""
    if conditions:
        w.lines.append(f" if {' and '.join(conditions)}:")
    lines = [f"d = {store}"]
    if name == "GAIN":
        lines.append(f"v = d.get({key}, 0) + {n}")
        if decl.get("max") is not None:
            hi = w.const(decl["max"])
            lines += [f"if v > {hi}:", f" if vm.trial is not None: _short(vm, f, 'gain', {key}, {seat})",
                      f" v = {hi}"]
        if decl.get("max") is None or decl["max"] > MAX_VALUE:
            lines.append(f"if v > {MAX_VALUE}: _too_big(vm, f, {k + 1}, v)")
    else:
        lo = w.const(decl.get("min", 0))
        # a bottomless automa seat (rules.yaml) always has what is taken from it: no floor for its losses
        floor = f"v < {lo}" if seat == "(-1)" else \
            f"v < {lo} and not (f.you >= st.n and f.you in vm.linker.bottomless(st.n))"
        lines += [f"v = d.get({key}, 0) - {n}", f"if {floor}:",
                  f" if vm.trial is not None: _short(vm, f, 'lose', {key}, {seat})", f" v = {lo}"]
    lines += [f"d[{key}] = v", "if log is not None:", f" log.append(({verb!r}, f.you, {key}, {n}))"]
    w.lines += [f"{pad} {line}" for line in lines]
    if w.linker.listens(verb, counter):
        w.fire(k, pad + " ", repr(verb), "None", key)


@defines("SCORE")
def _score(w: RegionWriter, raw: list, k: int) -> None:
    """Add to the current player's score: in the step the statement names, else in the scoring step being counted,
    else (during play) in the first step the pack declares during-play ('vp' in a pack that declares none)."""
    n = w.pop()
    named = raw[1] if len(raw) > 1 else None
    playing = next((s["id"] for s in w.linker.pack.scoring if s.get("during-play")), "vp")
    step = w.const(named) if named else f"(f.step or {w.const(playing)})"
    w.lines += [f" sc = st.scores[f.you]; step = {step}; v = sc.get(step, 0) + {n}",
                f" if not {-MAX_VALUE} <= v <= {MAX_VALUE}: _too_big(vm, f, {k + 1}, v)", " sc[step] = v",
                " if log is not None:", f"  log.append(('score', f.you, step, {n}))"]


@defines("MARK")
def _mark(w: RegionWriter, raw: list, k: int) -> None:
    """Set or clear a flag on a card; the event is the flag's name (or un + name when cleared)."""
    flag, on = raw[1], raw[2]
    c = w.pop()
    w.flush()
    verb = flag if on else f"un{flag}"
    w.lines += [f" if {c} is not None:", f"  st.writable({c}).flags.{'add' if on else 'discard'}({w.const(flag)})",
                "  if log is not None:",
                f"   log.append(('mark', {w.const(flag)}, {w.const(on)}, vm.pack.cards[st.cards[{c}].defn].id))"]
    if w.linker.listens(verb, None):
        w.fire(k, "  ", w.const(verb), c, "None")


# ------------------------------------------------------------------ jumps


@defines("JUMP")
def _jump(w: RegionWriter, raw: list, k: int) -> None:
    w.flush()
    w.goto(k, raw[1], " ")
    w.falls = False


@defines("JUMP_IF", "JUMP_IF_NOT")
def _jump_if(w: RegionWriter, raw: list, k: int) -> None:
    c = w.pop()
    w.flush()
    w.lines.append(f" if {'' if raw[0] == 'JUMP_IF' else 'not '}{c}:")
    w.goto(k, raw[1], "  ")
    w.lines.append(" else:")
    w.goto(k, k + 1, "  ")
    w.falls = False


@defines("SWITCH")
def _switch(w: RegionWriter, raw: list, k: int) -> None:
    c = w.pop()
    w.flush()
    dests = [jump_dest(w.code, t) for t in raw[1]]
    if all(k < t < w.end for t in dests):
        w.lines.append(f" nxt = {w.const(tuple(w.block_of[t] for t in dests))}[{c}]")
    else:
        w.lines += [f" f.pc = {w.const(tuple(dests))}[{c}]", " return None"]
    w.falls = False


@defines("COUNTDOWN")
def _countdown(w: RegionWriter, raw: list, k: int) -> None:
    """A loop counter on the stack: while it is above 0, count it down and go on; else drop it and jump."""
    w.flush()
    w.lines += [" c = s[-1]", " if c > 0:", "  s[-1] = c - 1"]
    w.goto(k, k + 1, "  ")
    w.lines += [" else:", "  s.pop()"]
    w.goto(k, raw[1], "  ")
    w.falls = False


@defines("NEXT_CARD")
def _next_card(w: RegionWriter, raw: list, k: int) -> None:
    """The next card of a FOR_CARDS loop as 'it'; at the end, restore 'it', drop the iterator and jump."""
    w.flush()
    w.lines += [" nc = s[-1]", " if nc[1] < len(nc[0]):", "  f.it = nc[0][nc[1]]", "  nc[1] += 1"]
    w.goto(k, k + 1, "  ")
    w.lines += [" else:", "  s.pop()", "  f.it = nc[2]"]
    w.goto(k, raw[1], "  ")
    w.falls = False

