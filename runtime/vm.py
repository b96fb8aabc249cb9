"""The generic VM: runs bytecode against a GameState. It knows no game by name.

Every program (the game flow, card abilities, triggers, scoring steps) runs as a frame
on one explicit frame stack, so the whole run can stop at any decision and resume
later: a decision opcode computes its options, hands the VM a Decision and is run
again, with the answer, when `resume` is called. Decision opcodes change nothing
before their answer arrives, so re-running them is safe.

A step budget (between two decisions) and a trigger-depth limit stop runaway programs
with a RuntimeFault that names the program and its source line.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable
from typing import Any

from cardsmith.compiler.bytecode import CardDef, Code, CompiledPack
from cardsmith.compiler.diagnostics import Span

from .geometry import geometry
from .state import SHARED, Card, GameState

STEP_BUDGET = 2_000_000  # instructions between two decisions
MAX_TRIGGER_DEPTH = 40
MAX_FRAMES = 400

# Superinstructions (see `fuse`): on unless CARDSMITH_VM_FUSE=0, which runs every instruction on its own
# (to check that both give the same games, byte for byte).
FUSE = os.environ.get("CARDSMITH_VM_FUSE", "1") != "0"

CHANGED = object()  # the frame stack changed: fetch the top frame again
SUSPEND = object()  # a decision is pending


class RuntimeFault(Exception):
    """A program misbehaved at run time (runaway loop, trigger storm). Carries a source span."""

    def __init__(self, message: str, span: Span, program: str) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.program = program

    def __str__(self) -> str:
        return f"{self.span}: error[R001]: {self.message} (in {self.program})"


class Decision:
    """A choice for an agent: pick the index of one option.

    `labels` (one text per option) may be given as a function that makes them: they are made on
    first use only, since most agents never read them."""

    __slots__ = ("_labels", "kind", "options", "prompt", "seat")

    def __init__(self, seat: int, kind: str, prompt: str, options: list[Any],
                 labels: list[str] | Callable[[], list[str]] | None = None) -> None:
        self.seat = seat
        self.kind = kind  # option | may | card | cell | player | number
        self.prompt = prompt
        self.options = options
        self._labels = [] if labels is None else labels

    @property
    def labels(self) -> list[str]:
        if callable(self._labels):
            self._labels = self._labels()
        return self._labels

    @labels.setter
    def labels(self, value: list[str]) -> None:
        self._labels = value

    def __len__(self) -> int:
        return len(self.options)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decision):
            return NotImplemented
        return (self.seat, self.kind, self.prompt, self.options, self.labels) == \
            (other.seat, other.kind, other.prompt, other.options, other.labels)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return (f"Decision(seat={self.seat!r}, kind={self.kind!r}, prompt={self.prompt!r}, "
                f"options={self.options!r}, labels={self.labels!r})")


class Linked:
    """A Code with its opcodes resolved to handler functions and operands prepared."""

    __slots__ = ("code", "name", "ops", "pure")

    def __init__(self, code: Code, ops: list[tuple]) -> None:
        self.code = code
        self.ops = ops
        self.name = code.name
        # A pure program (only values, queries and jumps) is evaluated by eval_sync without a frame stack.
        self.pure = all(ins[0] in _PURE for ins in code.ops)


class Frame:
    __slots__ = ("depth", "it", "lc", "memo", "ops", "pc", "refill", "stack", "step", "this", "x", "you")

    def __init__(self, lc: Linked, you: int, it: int | None = None, this: int | None = None,
                 step: str | None = None, depth: int = 0) -> None:
        self.lc = lc
        self.ops = lc.ops
        self.pc = 0
        self.stack: list[Any] = []
        self.you = you
        self.it = it
        self.this = this
        self.x = 0
        self.step = step
        self.depth = depth
        self.refill = -1
        self.memo = None  # (pc, options) of a decision that suspended here: see VM.recall

    def clone(self) -> Frame:
        f = Frame.__new__(Frame)
        f.lc, f.ops, f.pc = self.lc, self.ops, self.pc
        f.stack = [list(v) if isinstance(v, list) else v for v in self.stack]
        f.you, f.it, f.this, f.x, f.step, f.depth, f.refill, f.memo = (
            self.you, self.it, self.this, self.x, self.step, self.depth, self.refill, self.memo)
        return f


# ------------------------------------------------------------------------ helpers


def _owner(vm: VM, mode: str, f: Frame) -> int:
    if mode == "you":
        return f.you
    if mode == "shared":
        return SHARED
    n = vm.state.n
    if mode == "active":
        return vm.state.active
    if mode == "left":
        return (f.you + 1) % n
    if mode == "right":
        return (f.you - 1) % n
    if mode == "first":
        return vm.state.first
    raise ValueError(mode)


_CMP: dict[str, Callable[[int, int], bool]] = {
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def _div(a: int, b: int) -> int:
    return a // b if b else 0


_BIN: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _div,
    "%": lambda a, b: a % b if b else 0,
    "min": min, "max": max, "and": lambda a, b: bool(a and b), "or": lambda a, b: bool(a or b), **_CMP,
}


class Query:
    """A prepared query: zones to look in, and a predicate over cards."""

    __slots__ = ("on_stack", "pred", "reverse", "run", "zones")

    def __init__(self, zones: list[tuple[str, str]], pred, on_stack: bool = False, reverse: bool = False) -> None:
        self.zones = zones
        self.pred = pred
        self.on_stack = on_stack
        self.reverse = reverse
        self.run: Callable | None = None  # (vm, frame) -> card ids: the query as one generated function


class Linker:
    """Prepares a pack's codes for the VM once; shared by every game of that pack."""

    def __init__(self, pack: CompiledPack) -> None:
        self.pack = pack
        self.cache: dict[int, Linked] = {}
        self.def_index = {c.id: i for i, c in enumerate(pack.cards)}
        self.traits: list[dict[str, frozenset[str]]] = [
            {t: frozenset(v) for t, v in c.traits.items()} for c in pack.cards]
        self.stats: list[dict[str, int]] = [{**pack.stats, **c.stats} for c in pack.cards]
        self.back: list[int | None] = [self.def_index.get(c.back) if c.back else None for c in pack.cards]
        # the timings an activation of T runs: T itself, then those that match it (multicolour)
        self.run_timings: dict[str, list[str]] = {
            t: [t] + [u for u, d in pack.timings.items() if t in d.get("matches", [])] for t in pack.timings}
        self.abilities: list[dict[str, Linked]] = [
            {t: self.link(code) for t, code in c.abilities.items()} for c in pack.cards]
        self.checks: list[dict[str, Linked]] = [
            {t: self.link(code) for t, code in c.checks.items()} for c in pack.cards]
        self.conditions: list[dict[str, Linked]] = [
            {t: self.link(code) for t, code in c.conditions.items()} for c in pack.cards]
        self.triggers: list[list[tuple]] = [
            [(t.subject, t.verb, t.name, self.pred(t.filters) if t.filters is not None else None, self.link(t.code))
             for t in c.triggers] for c in pack.cards]
        self.modifiers: list[list[tuple]] = [
            [(m.stat, self.pred(m.query["filters"]), m.amount,
              frozenset(z for z, _ in m.query["zones"]) or None) for m in c.modifiers] for c in pack.cards]
        # 'prevent ...' per card: (names, only opponents, scope "this" | "you"); checked only when a
        # counter or piece named in some prohibition is lost or removed, so other losses cost nothing
        self.prevents: list[tuple] = [
            tuple((frozenset(p["names"]), p["opponents"], p["scope"]) for p in c.prevents) for c in pack.cards]
        self.prevent_names = frozenset(n for ps in self.prevents for names, _, _ in ps for n in names)
        self.prevent_anyone = any(not opp for ps in self.prevents for _, opp, _ in ps)
        self.on_empty = {z: self.link(c) for z, c in pack.zone_on_empty.items()}
        self.when_full = {p: self.link(c) for p, c in pack.piece_when_full.items()}
        # pieces that reserve their card for the players who placed them (`reserves: true`)
        self.reserving = tuple(p for p, d in pack.pieces.items() if d.get("reserves"))
        self.in_play = {z for z, d in pack.zones.items() if d.get("in-play")}
        self.geo = {z: geometry(d) for z, d in pack.zones.items()}
        self.ortho = {z: geometry({**d, "adjacency": 4}) for z, d in pack.zones.items()}
        # every verb some trigger of the pack listens for: an event of another verb starts nothing
        self.trigger_verbs = frozenset(t.verb for c in pack.cards for t in c.triggers)
        self._listening: dict[tuple[str, str | None], bool] = {}
        self.triggers_by_verb: list[dict[str, list[tuple]]] = []  # per card: its triggers by verb, in order
        for ts in self.triggers:
            by: dict[str, list[tuple]] = {}
            for t in ts:
                by.setdefault(t[1], []).append(t)
            self.triggers_by_verb.append(by)
        # every stat some modifier changes: the others are read straight from the card
        self.modified_stats = frozenset(m[0] for ms in self.modifiers for m in ms)
        self.capacity = {p: d.get("capacity") for p, d in pack.pieces.items()}  # the stat that bounds a piece
        # timings whose abilities run once per card in an activation
        self.once_timings = frozenset(t for t, d in pack.timings.items() if d.get("kind") == "activated"
                                      and pack.activation.get("once-per-card", True))

    def listens(self, verb: str, name: str | None) -> bool:
        """Whether any trigger of the pack can start on event `verb` about `name` (see VM.fire)."""
        key = (verb, name)
        hit = self._listening.get(key)
        if hit is None:
            hit = self._listening[key] = any(t.verb == verb and (t.name is None or t.name == name)
                                             for c in self.pack.cards for t in c.triggers)
        return hit

    def link(self, code: Code) -> Linked:
        key = id(code)
        lc = self.cache.get(key)
        if lc is None:
            ops = [self._prepare(ins) for ins in code.ops]
            ops.append((op_RETURN,))
            if FUSE:
                ops = fuse(code, ops, self)
            lc = self.cache[key] = Linked(code, ops)
        return lc

    def _prepare(self, ins: list) -> tuple:
        name, *args = ins
        handler = HANDLERS[name]
        if name in ("COUNT", "FOR_CARDS", "CHOOSE_CARD", "NEIGHBOURS", "PATH", "PICK_HOLDER", "LINES"):
            args[0] = self.query(args[0])
        elif name == "SUM":
            args[1] = self.query(args[1])
        elif name == "SETS":
            args[0] = self.query(args[0])
            args[1] = [self.pred([f]) for f in args[1]]
        elif name in ("TAKE", "CAN_TAKE", "REVEAL"):
            src = args[0]
            pred = self.pred(src["filters"]) if src["filters"] else None
            args[0] = (src["zone"][0], src["zone"][1], src["end"], pred, bool(src.get("all")))
        elif name in ("PUT", "CAN_PUT", "PUT_CELL"):
            d = args[0]
            args[0] = (d["zone"][0], d["zone"][1], d["end"])
        elif name == "MATCH":
            args[0] = self.pred([args[0]])
        elif name in ("CAN_REMOVE", "CAN_MARK"):
            i = 1 if name == "CAN_REMOVE" else 2
            t = args[i]
            args[i] = t if ("it" in t or "this" in t) else self.query(t)
        elif name in ("DISTINCT", "OCCURRENCES"):
            args[0] = self.query(args[0])
        return (handler, *args)

    def query(self, q: dict) -> Query:
        if q.get("card_on_stack"):
            return Query([], None, on_stack=True)
        pred = self.pred(q["filters"]) if q["filters"] else None
        where = None
        if q.get("where"):
            where = self.link(Code.from_json(q["where"]))
            base = pred

            def pred(vm, f, c, base=base, where=where):
                return (base is None or base(vm, f, c)) and bool(vm.eval_sync(where, f.you, c.id, f.this))

        query = Query([(z, o) for z, o in q["zones"]], pred, reverse=bool(q.get("reverse")))
        query.run = self._query_code(query.zones, q["filters"], where, query.reverse)
        return query

    def _query_code(self, zones: list[tuple[str, str]], filters: list, where: Linked | None, reverse: bool):
        """`VM.query` of one query as a generated function: the zones unrolled, the filters written inline."""
        ns: dict[str, Any] = {"traits": self.traits, "defs": self.pack.cards, "_owner": _owner, "W": where,
                              "Frame": Frame, "_where": _where}
        tests = [self._filter_code(flt, ns) for flt in filters]
        lines = ["def run(vm, f):", " st = vm.state", " cards = st.cards", " zones = st.zones", " out = []"]
        if where is not None and where.pure:  # one frame for the whole query, as eval_sync would make per card
            lines.append(" w = Frame(W, f.you, None, f.this)")
            tests.append("_where(vm, w, cid)")
        elif where is not None:
            tests.append("bool(vm.eval_sync(W, f.you, cid, f.this))")
        for i, (zname, mode) in enumerate(zones):
            ns[f"z{i}"] = zname
            if mode in ("others", "all"):
                lines.append(" n = st.n")
                lines.append(f" for i in range({0 if mode == 'all' else 1}, n):")
                lines.append(f"  for cid in zones[(z{i}, (f.you + i) % n)]:")
                pad = "   "
            else:
                seat = "f.you" if mode == "you" else f"({SHARED})" if mode == "shared" else f"_owner(vm, {mode!r}, f)"
                lines.append(f" for cid in zones[(z{i}, {seat})]:")
                pad = "  "
            if tests:
                lines.append(f"{pad}if cid is not None:")
                lines.append(f"{pad} c = cards[cid]")
                lines.append(f"{pad} if {' and '.join(tests)}:")
                lines.append(f"{pad}  out.append(cid)")
            else:
                lines.append(f"{pad}if cid is not None:")
                lines.append(f"{pad} out.append(cid)")
        if reverse:
            lines.append(" out.reverse()")
        lines.append(" return out")
        exec(compile("\n".join(lines) + "\n", "<query>", "exec"), ns)
        return ns["run"]

    def pred(self, filters: list):
        """A predicate (vm, frame, card) -> bool for a filter list (all must hold)."""
        if not filters:
            return lambda vm, f, c: True
        # One generated function testing each in turn, the common tests written out inline (every test is
        # a bool, so 'and' gives what all() gives); other filters call their function from `_filter`.
        ns: dict[str, Any] = {"traits": self.traits, "defs": self.pack.cards}
        body = " and ".join(self._filter_code(flt, ns) for flt in filters)
        exec(compile(f"def every(vm, f, c):\n return {body}\n", "<filters>", "exec"), ns)
        return ns["every"]

    def _filter_code(self, flt: list, ns: dict) -> str:
        """Python source of one filter test over card `c` (constants go into `ns`)."""
        def const(v) -> str:
            name = f"k{len(ns)}"
            ns[name] = v
            return name

        kind = flt[0]
        if kind == "trait":
            return f"not {const(frozenset(flt[2]))}.isdisjoint(traits[c.defn].get({const(flt[1])}, ()))"
        if kind == "zone":
            return f"(c.zone in {const(frozenset(flt[1]))})"
        if kind == "type":
            return f"(defs[c.defn].type in {const(frozenset(flt[1]))})"
        if kind == "flag":
            return f"({const(flt[1])} in c.flags)"
        if kind == "piece":
            return f"(c.pieces.get({const(flt[1])}, 0) > 0)"
        if kind == "not":
            return f"(not {self._filter_code(flt[1], ns)})"
        if kind == "not-this":
            return "(c.id != f.this)"
        return f"{const(self._filter(flt))}(vm, f, c)"

    def _filter(self, flt: list):
        kind = flt[0]
        traits = self.traits
        if kind == "trait":
            tname, values = flt[1], frozenset(flt[2])
            return lambda vm, f, c: not values.isdisjoint(traits[c.defn].get(tname, ()))
        if kind == "zone":
            zones = frozenset(flt[1])
            return lambda vm, f, c: c.zone in zones
        if kind == "type":
            types = frozenset(flt[1])
            cards = self.pack.cards
            return lambda vm, f, c: cards[c.defn].type in types
        if kind == "flag":
            flag = flt[1]
            return lambda vm, f, c: flag in c.flags
        if kind == "piece":
            piece = flt[1]
            return lambda vm, f, c: c.pieces.get(piece, 0) > 0
        if kind == "not":
            inner = self._filter(flt[1])
            return lambda vm, f, c: not inner(vm, f, c)
        if kind == "ability":
            # multicolour counts as each colour it matches (seed 000: 多色の能力 ... それぞれの色としてカウント)
            runs = frozenset(self.run_timings.get(flt[1], [flt[1]]))
            abilities = self.pack.cards
            return lambda vm, f, c: not runs.isdisjoint(abilities[c.defn].abilities) or \
                not runs.isdisjoint(abilities[c.defn].conditions)
        if kind == "not-this":
            return lambda vm, f, c: c.id != f.this
        if kind == "stat" and flt[1] in self.pack.pieces:
            piece, op, value = flt[1], _CMP[flt[2]], flt[3]
            if isinstance(value, dict):
                code = self.link(Code.from_json(value))
                return lambda vm, f, c: op(c.pieces.get(piece, 0), vm.eval_sync(code, f.you, f.it, f.this))
            return lambda vm, f, c: op(c.pieces.get(piece, 0), value)
        if kind == "stat":
            stat, op, value = flt[1], _CMP[flt[2]], flt[3]
            if isinstance(value, dict):
                code = self.link(Code.from_json(value))
                return lambda vm, f, c: op(vm.stat(c, stat, f.you), vm.eval_sync(code, f.you, f.it, f.this))
            return lambda vm, f, c: op(vm.stat(c, stat, f.you), value)
        raise ValueError(f"unknown filter {flt!r}")


# ------------------------------------------------------------------------ the VM


class VM:
    def __init__(self, pack: CompiledPack, state: GameState, linker: Linker | None = None,
                 log: list | None = None) -> None:
        self.pack = pack
        self.state = state
        self.linker = linker or linker_for(pack)
        self.frames: list[Frame] = []
        self.pending: Decision | None = None
        self.answer: int | None = None
        self.log = log
        self.sync = 0  # >0 while evaluating a check or condition: decisions take their default
        self.steps = 0
        self.budget = STEP_BUDGET
        self.total_steps = 0

    # --- frames and running
    def push(self, code: Code | Linked, you: int, it: int | None = None, this: int | None = None,
             step: str | None = None, depth: int = 0) -> None:
        lc = code if isinstance(code, Linked) else self.linker.link(code)
        if len(self.frames) >= MAX_FRAMES:
            raise self.fault("too many nested programs (a macro or trigger that calls itself?)")
        self.frames.append(Frame(lc, you, it, this, step, depth))

    def run(self) -> Decision | None:
        """Run until a decision is needed (returned) or no frame is left (None)."""
        frames = self.frames
        left = self.budget - self.steps
        n = 0
        r = None
        try:
            while frames:
                f = frames[-1]
                ops = f.ops
                while True:
                    ins = ops[f.pc]
                    f.pc += 1
                    n += 1
                    r = ins[0](self, f, ins)
                    if r is not None:
                        break
                    if n > left:
                        raise self.fault(f"the step budget of {self.budget:,} instructions ran out without a "
                                         "decision (a loop that never ends?)")
                if r is SUSPEND:
                    self.steps = 0
                    return self.pending
        finally:
            self.total_steps += n
        self.steps += n
        return None

    def resume(self, answer: int) -> None:
        self.pending = None
        self.answer = answer

    def fault(self, message: str) -> RuntimeFault:
        f = self.frames[-1] if self.frames else None
        if f is None:
            return RuntimeFault(message, Span("<runtime>", 0, 0), "<none>")
        return RuntimeFault(message, self._frame_span(f), f.lc.name)

    def _frame_span(self, f: Frame) -> Span:
        spans = f.lc.code.spans
        if not spans:
            return Span("<runtime>", 0, 0)
        return self.pack.span(spans[min(max(f.pc - 1, 0), len(spans) - 1)])

    def trigger_loop(self) -> str:
        """Each trigger program on the frame stack once, innermost first, with its source line:
        the fault names every card of a storm, not only the one that fired last."""
        seen: dict[str, Span] = {}
        for f in reversed(self.frames):
            if f.depth > 0 and f.lc.name not in seen:
                seen[f.lc.name] = self._frame_span(f)
        return ", ".join(f"{name} at {span}" for name, span in seen.items()) or "no trigger program"

    def recall(self, f: Frame) -> Any:
        """What a decision instruction computed before it suspended, now that it runs again with the
        answer: nothing can change in between, so its options need not be computed twice."""
        m = f.memo
        if m is None:
            return None
        f.memo = None
        return m[1] if m[0] == f.pc and self.answer is not None else None

    def decide(self, f: Frame, kind: str, prompt: str, options: list, labels=None, default: int = 0,
               memo: Any = None) -> int | None:
        """The answer to a decision, or None after suspending for the agent (keeping `memo` for `recall`)."""
        if self.answer is not None:
            a = self.answer
            self.answer = None
            if not 0 <= a < len(options):
                raise self.fault(f"answer {a} is not one of the {len(options)} options of '{prompt}'")
            return a
        if len(options) == 1:
            return 0
        if self.sync:
            return default
        if memo is not None:
            f.memo = (f.pc, memo)
        f.pc -= 1  # run this instruction again, with the answer
        self.pending = Decision(f.you, kind, prompt, options,
                                labels if labels is not None else lambda: [str(o) for o in options])
        return None

    def eval_sync(self, lc: Linked, you: int, it: int | None = None, this: int | None = None,
                  step: str | None = None) -> Any:
        """Evaluate a small program to a value on the spot (conditions, cost checks)."""
        if lc.pure:  # nothing in it decides, starts a program or ends one: run it on its own frame
            frame = Frame(lc, you, it, this, step)
            ops, end = lc.ops, len(lc.code.ops)
            self.sync += 1
            try:
                while frame.pc != end:
                    ins = ops[frame.pc]
                    frame.pc += 1
                    if ins[0](self, frame, ins) is not None:  # pragma: no cover - a handler out of _PURE
                        raise RuntimeError(f"internal: {ins!r} is not pure")
            finally:
                self.sync -= 1
            return frame.stack[-1] if frame.stack else None
        saved_frames, saved_answer = self.frames, self.answer
        self.frames = [Frame(lc, you, it, this, step)]
        self.answer = None
        self.sync += 1
        result = None
        try:
            frame = self.frames[0]
            while self.frames:
                top = self.frames[-1]
                r = None
                while r is None:
                    ins = top.ops[top.pc]
                    top.pc += 1
                    r = ins[0](self, top, ins)
                if r is _RETURNED and top is frame:
                    result = frame.stack[-1] if frame.stack else None
        finally:
            self.sync -= 1
            self.frames, self.answer = saved_frames, saved_answer
        return result

    # --- card facts
    def defn(self, card: Card) -> CardDef:
        return self.pack.cards[card.defn]

    def stat(self, card: Card, name: str, seat: int) -> int:
        value = self.linker.stats[card.defn].get(name, 0)
        if self.state.live_modifiers and name in self.linker.modified_stats:
            mods = self.linker.modifiers
            cards = self.state.cards
            for mid in self.state.live_modifiers:
                m = cards[mid]
                if m.seat != seat:
                    continue
                for stat, pred, amount, zones in mods[m.defn]:
                    if stat == name and (zones is None or card.zone in zones) and pred(self, _NO_FRAME, card):
                        value += amount
        return value

    def label(self, cid: int) -> str:
        c = self.state.cards[cid]
        d = self.pack.cards[c.defn]
        where = f" at {self.linker.geo[c.zone].label(c.pos)}" if c.pos >= 0 else ""
        return f"{d.name} ({d.id}){where}"

    # --- zones
    def zone_cards(self, zname: str, seat: int) -> list[int]:
        return [c for c in self.state.zones[(zname, seat)] if c is not None]

    def query(self, q: Query, f: Frame) -> list[int]:
        if q.run is not None:
            return q.run(self, f)
        out = []
        cards = self.state.cards
        zones = self.state.zones
        pred = q.pred
        for zname, mode in q.zones:
            if mode in ("others", "all"):
                n = self.state.n
                seats = [(f.you + i) % n for i in range(0 if mode == "all" else 1, n)]
            else:
                seats = (_owner(self, mode, f),)
            for seat in seats:
                for cid in zones[(zname, seat)]:
                    if cid is not None and (pred is None or pred(self, f, cards[cid])):
                        out.append(cid)
        if q.reverse:
            out.reverse()
        return out

    def move(self, cid: int, zname: str, seat: int, end: str | None = None, pos: int = -1,
             face: str | None = None) -> None:
        st = self.state
        card = st.cards[cid]
        old = st.zones[(card.zone, card.seat)]
        if card.pos >= 0:
            old[card.pos] = None
        else:
            old.remove(cid)
        was_live = card.zone in self.linker.in_play
        new = st.zones[(zname, seat)]
        if pos >= 0:
            new[pos] = cid
        elif end == "bottom":
            new.insert(0, cid)
        else:
            new.append(cid)
        if self.log is not None:
            self.log.append(("move", self.pack.cards[card.defn].id, card.zone, card.seat, zname, seat))
        card.zone, card.seat, card.pos = zname, seat, pos
        if face is not None:
            card.face_down = face == "down"
        is_live = zname in self.linker.in_play
        if was_live != is_live:
            self._relive(card, is_live)

    def _relive(self, card: Card, live: bool) -> None:
        st = self.state
        for lst, table in ((st.live_triggers, self.linker.triggers), (st.live_modifiers, self.linker.modifiers)):
            if table[card.defn]:
                if live and card.id not in lst:
                    lst.append(card.id)
                elif not live and card.id in lst:
                    lst.remove(card.id)

    # --- prohibitions
    def prevented(self, f: Frame, name: str, seat: int, card: Card | None = None) -> bool:
        """Whether a live 'prevent' stops the running program from taking counter `name` from player
        `seat`, or (with `card`) piece `name` from that card, whose owner is `seat`. The taker is the
        owner of the card whose ability runs; rules-level programs are nobody's opponent."""
        st = self.state
        by = st.cards[f.this].seat if f.this is not None else SHARED
        opponent = 0 <= by != seat
        lk = self.linker
        if not opponent and not lk.prevent_anyone:
            return False
        if card is not None and card.zone in lk.in_play:
            for names, opp, scope in lk.prevents[card.defn]:
                if scope == "this" and name in names and (opponent or not opp):
                    return True
        if seat < 0 or (card is None and name not in self.pack.resources):  # shared counters are nobody's
            return False
        for z in lk.in_play:
            for cid in st.zones.get((z, seat), ()):
                if cid is None:
                    continue
                for names, opp, scope in lk.prevents[st.cards[cid].defn]:
                    if scope == "you" and name in names and (opponent or not opp):
                        return True
        return False

    # --- events
    def fire(self, f: Frame, verb: str, seat: int, card: int | None, name: str | None) -> Any:
        """Start every live trigger that matches; they run before the emitting program goes on."""
        lk = self.linker
        listening = lk._listening.get((verb, name))
        if listening is None:
            listening = lk.listens(verb, name)
        if not listening:
            return None
        st = self.state
        started = []
        by_verb = lk.triggers_by_verb
        for tid in list(st.live_triggers):
            tcard = st.cards[tid]
            for subject, _, tname, pred, lc in by_verb[tcard.defn].get(verb, ()):
                if (subject == "you" and seat != tcard.seat) or (subject == "opponent" and seat == tcard.seat):
                    continue
                if tname is not None and tname != name:
                    continue
                if pred is not None and (card is None or card == tid or not pred(self, f, st.cards[card])):
                    continue  # a card's triggers about cards never fire for the card itself
                started.append((lc, tcard.seat, card, tid))
        if not started:
            return None
        if f.depth + 1 > MAX_TRIGGER_DEPTH:
            names = ", ".join(sorted({self.pack.cards[st.cards[t].defn].id for _, _, _, t in started}))
            raise self.fault(f"triggers set each other off more than {MAX_TRIGGER_DEPTH} times deep "
                             f"(cards: {names}; the loop runs through {self.trigger_loop()})")
        for lc, owner, card_id, tid in reversed(started):
            self.push(lc, owner, card_id, tid, f.step, f.depth + 1)
        if self.log is not None:
            self.log.append(("trigger", verb, [self.pack.cards[st.cards[t].defn].id for _, _, _, t in started]))
        return CHANGED


def _where(vm: VM, w: Frame, cid: int) -> bool:
    """A query's pure 'where' program for card `cid`, on the query's own frame: what
    `bool(vm.eval_sync(where, you, cid, this))` gives, without a new frame per card."""
    w.it = cid
    w.pc = 0
    stack = w.stack
    stack.clear()
    ops, end = w.ops, len(w.lc.code.ops)
    vm.sync += 1
    try:
        while w.pc != end:
            ins = ops[w.pc]
            w.pc += 1
            if ins[0](vm, w, ins) is not None:  # pragma: no cover - a handler out of _PURE
                raise RuntimeError(f"internal: {ins!r} is not pure")
    finally:
        vm.sync -= 1
    return bool(stack[-1]) if stack else False


class _NoFrame:
    you = -1
    it = None
    this = None


_NO_FRAME = _NoFrame()
_RETURNED = object()

_LINKERS: dict[int, Linker] = {}


def linker_for(pack: CompiledPack) -> Linker:
    lk = _LINKERS.get(id(pack))
    if lk is None or lk.pack is not pack:
        lk = _LINKERS[id(pack)] = Linker(pack)
    return lk


# ------------------------------------------------------------------------ opcode handlers
# Each takes (vm, frame, instruction) and returns None to go on, CHANGED after pushing or
# popping frames, or SUSPEND when it needs a decision.


def op_RETURN(vm: VM, f: Frame, ins) -> Any:
    vm.frames.pop()
    return _RETURNED


def op_PUSH(vm, f, ins):
    f.stack.append(ins[1])


def op_POP(vm, f, ins):
    f.stack.pop()


def op_COUNTER(vm, f, ins):
    f.stack.append(vm.state.counters[f.you].get(ins[1], 0))


def op_GLOBAL(vm, f, ins):
    f.stack.append(vm.state.globals.get(ins[1], 0))


def op_PARAM(vm, f, ins):
    v = vm.state.params[ins[1]]
    f.stack.append(v if isinstance(v, int) else len(v))


def op_PLAYER(vm, f, ins):
    f.stack.append(_owner(vm, ins[1], f))


def op_PLAYER_COUNTER(vm, f, ins):
    seat = f.stack.pop()
    f.stack.append(vm.state.counters[seat].get(ins[1], 0))


def op_IT(vm, f, ins):
    f.stack.append(f.it)


def op_THIS(vm, f, ins):
    f.stack.append(f.this)


def op_X(vm, f, ins):
    f.stack.append(f.x)


def op_CHOOSE_X(vm, f, ins):
    lo, hi = f.stack[-2], f.stack[-1]
    options = list(range(lo, max(lo, hi) + 1))
    a = vm.decide(f, "number", "choose X", options)
    if a is None:
        return SUSPEND
    del f.stack[-2:]
    f.x = options[a]


def op_BIN(vm, f, ins):
    b = f.stack.pop()
    f.stack[-1] = _BIN[ins[1]](f.stack[-1], b)


def op_NOT(vm, f, ins):
    f.stack[-1] = not f.stack[-1]


def op_NEG(vm, f, ins):
    f.stack[-1] = -f.stack[-1]


def op_ABS(vm, f, ins):
    f.stack[-1] = abs(f.stack[-1])


def op_PER(vm, f, ins):
    n = f.stack.pop()
    f.stack[-1] = f.stack[-1] * (n // ins[1])


def op_COUNT(vm, f, ins):
    f.stack.append(len(vm.query(ins[1], f)))


def op_SUM(vm, f, ins):
    name = ins[1]
    cards = vm.state.cards
    total = 0
    if name in vm.pack.pieces:
        for cid in vm.query(ins[2], f):
            total += cards[cid].pieces.get(name, 0)
    else:
        for cid in vm.query(ins[2], f):
            total += vm.stat(cards[cid], name, f.you)
    f.stack.append(total)


def op_STAT(vm, f, ins):
    cid = f.stack[-1]
    f.stack[-1] = 0 if cid is None else vm.stat(vm.state.cards[cid], ins[1], f.you)


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
    r, c = geo.row_col(card.pos)
    f.stack[-1] = r if ins[1] == "row" else c


def op_PIECES(vm, f, ins):
    cid = f.stack[-1]
    name = ins[1]
    if name.endswith("@"):
        name = f"{name}{f.you}"
    f.stack[-1] = 0 if cid is None else vm.state.cards[cid].pieces.get(name, 0)


def op_MATCH(vm, f, ins):
    cid = f.stack[-1]
    f.stack[-1] = cid is not None and ins[1](vm, f, vm.state.cards[cid])


def op_CONDITION(vm, f, ins):
    cid = f.stack[-1]
    if cid is None:
        f.stack[-1] = False
        return
    card = vm.state.cards[cid]
    lc = vm.linker.conditions[card.defn].get(ins[1])
    if lc is None:
        f.stack[-1] = ins[1] == "requires"  # no requirement: playable; no goal: not met
        return
    f.stack[-1] = bool(vm.eval_sync(lc, f.you, f.it, cid))


def op_NTH(vm, f, ins):
    values = vm.state.params[ins[1]]
    i = f.stack[-1]
    f.stack[-1] = values[min(max(i, 0), len(values) - 1)] if values else 0


def op_SETS(vm, f, ins):
    cards = vm.state.cards
    members = [cards[c] for c in vm.query(ins[1], f)]
    slots = ins[2]
    fits = [[i for i, slot in enumerate(slots) if slot(vm, f, c)] for c in members]
    f.stack.append(_max_sets(fits, len(slots)))


def _max_sets(fits: list[list[int]], nslots: int) -> int:
    """Most disjoint sets with one card per slot, each card used once (bipartite matching)."""
    usable = [fl for fl in fits if fl]
    best = min((sum(1 for fl in usable if s in fl) for s in range(nslots)), default=0)
    for k in range(best, 0, -1):
        # k copies of each slot; match cards to slot copies
        owner: dict[tuple[int, int], int] = {}

        def augment(ci: int, seen: set, k=k, owner=owner) -> bool:
            for s in usable[ci]:
                for copy in range(k):
                    key = (s, copy)
                    if key in seen:
                        continue
                    seen.add(key)
                    if key not in owner or augment(owner[key], seen):
                        owner[key] = ci
                        return True
            return False

        matched = sum(1 for ci in range(len(usable)) if augment(ci, set()))
        if matched >= k * nslots and len(owner) == k * nslots:
            return k
    return 0


def _board(vm: VM, q: Query, f: Frame):
    """The one board zone (grid or hex) a query looks in: name, owner seat, geometry, matching cards."""
    zname, mode = q.zones[0]
    seat = _owner(vm, mode, f)
    return zname, seat, vm.linker.geo[zname], set(vm.query(q, f))


def op_PATH(vm, f, ins):
    cid = f.stack[-1]
    zname, _, _, members = _board(vm, ins[1], f)
    ortho = vm.linker.ortho[zname]  # paths run orthogonally on a grid, to any side on a hex board
    cards = vm.state.cards
    if cid is None or cid not in members:
        f.stack[-1] = 0
        return
    cells = {cards[m].pos for m in members}
    start = cards[cid].pos
    best = 0
    # The longest simple path through `start`: the best pair of disjoint arms from it.
    arms: list[tuple[int, frozenset[int]]] = []

    def arms_from(pos: int, seen: list[int]) -> None:
        arms.append((len(seen), frozenset(seen)))
        for nb in ortho.neighbours[pos]:
            if nb in cells and nb not in seen and nb != start:
                seen.append(nb)
                arms_from(nb, seen)
                seen.pop()

    arms_from(start, [])
    arms.sort(key=lambda a: -a[0])
    for i, (la, sa) in enumerate(arms):
        if la * 2 + 1 <= best:
            break
        for lb, sb in arms[i:]:
            if la + lb + 1 <= best:
                break
            if sa.isdisjoint(sb):
                best = max(best, la + lb + 1)
                break
    f.stack[-1] = best


def op_LINES(vm, f, ins):
    zname, seat, geo, members = _board(vm, ins[1], f)
    grid = vm.state.zones[(zname, seat)]
    full = 0
    for line in geo.rows if ins[2] == "rows" else geo.columns:
        for c in line:
            if grid[c] is None or grid[c] not in members:
                break
        else:
            full += 1
    f.stack.append(full)


def op_NEIGHBOURS(vm, f, ins):
    cid = f.stack[-1]
    q = ins[1]
    if len(q.zones) == 1 and q.zones[0][1] not in ("others", "all") and not q.on_stack:
        # One board: test only the cells next to the card (the query is pure; same count, far less work).
        zname, mode = q.zones[0]
        card = vm.state.cards[cid] if cid is not None else None
        if card is None or card.zone != zname or card.pos < 0:
            f.stack[-1] = 0
            return
        grid = vm.state.zones[(zname, _owner(vm, mode, f))]
        cards, pred = vm.state.cards, q.pred
        n = 0
        for nb in vm.linker.geo[zname].neighbours[card.pos]:
            c = grid[nb]
            if c is not None and (pred is None or pred(vm, f, cards[c])):
                n += 1
        f.stack[-1] = n
        return
    zname, seat, geo, members = _board(vm, ins[1], f)
    card = vm.state.cards[cid] if cid is not None else None
    if card is None or card.zone != zname or card.pos < 0:
        f.stack[-1] = 0
        return
    grid = vm.state.zones[(zname, seat)]
    f.stack[-1] = sum(1 for nb in geo.neighbours[card.pos] if grid[nb] is not None and grid[nb] in members)


def op_JUMP(vm, f, ins):
    f.pc = ins[1]


def op_JUMP_IF(vm, f, ins):
    if f.stack.pop():
        f.pc = ins[1]


def op_JUMP_IF_NOT(vm, f, ins):
    if not f.stack.pop():
        f.pc = ins[1]


def op_SWITCH(vm, f, ins):
    f.pc = ins[1][f.stack.pop()]


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


def op_BOOL(vm, f, ins):
    f.stack[-1] = bool(f.stack[-1])


def op_MAY(vm, f, ins):
    a = vm.decide(f, "may", ins[1], [False, True], ["no", "yes"], default=1)
    if a is None:
        return SUSPEND
    f.stack.append(a == 1)


def op_COUNTDOWN(vm, f, ins):
    n = f.stack[-1]
    if n > 0:
        f.stack[-1] = n - 1
    else:
        f.stack.pop()
        f.pc = ins[1]


def op_FOR_CARDS(vm, f, ins):
    q = ins[1]
    cards = [f.stack.pop()] if q.on_stack else vm.query(q, f)
    f.stack.append([cards, 0, f.it])


def op_NEXT_CARD(vm, f, ins):
    it = f.stack[-1]
    cards, i = it[0], it[1]
    if i < len(cards):
        f.it = cards[i]
        it[1] = i + 1
    else:
        f.stack.pop()
        f.it = it[2]
        f.pc = ins[1]


def op_FOR_PLAYERS(vm, f, ins):
    kind, start = ins[1], ins[2]
    st = vm.state
    n = st.n
    if kind == "chosen":
        seats = list(range(n))
        a = vm.decide(f, "player", "choose a player", seats, lambda: [f"player {s + 1}" for s in seats])
        if a is None:
            return SUSPEND
        seats = [seats[a]]
    elif kind == "ref":
        seats = [_owner(vm, start, f)]
    else:
        first = _owner(vm, start, f) if start else (st.first if kind == "turns" else f.you)
        seats = [(first + i) % n for i in range(n)]
        if kind == "each_other":
            if start is None:
                seats = [(f.you + i) % n for i in range(1, n)]
            else:
                seats = [s for s in seats if s != f.you]
    f.stack.append([seats, 0, f.you, st.active, kind == "turns"])


def op_NEXT_PLAYER(vm, f, ins):
    it = f.stack[-1]
    seats, i = it[0], it[1]
    if i < len(seats):
        f.you = seats[i]
        if it[4]:
            vm.state.active = seats[i]
            vm.state.turn += 1
            if vm.log is not None:
                vm.log.append(("turn", seats[i], vm.state.turn))
        it[1] = i + 1
    else:
        f.stack.pop()
        f.you = it[2]
        if it[4]:
            vm.state.active = it[3]
        f.pc = ins[1]


def _unreserved(vm: VM, found: list[int], seat: int) -> list[int]:
    """The cards a player may pick: not those another player reserved with a `reserves` piece (Land Claim)."""
    reserving = vm.linker.reserving
    if not reserving:
        return found
    cards = vm.state.cards
    return [c for c in found if not (p := cards[c].pieces)
            or not any(p.get(r, 0) > 0 and not p.get(f"{r}@{seat}", 0) for r in reserving)]


def op_CHOOSE_CARD(vm, f, ins):
    found = vm.recall(f)
    if found is None:
        found = _unreserved(vm, vm.query(ins[1], f), f.you)
    optional = ins[2]
    if not found:
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


def _counter_target(vm: VM, f: Frame, name: str) -> tuple[dict, dict]:
    if name in vm.pack.resources:
        return vm.state.counters[f.you], vm.pack.resources[name]
    return vm.state.globals, vm.pack.counters[name]


def op_GAIN(vm, f, ins):
    n = f.stack.pop()
    if n <= 0:
        return None
    name = ins[1]
    store, decl = _counter_target(vm, f, name)
    v = store.get(name, 0) + n
    hi = decl.get("max")
    if hi is not None and v > hi:
        v = hi
    store[name] = v
    if vm.log is not None:
        vm.log.append(("gain", f.you, name, n))
    if vm.state.live_triggers:
        return vm.fire(f, "gain", f.you, None, name)
    return None


def op_LOSE(vm, f, ins):
    n = f.stack.pop()
    if n <= 0:
        return None
    name = ins[1]
    if name in vm.linker.prevent_names and vm.prevented(f, name, f.you):
        return None
    store, decl = _counter_target(vm, f, name)
    v = store.get(name, 0) - n
    lo = decl.get("min", 0)
    if v < lo:
        v = lo
    store[name] = v
    if vm.log is not None:
        vm.log.append(("lose", f.you, name, n))
    if vm.state.live_triggers:
        return vm.fire(f, "lose", f.you, None, name)
    return None


def op_SET(vm, f, ins):
    name = ins[1]
    store, decl = _counter_target(vm, f, name)
    v = f.stack.pop()
    lo, hi = decl.get("min"), decl.get("max")
    if lo is not None and v < lo:
        v = lo
    if hi is not None and v > hi:
        v = hi
    store[name] = v


def op_HAS(vm, f, ins):
    name = ins[1]
    store, _ = _counter_target(vm, f, name)
    n = f.stack[-1]
    # a loss a 'prevent' stops cannot pay a cost
    f.stack[-1] = store.get(name, 0) >= n and not (n > 0 and name in vm.linker.prevent_names
                                                   and vm.prevented(f, name, f.you))


def op_UPTO(vm, f, ins):
    n = f.stack[-1]
    if n <= 0:
        f.stack[-1] = 0
        return None
    options = list(range(n + 1))
    a = vm.decide(f, "number", ins[1], options, default=n)
    if a is None:
        return SUSPEND
    f.stack[-1] = options[a]
    return None


def _source_candidates(vm: VM, f: Frame, src: tuple) -> tuple[list[int], bool, tuple[str, int]]:
    """The cards a source offers and whether the player chooses among them."""
    zname, mode, end, pred, take_all = src
    seat = _owner(vm, mode, f)
    zone = vm.state.zones[(zname, seat)]
    kind = vm.pack.zones[zname]["kind"]
    cards = vm.state.cards
    if take_all:
        found = [c for c in zone if c is not None and (pred is None or pred(vm, f, cards[c]))]
        return found[-1:] if kind == "pile" else found[:1], False, (zname, seat)
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
    f.refill = -1
    f.stack.append(True)
    return None


def op_CAN_TAKE(vm, f, ins):
    found, _, _ = _source_candidates(vm, f, ins[1])
    zname, mode, _, pred, _ = ins[1]
    if vm.pack.zones[zname]["kind"] == "pile" and pred is None:
        found = vm.zone_cards(zname, _owner(vm, mode, f))
    f.stack[-1] = len(found) >= f.stack[-1]


def _legal_cells(vm: VM, zname: str, seat: int) -> list[int]:
    z = vm.pack.zones[zname]
    grid = vm.state.zones[(zname, seat)]
    free = [i for i, c in enumerate(grid) if c is None]
    if z.get("placement", "anywhere") == "adjacent" and len(free) < len(grid):
        geo = vm.linker.geo[zname]
        free = [i for i in free if any(grid[nb] is not None for nb in geo.neighbours[i])]
    return free


def op_PUT(vm, f, ins):
    (zname, mode, end), face = ins[1], ins[2]
    cid = f.it
    if cid is None:
        return None
    seat = _owner(vm, mode, f)
    z = vm.pack.zones[zname]
    geo = vm.linker.geo[zname]
    if geo is not None:
        cells = vm.recall(f) or _legal_cells(vm, zname, seat)
        if not cells:
            return None  # no legal place: the card stays where it is
        a = vm.decide(f, "cell", f"where to put {vm.pack.cards[vm.state.cards[cid].defn].name}", cells,
                      lambda: [geo.label(c) for c in cells], memo=cells)
        if a is None:
            return SUSPEND
        vm.move(cid, zname, seat, pos=cells[a], face=face)
        return None
    if z["kind"] == "slot" and vm.zone_cards(zname, seat):
        return None  # a slot holds one card
    vm.move(cid, zname, seat, end=end, face=face)
    return None


def op_PUT_CELL(vm, f, ins):
    (zname, mode, _), face = ins[1], ins[2]
    col = f.stack.pop()
    row = f.stack.pop()
    cid = f.it
    if cid is None:
        return None
    seat = _owner(vm, mode, f)
    geo = vm.linker.geo[zname]
    cell = geo.cell(row, col) if geo is not None else None  # the checker allows boards only
    # A cell that does not exist, is taken or breaks the board's placement rule: the card stays where it is.
    if cell is not None and cell in _legal_cells(vm, zname, seat):
        vm.move(cid, zname, seat, pos=cell, face=face)
    return None


def op_CAN_PUT(vm, f, ins):
    zname, mode, _ = ins[1]
    seat = _owner(vm, mode, f)
    z = vm.pack.zones[zname]
    if vm.linker.geo[zname] is not None:
        f.stack.append(bool(_legal_cells(vm, zname, seat)))
    elif z["kind"] == "slot":
        f.stack.append(not vm.zone_cards(zname, seat))
    else:
        f.stack.append(True)


def _room(vm: VM, card: Card, piece: str, seat: int) -> int | None:
    cap = vm.linker.capacity[piece]
    if cap is None:
        return None
    return vm.stat(card, cap, seat) - card.pieces.get(piece, 0)


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
            found = [c for c in vm.query(q, f) if (room := _room(vm, cards[c], piece, f.you)) is None or room > 0]
    else:
        found = [c for c in vm.query(q, f) if cards[c].pieces.get(piece, 0) > 0
                 and not (piece in vm.linker.prevent_names and vm.prevented(f, piece, cards[c].seat, cards[c]))]
    if found:
        found = _unreserved(vm, found, f.you)
    if not found:
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


def op_ADD_PIECES(vm, f, ins):
    n = f.stack.pop()
    piece, owned = ins[1], ins[2]
    cid = f.it
    if cid is None or n <= 0:
        return None
    card = vm.state.cards[cid]
    room = _room(vm, card, piece, f.you)
    if room is not None:
        n = min(n, room)
    if n <= 0:
        return None
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
    if vm.state.live_triggers:
        result = vm.fire(f, "place", f.you, cid, piece) or result
    return result


def op_TAKE_PIECES(vm, f, ins):
    n = f.stack.pop()
    piece, owned = ins[1], ins[2]
    cid = f.it
    if cid is None or n <= 0:
        return None
    card = vm.state.cards[cid]
    n = min(n, card.pieces.get(piece, 0))
    if n <= 0 or (piece in vm.linker.prevent_names and vm.prevented(f, piece, card.seat, card)):
        return None
    card.pieces[piece] -= n
    if owned:
        key = f"{piece}@{f.you}"
        card.pieces[key] = max(card.pieces.get(key, 0) - n, 0)
    if vm.log is not None:
        vm.log.append(("remove", f.you, piece, n, vm.pack.cards[card.defn].id))
    if vm.state.live_triggers:
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
        cid = f.it if "it" in target else f.this
        have = cards[cid].pieces.get(piece, 0) if cid is not None else 0
        if have and guard and vm.prevented(f, piece, cards[cid].seat, cards[cid]):
            have = 0
    f.stack[-1] = have >= f.stack[-1]


def op_MARK(vm, f, ins):
    cid = f.stack.pop()
    if cid is None:
        return None
    flags = vm.state.cards[cid].flags
    if ins[2]:
        flags.add(ins[1])
    else:
        flags.discard(ins[1])
    if vm.log is not None:
        vm.log.append(("mark", ins[1], ins[2], vm.pack.cards[vm.state.cards[cid].defn].id))
    if vm.state.live_triggers:
        return vm.fire(f, ins[1] if ins[2] else f"un{ins[1]}", f.you, cid, None)
    return None


def op_CAN_MARK(vm, f, ins):
    flag, on, target = ins[1], ins[2], ins[3]
    cards = vm.state.cards
    if isinstance(target, Query):
        candidates = vm.query(target, f)
    else:
        cid = f.it if "it" in target else f.this
        candidates = [cid] if cid is not None else []
    f.stack.append(any((flag in cards[c].flags) != on for c in candidates))


def op_FLIP(vm, f, ins):
    cid = f.stack.pop()
    if cid is None:
        return
    card = vm.state.cards[cid]
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


def op_SCORE(vm, f, ins):
    n = f.stack.pop()
    step = f.step or "vp"
    sc = vm.state.scores[f.you]
    sc[step] = sc.get(step, 0) + n
    if vm.log is not None:
        vm.log.append(("score", f.you, step, n))


def op_EMIT(vm, f, ins):
    if vm.log is not None:
        about = vm.pack.cards[vm.state.cards[f.it].defn].id if f.it is not None else None
        vm.log.append(("emit", ins[1], ins[2], f.you, about))
    if vm.state.live_triggers:
        return vm.fire(f, ins[1], f.you, f.it, ins[2])
    return None


def op_PASS_FIRST(vm, f, ins):
    # The marker moves relative to its holder: "to left neighbour" is the first player's left neighbour.
    st = vm.state
    who = ins[1]
    if who == "left":
        st.first = (st.first + 1) % st.n
    elif who == "right":
        st.first = (st.first - 1) % st.n
    else:
        st.first = _owner(vm, who, f)


def op_NPLAYERS(vm, f, ins):
    f.stack.append(vm.state.n)


def op_DUP(vm, f, ins):
    f.stack.append(f.stack[-1])


def op_DISTINCT(vm, f, ins):
    cards = vm.state.cards
    defs = vm.pack.cards
    f.stack.append(len({defs[cards[c].defn].id for c in vm.query(ins[1], f)}))


def op_OCCURRENCES(vm, f, ins):
    trait, values = ins[2], set(ins[3])
    cards = vm.state.cards
    defs = vm.pack.cards
    if ins[1].on_stack:  # occurrences(it, ...): one card, or none when 'it' is unset
        c = f.stack.pop()
        found = [] if c is None else [c]
    else:
        found = vm.query(ins[1], f)
    f.stack.append(sum(1 for c in found for v in defs[cards[c].defn].traits.get(trait, ()) if v in values))


def op_END_GAME(vm, f, ins):
    vm.state.over = True
    vm.frames.clear()
    return CHANGED


def op_SHUFFLE(vm, f, ins):
    zname, mode = ins[1]
    zone = vm.state.zones[(zname, _owner(vm, mode, f))]
    vm.state.rng.shuffle(zone)


def _activation_order(vm: VM, f: Frame, timing: str) -> tuple[list[int], list[int]]:
    act = vm.pack.activation
    linker = vm.linker
    runs = linker.run_timings.get(timing, [timing])
    cards = vm.state.cards

    def has(cid: int) -> bool:
        ab = linker.abilities[cards[cid].defn]
        return any(t in ab for t in runs)

    block = [c for z in act.get("block", []) for c in vm.zone_cards(z, f.you) if has(c)]
    main_zone = act.get("main")
    if main_zone:
        main = [c for c in vm.zone_cards(main_zone, f.you) if has(c)]
        if act.get("direction") == "reverse":
            main.reverse()
    else:
        main = [c for z in vm.pack.zones if z in linker.in_play and z not in act.get("block", [])
                for c in vm.zone_cards(z, f.you) if has(c)]
    return block, main


def op_ACTIVATION(vm, f, ins):
    timing = ins[1]
    block, main = _activation_order(vm, f, timing)
    position = vm.pack.activation.get("block-position", "before")
    if block and main and position == "before-or-after":
        act = vm.pack.activation
        block_name = " and ".join(act.get("block", []))
        main_name = act.get("main", "the rest")
        a = vm.decide(f, "option", f"{timing}: {block_name} before or after {main_name}",
                      ["before", "after"], [f"{block_name} first", f"{main_name} first"])
        if a is None:
            return SUSPEND
        order = block + main if a == 0 else main + block
    elif position == "after":
        order = main + block
    else:
        order = block + main
    vm.state.activated[f.you] = set()
    f.stack.append([order, 0])
    return None


def op_NEXT_ACTIVATION(vm, f, ins):
    it = f.stack[-1]
    if it[1] < len(it[0]):
        f.it = it[0][it[1]]
        it[1] += 1
    else:
        f.stack.pop()
        vm.state.activated[f.you] = None  # the activation is over: 'once per card' no longer applies
        f.pc = ins[1]


def op_RUN_ABILITY(vm, f, ins):
    timing, optional = ins[1], ins[2]
    cid = f.stack[-1]
    if cid is None:
        f.stack.pop()
        return None
    card = vm.state.cards[cid]
    linker = vm.linker
    abilities = linker.abilities[card.defn]
    for chosen in linker.run_timings.get(timing) or (timing,):
        if chosen in abilities:
            break
    else:
        f.stack.pop()
        return None
    # Once per card per activation: only while an activation of this player is running.
    once = chosen in linker.once_timings and vm.state.activated[f.you] is not None
    if once and cid in vm.state.activated[f.you]:
        f.stack.pop()
        return None
    if optional:
        check = linker.checks[card.defn].get(chosen)
        if check is not None and not vm.eval_sync(check, f.you, cid, cid, f.step):
            f.stack.pop()
            return None  # the cost cannot be paid in full: the ability does nothing
        a = vm.decide(f, "may", f"activate {vm.pack.cards[card.defn].name} ({chosen})?", [False, True],
                      ["no", "yes"], default=1)
        if a is None:
            return SUSPEND
        if a == 0:
            f.stack.pop()
            return None
    f.stack.pop()
    if once:
        vm.state.activated[f.you].add(cid)
    if vm.log is not None:
        vm.log.append(("activate", f.you, vm.pack.cards[card.defn].id, chosen))
    vm.push(abilities[chosen], f.you, cid, cid, f.step, f.depth)
    return CHANGED


def op_REVEAL(vm, f, ins):
    n = f.stack.pop()
    zname, mode, end, _, _ = ins[1]
    zone = vm.zone_cards(zname, _owner(vm, mode, f))
    if n <= 0 or not zone:
        return
    idx = n - 1
    if idx >= len(zone):
        f.it = None
    else:
        f.it = zone[idx] if end == "bottom" else zone[-1 - idx]


HANDLERS: dict[str, Callable] = {name[3:]: fn for name, fn in globals().items() if name.startswith("op_")}


def _check_table() -> None:
    from cardsmith.compiler.opcodes import OPS

    missing = [op.name for op in OPS if op.name not in HANDLERS]
    if missing:  # pragma: no cover - a developer error caught at import
        raise ImportError(f"opcodes without a VM handler: {missing}")


_check_table()


# ------------------------------------------------------------------------ superinstructions
# At link time each region of a program between two entry points (the start, where a loop jumps back or a
# handler jumps to, and where a frame resumes: after a decision that may ask, or after the frames an
# instruction started) becomes one Python function, generated from the bytecode: stack values live in
# local variables, constants are folded in, and arithmetic, comparisons, counters, draws and jumps run
# inline; every other opcode calls its handler as before. Forward jumps inside a region stay inside
# it: the region is a sequence of blocks, each run when `nxt` names it, so an if/else costs no trip
# through the dispatch loop; a backward jump (a loop) goes back to the dispatcher, which counts it
# against the step budget. The function stands in the place of the region's first instruction; the
# other instructions stay where they were, so a program that resumes in the middle of a region (after a
# decision, or after a trigger ran) simply runs them one by one. Before a handler is called the stack
# is written back and `pc` is set as the dispatch loop would set it, and a handler that returns
# something or moves `pc` ends the region: handlers see exactly what they would see without fusion.

_INLINE = frozenset({"PUSH", "POP", "DUP", "COUNTER", "GLOBAL", "IT", "THIS", "X", "NPLAYERS", "BIN", "NOT", "NEG",
                     "ABS", "PER", "JUMP", "JUMP_IF", "JUMP_IF_NOT", "COUNTDOWN", "SWITCH"})
_TARGETS = ("JUMP", "JUMP_IF", "JUMP_IF_NOT", "COUNTDOWN", "NEXT_CARD", "NEXT_PLAYER", "NEXT_ACTIVATION")
_INLINE_JUMPS = ("JUMP", "JUMP_IF", "JUMP_IF_NOT", "COUNTDOWN", "NEXT_CARD")  # jumps a region makes itself
_BIN_INLINE = {"+": "({a} + {b})", "-": "({a} - {b})", "*": "({a} * {b})", "/": "_div({a}, {b})",
               "%": "({a} % {b} if {b} else 0)", "min": "min({a}, {b})", "max": "max({a}, {b})",
               "and": "bool({a} and {b})", "or": "bool({a} or {b})", "=": "({a} == {b})", "!=": "({a} != {b})",
               "<": "({a} < {b})", "<=": "({a} <= {b})", ">": "({a} > {b})", ">=": "({a} >= {b})"}


def _entry_points(code: Code, pack: CompiledPack | None = None) -> set[int]:
    """Where a region must start: the start, the target of a backward jump or of a jump a handler makes,
    where a frame resumes, and the target of a forward jump that leaves its region."""
    from cardsmith.compiler.opcodes import BY_NAME

    heads = {0}
    jumps: list[tuple[int, int]] = []  # (from, to) of the jumps regions make inline
    for i, ins in enumerate(code.ops):
        name = ins[0]
        if name in _INLINE_JUMPS:
            jumps.append((i, _jump_dest(code, ins[1])))
        elif name == "SWITCH":
            jumps.extend((i, _jump_dest(code, t)) for t in ins[1])
        elif name in _TARGETS:
            heads.add(ins[1])  # NEXT_PLAYER, NEXT_ACTIVATION: their handlers jump
        op = BY_NAME.get(name)
        if name in ("RUN_ABILITY", "EMIT", "END_GAME") or \
                (op is not None and op.decides and not _never_asks(ins, pack)):
            heads.add(i + 1)  # resumed here after a decision, or after the frames it started
    heads.update(t for i, t in jumps if t <= i)
    while True:  # a forward jump out of its region lands on the start of another
        starts = sorted(heads)
        more = {t for i, t in jumps if t > i and t not in heads
                and any(i < h <= t for h in starts[bisect.bisect_right(starts, i):][:1])}
        if not more:
            return heads
        heads |= more


def _jump_dest(code: Code, t: int) -> int:
    """Where a jump to `t` ends up once the unconditional jumps there are followed (each of which would
    be a dispatch of its own)."""
    seen = set()
    while t < len(code.ops) and code.ops[t][0] == "JUMP" and t not in seen:
        seen.add(t)
        t = code.ops[t][1]
    return t


def _never_asks(ins: list, pack: CompiledPack | None) -> bool:
    """A decision opcode that, as prepared for this pack, can never ask: taking the top card of a pile
    (a draw) or putting a card into a zone without cells. It need not end a run (a run may stop in the
    middle anyway: what follows then runs one instruction at a time)."""
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


def fuse(code: Code, ops: list[tuple], linker: Linker) -> list[tuple]:
    """The prepared instructions with each region of two or more replaced (at its start) by a superinstruction."""
    heads = _entry_points(code, linker.pack)
    n = len(code.ops)
    out = list(ops)
    for start in sorted(h for h in heads if h < n):
        end = start + 1
        while end < n and end not in heads:
            end += 1
        if end - start >= 2:
            out[start] = (_fuse_on_first_run, code, ops, start, end, out, linker)
    return out


def _fuse_on_first_run(vm, f, ins):
    """A region is compiled when it first runs (most card abilities never run in a given game); it then
    takes this instruction's place in the shared instruction list."""
    _, code, ops, start, end, out, linker = ins
    fn = _compile_run(code, ops, start, end, linker)
    new = (fn,) if fn is not None else ops[start]
    out[start] = new
    return new[0](vm, f, new)


def _param_value(v: Any) -> int:
    return v if isinstance(v, int) else len(v)


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


def _sum_modified(vm: VM, found: list[int], name: str, seat: int) -> int:
    cards = vm.state.cards
    total = 0
    for cid in found:
        total += vm.stat(cards[cid], name, seat)
    return total


# Opcodes that change counters or read card facts, written inline in a run when the pack allows it (the
# counter's store, bounds and whether any trigger listens are known when the pack is linked). The code
# does what the handler does, in the same order; the stack is written back and `pc` set before `fire`,
# which may start trigger programs, exactly as before a handler call.
_EFFECTS = frozenset({"GAIN", "LOSE", "SCORE", "BOOL", "PARAM", "PIECES", "STAT", "HAS", "PLAYER", "TAKE", "PUT",
                      "MARK", "SET"})
_INT_ATOM = re.compile(r"\((-?\d+)\)")


def _inline_effect(linker: Linker, raw: list, k: int, const, temp, pop, flush, sym: list, lines: list) -> bool:
    """Append the inline code of effect opcode `raw` (at index k) to `lines`; False: call its handler."""
    name = raw[0]
    pack = linker.pack
    if name == "BOOL":
        sym.append(temp(f"bool({pop()})"))
        return True
    if name == "PARAM":
        sym.append(temp(f"_param(st.params[{const(raw[1])}])"))
        return True
    if name == "PLAYER":
        if raw[1] != "you":
            return False
        sym.append(temp("f.you"))
        return True
    if name in ("PIECES", "STAT"):
        c = pop()
        key = const(raw[1])
        if name == "STAT":
            sym.append(temp(f"0 if {c} is None else vm.stat(st.cards[{c}], {key}, f.you)"))
        else:
            if raw[1].endswith("@"):
                key = f"({key} + str(f.you))"
            sym.append(temp(f"0 if {c} is None else st.cards[{c}].pieces.get({key}, 0)"))
        return True
    if name in ("TAKE", "PUT"):
        return _inline_move(linker, raw, k, const, temp, flush, sym, lines)
    if name == "MARK":
        flag, on = raw[1], raw[2]
        c = pop()
        flush()
        verb = flag if on else f"un{flag}"
        lines.append(f" if {c} is not None:")
        lines.append(f"  st.cards[{c}].flags.{'add' if on else 'discard'}({const(flag)})")
        lines.append("  if log is not None:")
        lines.append(f"   log.append(('mark', {const(flag)}, {const(on)}, vm.pack.cards[st.cards[{c}].defn].id))")
        if linker.listens(verb, None):
            lines.append("  if st.live_triggers:")
            lines.append(f"   f.pc = {k + 1}")
            lines.append(f"   r = vm.fire(f, {const(verb)}, f.you, {c}, None)")
            lines.append("   if r is not None:")
            lines.append("    return r")
        return True
    if name == "SCORE":
        n = pop()
        lines.append(f" sc = st.scores[f.you]; step = f.step or 'vp'; sc[step] = sc.get(step, 0) + {n}")
        lines.append(" if log is not None:")
        lines.append(f"  log.append(('score', f.you, step, {n}))")
        return True
    counter = raw[1]
    if counter in pack.resources:
        store, decl = "st.counters[f.you]", pack.resources[counter]
    elif counter in pack.counters:
        store, decl = "st.globals", pack.counters[counter]
    else:
        return False  # the handler reports it
    key = const(counter)
    if name == "SET":
        v = temp(pop())
        lo, hi = decl.get("min"), decl.get("max")
        if lo is not None:
            lines.append(f" if {v} < {const(lo)}: {v} = {const(lo)}")
        if hi is not None:
            lines.append(f" if {v} > {const(hi)}: {v} = {const(hi)}")
        lines.append(f" {store}[{key}] = {v}")
        return True
    if name in ("HAS", "LOSE") and counter in linker.prevent_names:
        return False  # the handler asks whether a 'prevent' stops the loss
    if name == "HAS":
        need = pop()
        sym.append(temp(f"{store}.get({key}, 0) >= {need}"))
        return True
    n = pop()
    m = _INT_ATOM.fullmatch(n)
    if m is not None and int(m.group(1)) <= 0:
        return True  # gains or loses nothing
    flush()
    pad = "" if m is not None else " "
    if m is None:
        lines.append(f" if {n} > 0:")
    verb = name.lower()
    lines.append(f"{pad} d = {store}")
    if name == "GAIN":
        lines.append(f"{pad} v = d.get({key}, 0) + {n}")
        if decl.get("max") is not None:
            lines.append(f"{pad} if v > {const(decl['max'])}: v = {const(decl['max'])}")
    else:
        lines.append(f"{pad} v = d.get({key}, 0) - {n}")
        lo = const(decl.get("min", 0))
        lines.append(f"{pad} if v < {lo}: v = {lo}")
    lines.append(f"{pad} d[{key}] = v")
    lines.append(f"{pad} if log is not None:")
    lines.append(f"{pad}  log.append(({verb!r}, f.you, {key}, {n}))")
    if linker.listens(verb, counter):
        lines.append(f"{pad} if st.live_triggers:")
        lines.append(f"{pad}  f.pc = {k + 1}")
        lines.append(f"{pad}  r = vm.fire(f, {verb!r}, f.you, None, {key})")
        lines.append(f"{pad}  if r is not None:")
        lines.append(f"{pad}   return r")
    return True


def _seat_code(mode: str, const) -> str:
    return "f.you" if mode == "you" else f"({SHARED})" if mode == "shared" else f"_owner(vm, {const(mode)}, f)"


def _inline_move(linker: Linker, raw: list, k: int, const, temp, flush, sym: list, lines: list) -> bool:
    """A draw, inline: TAKE of the top (or bottom) card of a pile, and PUT into a zone without cells.
    Anything else, and an empty pile (refilled by its on-empty program), goes to the handler."""
    if not _never_asks(raw, linker.pack):
        return False
    if raw[0] == "PUT":
        dest, face = raw[1], raw[2]
        zname, mode = dest["zone"]
        if linker.pack.zones[zname]["kind"] == "slot":
            return False
        lines.append(" c = f.it")
        lines.append(" if c is not None:")
        lines.append(f"  vm.move(c, {const(zname)}, {_seat_code(mode, const)}, {const(dest['end'])}, -1, "
                     f"{const(face)})")
        return True
    src = raw[1]
    zname, mode = src["zone"]
    if src.get("all") or linker.pack.zones[zname]["kind"] != "pile":
        return False
    flush()
    got = f"t_take{k}"
    handler = linker._prepare(raw)
    lines.append(f" z = st.zones[({const(zname)}, {_seat_code(mode, const)})]")
    lines.append(" if z:")
    lines.append(f"  f.it = z[{0 if src['end'] == 'bottom' else -1}]")
    lines.append("  f.refill = -1")
    lines.append(f"  {got} = True")
    lines.append(" else:")
    lines.append(f"  f.pc = {k + 1}")
    lines.append(f"  r = {const(handler[0])}(vm, f, {const(handler)})")
    lines.append(f"  if r is not None or f.pc != {k + 1}:")
    lines.append("   return r")
    lines.append(f"  {got} = s.pop()")
    sym.append(got)
    return True


def _compile_run(code: Code, ops: list[tuple], start: int, end: int, linker: Linker):
    consts: dict[str, Any] = {"_div": _div, "_param": _param_value, "_owner": _owner, "_sum_pieces": _sum_pieces,
                              "_sum_stats": _sum_stats, "_sum_modified": _sum_modified, "_RETURNED": _RETURNED}
    # Blocks: the region's start, the targets of its forward jumps, and what follows a jump.
    firsts = {start}
    for k in range(start, end):
        raw = code.ops[k]
        if raw[0] in _INLINE_JUMPS or raw[0] == "SWITCH":
            targets = raw[1] if raw[0] == "SWITCH" else [raw[1]]
            firsts.update(t for t in (_jump_dest(code, t) for t in targets) if k < t < end)
            if k + 1 < end:
                firsts.add(k + 1)
    block_of = {k: i for i, k in enumerate(sorted(firsts))}
    sym: list[str] = []  # the top of the stack, as atoms (temporaries or literals), bottom first
    temps = 0
    lines: list[str] = []  # the current block's code, indented one space

    def const(v) -> str:
        if v is None or isinstance(v, bool):
            return repr(v)
        if type(v) is int:
            return f"({v})"
        name = f"K{len(consts)}"
        consts[name] = v
        return name

    def temp(expr: str) -> str:
        nonlocal temps
        t = f"t{temps}"
        temps += 1
        lines.append(f" {t} = {expr}")
        return t

    def pop() -> str:
        return sym.pop() if sym else temp("s.pop()")

    def flush() -> None:
        if len(sym) == 1:
            lines.append(f" s.append({sym[0]})")
        elif sym:
            lines.append(f" s.extend(({', '.join(sym)},))")
        sym.clear()

    looping = False

    def finish(pad: str) -> None:
        """The end of the program: what RETURN does, here, unless the frame is not on the frame stack (a
        pure program that eval_sync or a query's 'where' runs on a frame of its own)."""
        lines.append(f"{pad}fr = vm.frames")
        lines.append(f"{pad}if fr and fr[-1] is f:")
        lines.append(f"{pad} f.pc = {len(code.ops) + 1}")
        lines.append(f"{pad} fr.pop()")
        lines.append(f"{pad} return _RETURNED")
        lines.append(f"{pad}f.pc = {len(code.ops)}")
        lines.append(f"{pad}return None")

    def goto(k: int, t: int, pad: str) -> None:
        """Jump from instruction k to t: the block that starts there, back to the region's start (a
        loop, counted against the step budget as the dispatcher would count it), or out."""
        nonlocal looping
        t = _jump_dest(code, t)
        if k < t < end:
            lines.append(f"{pad}nxt = {block_of[t]}")
        elif t == len(code.ops):
            finish(pad)
        elif t == start:
            looping = True
            lines.append(f"{pad}vm.steps += 1")
            lines.append(f"{pad}if vm.steps > vm.budget:  # the dispatch loop stops a loop that never ends")
            lines.append(f"{pad} f.pc = {t}")
            lines.append(f"{pad} return None")
            lines.append(f"{pad}continue")
        else:
            lines.append(f"{pad}f.pc = {t}")
            lines.append(f"{pad}return None")

    blocks: list[list[str]] = []
    falls = True  # the current block may go on into the next one
    for k in range(start, end):
        if k != start and k in block_of:
            flush()
            if falls:
                lines.append(f" nxt = {block_of[k]}")
            blocks.append(lines)
            lines = []
        falls = True
        raw = code.ops[k]
        name = raw[0]
        if name in _EFFECTS and _inline_effect(linker, raw, k, const, temp, pop, flush, sym, lines):
            continue
        if name == "COUNT" and ops[k][1].run is not None:  # a query reads no stack: no write-back needed
            sym.append(temp(f"len({const(ops[k][1].run)}(vm, f))"))
            continue
        if name == "SUM" and ops[k][2].run is not None:
            found = f"{const(ops[k][2].run)}(vm, f)"
            if raw[1] in linker.pack.pieces:
                sym.append(temp(f"_sum_pieces(st.cards, {found}, {const(raw[1])})"))
            elif raw[1] not in linker.modified_stats:  # no modifier touches it: the card's own stat
                sym.append(temp(f"_sum_stats({const(linker.stats)}, st.cards, {found}, {const(raw[1])})"))
            else:
                sym.append(temp(f"_sum_modified(vm, {found}, {const(raw[1])}, f.you)"))
            continue
        if name == "NEXT_CARD":
            flush()
            lines.append(" nc = s[-1]")
            lines.append(" if nc[1] < len(nc[0]):")
            lines.append("  f.it = nc[0][nc[1]]")
            lines.append("  nc[1] += 1")
            goto(k, k + 1, "  ")
            lines.append(" else:")
            lines.append("  s.pop()")
            lines.append("  f.it = nc[2]")
            goto(k, raw[1], "  ")
            falls = False
            continue
        if name not in _INLINE:
            flush()
            consts[f"H{k}"], consts[f"I{k}"] = ops[k][0], ops[k]
            lines.append(f" f.pc = {k + 1}")
            lines.append(f" r = H{k}(vm, f, I{k})")
            lines.append(f" if r is not None or f.pc != {k + 1}:")
            lines.append("  return r")
            continue
        if name == "PUSH":
            sym.append(const(raw[1]))
        elif name == "POP":
            if sym:
                sym.pop()
            else:
                lines.append(" s.pop()")
        elif name == "DUP":
            sym.append(sym[-1] if sym else temp("s[-1]"))
        elif name == "COUNTER":
            sym.append(temp(f"st.counters[f.you].get({const(raw[1])}, 0)"))
        elif name == "GLOBAL":
            sym.append(temp(f"st.globals.get({const(raw[1])}, 0)"))
        elif name == "IT":
            sym.append(temp("f.it"))
        elif name == "THIS":
            sym.append(temp("f.this"))
        elif name == "X":
            sym.append(temp("f.x"))
        elif name == "NPLAYERS":
            sym.append(temp("st.n"))
        elif name == "BIN":
            b, a = pop(), pop()
            sym.append(temp(_BIN_INLINE[raw[1]].format(a=a, b=b)))
        elif name == "NOT":
            sym.append(temp(f"not {pop()}"))
        elif name == "NEG":
            a = pop()
            m = _INT_ATOM.fullmatch(a)
            sym.append(f"({-int(m.group(1))})" if m else temp(f"-{a}"))
        elif name == "ABS":
            sym.append(temp(f"abs({pop()})"))
        elif name == "PER":
            nn, a = pop(), pop()
            sym.append(temp(f"{a} * {nn}" if raw[1] == 1 else f"{a} * ({nn} // {const(raw[1])})"))
        elif name == "JUMP":
            flush()
            goto(k, raw[1], " ")
            falls = False
        elif name == "SWITCH":
            c = pop()
            flush()
            dests = [_jump_dest(code, t) for t in raw[1]]
            if all(k < t < end for t in dests):
                lines.append(f" nxt = {const(tuple(block_of[t] for t in dests))}[{c}]")
            else:
                lines.append(f" f.pc = {const(tuple(dests))}[{c}]")
                lines.append(" return None")
            falls = False
        elif name in ("JUMP_IF", "JUMP_IF_NOT"):
            c = pop()
            flush()
            lines.append(f" if {'' if name == 'JUMP_IF' else 'not '}{c}:")
            goto(k, raw[1], "  ")
            lines.append(" else:")
            goto(k, k + 1, "  ")
            falls = False
        elif name == "COUNTDOWN":
            flush()
            lines.append(" c = s[-1]")
            lines.append(" if c > 0:")
            lines.append("  s[-1] = c - 1")
            goto(k, k + 1, "  ")
            lines.append(" else:")
            lines.append("  s.pop()")
            goto(k, raw[1], "  ")
            falls = False
    flush()
    if falls and end == len(code.ops):
        finish(" ")
    elif falls:
        lines.append(f" f.pc = {end}")
        lines.append(" return None")
    blocks.append(lines)
    src_lines = ["def run(vm, f, ins):", " st = vm.state", " s = f.stack", " log = vm.log"]
    pad = ""
    if looping:
        src_lines.append(" while True:")
        pad = " "
    for i, body in enumerate(blocks):
        if i == 0:
            src_lines.extend(pad + line for line in body)
        else:
            src_lines.append(f"{pad} if nxt == {i}:")
            src_lines.extend(pad + " " + line for line in body)
    src = "\n".join(src_lines) + "\n"
    try:
        exec(compile(src, f"<fused {code.name} [{start}:{end}]>", "exec"), consts)
    except (SyntaxError, RecursionError):  # pragma: no cover - a program too large to fuse runs unfused
        return None
    fn = consts["run"]
    fn.source = src
    return fn


# Opcodes that only compute values (or jump): they never decide, start or end a program, nor change the
# state. A program of these alone is "pure" (see Linked.pure).
_PURE = frozenset({"PUSH", "POP", "DUP", "COUNTER", "GLOBAL", "PARAM", "PLAYER", "PLAYER_COUNTER", "IT", "THIS",
                   "X", "NPLAYERS", "BIN", "NOT", "NEG", "ABS", "PER", "COUNT", "SUM", "STAT", "PLACE_OF", "PIECES",
                   "MATCH", "CONDITION", "NTH", "SETS", "PATH", "LINES", "NEIGHBOURS", "JUMP", "JUMP_IF",
                   "JUMP_IF_NOT", "DISTINCT", "OCCURRENCES", "HAS", "CAN_TAKE", "CAN_PUT", "CAN_REMOVE", "CAN_MARK"})
