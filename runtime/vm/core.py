"""The VM's value types: frames, decisions, prepared programs and queries, faults, and the small
helpers every opcode family shares (who a player word names, arithmetic and comparisons)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardsmith.bytecode import Code, Span
from cardsmith.runtime.state import SHARED

# Instructions between two decisions. The built-in packs need at most about 300 (every pack, random games); a
# loop that never ends stops here, having taken a few seconds and tens of MB (its events are kept for the log).
STEP_BUDGET = 250_000
# the work nested in instructions between two decisions (conditions evaluated, trial instructions, payment
# search states): an instruction that runs a trial may do much, so the step budget alone does not bound time
WORK_BUDGET = 1_000_000
WORK_COPY = 40  # what a copy of the game (each run of a trial) counts as: about 40 instructions' time
MAX_TRIGGER_DEPTH = 40
MAX_FRAMES = 400
MAX_VALUE = 10**18  # the largest number a counter, a piece count, a score or a local name may hold
MAX_OPTIONS = 10_000  # the most numbers 'choose X' and 'up to N' may offer
MAX_SEARCH = 1_000_000  # the work path() may do for one answer (steps of search, cells counted for bounds)

CHANGED = object()  # a handler pushed or popped frames: fetch the top frame again
SUSPEND = object()  # a decision is pending
RETURNED = object()  # a program ended (its frame is gone)


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


# Opcodes that only compute values (or jump): they never decide, start or end a program, nor change the
# state. A program of these alone is "pure" (see Linked.pure).
PURE = frozenset({"PUSH", "POP", "DUP", "LOCAL", "TOTAL_SCORE", "COUNTER", "GLOBAL", "PARAM", "PLAYER",
                  "PLAYER_COUNTER", "IT", "THIS", "PLACED", "BEST", "COUNT_PLAYERS",
                  "X", "NPLAYERS", "BIN", "NOT", "NEG", "ABS", "PER", "COUNT", "SUM", "STAT", "PLACE_OF", "PIECES",
                  "MATCH", "CONDITION", "NTH", "SETS", "PATH", "LINES", "NEIGHBOURS", "JUMP", "JUMP_IF",
                  "JUMP_IF_NOT", "DISTINCT", "OCCURRENCES", "HAS", "CAN_TAKE", "CAN_PUT", "CAN_REMOVE", "CAN_MARK",
                  # these try programs on a copy of the game: the game itself is left as it was
                  "CAN_PAY", "CAN_ACTIVATE", "CAN_PERFORM"})


class Linked:
    """A Code with its opcodes resolved to handler functions and operands prepared."""

    __slots__ = ("code", "name", "ops", "pure")

    def __init__(self, code: Code, ops: list[tuple]) -> None:
        self.code = code
        self.ops = ops
        self.name = code.name
        # A pure program (only values, queries and jumps) is evaluated by eval_sync without a frame stack.
        self.pure = all(ins[0] in PURE for ins in code.ops)


class Frame:
    __slots__ = ("decider", "depth", "it", "lc", "memo", "ops", "pc", "refill", "stack", "step", "this", "vars", "x",
                 "you")

    def __init__(self, lc: Linked, you: int, it: int | None = None, this: int | None = None,
                 step: str | None = None, depth: int = 0, vars: dict | None = None) -> None:
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
        self.vars = vars  # local names ('let', 'as NAME'): None until the program binds one
        self.decider: int | None = None  # who makes this frame's choices when not `you` (a chosen player's scope)

    def clone(self) -> Frame:
        f = Frame.__new__(Frame)
        f.lc, f.ops, f.pc = self.lc, self.ops, self.pc
        f.stack = [list(v) if isinstance(v, list) else v for v in self.stack]
        f.you, f.it, f.this, f.x, f.step, f.depth, f.refill, f.memo = (
            self.you, self.it, self.this, self.x, self.step, self.depth, self.refill, self.memo)
        f.vars = dict(self.vars) if self.vars is not None else None
        f.decider = self.decider
        return f


class NoFrame:
    """Stands in for a frame where a predicate runs outside any program (continuous modifiers)."""

    you = -1
    it = None
    this = None
    vars = None
    decider = None


NO_FRAME = NoFrame()


class Query:
    """A prepared query: zones to look in, and a predicate over cards."""

    __slots__ = ("on_stack", "pred", "reverse", "run", "zones")

    def __init__(self, zones: list[tuple[str, str]], pred, on_stack: bool = False, reverse: bool = False) -> None:
        self.zones = zones
        self.pred = pred
        self.on_stack = on_stack
        self.reverse = reverse
        self.run: Callable | None = None  # (vm, frame) -> card ids: the query as one generated function


def owner(vm, mode: str, f: Frame) -> int:
    """The seat a player word names, seen from the frame's current player."""
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
    if mode.startswith("local:"):  # a player bound to a name ('hand of the rival')
        return f.vars[mode[6:]]
    if mode.startswith("automa:"):
        seat = vm.linker.automa_seat(mode[7:], n)
        if seat is None:  # declared with `players` that leave this game out
            raise vm.fault(f"the automa seat '{mode[7:]}' does not sit in a game of {n} players")
        return seat
    raise ValueError(mode)


def others(vm, you: int, with_you: bool) -> list[int]:
    """Every seat in turn from `you` (the players round the table, then the automa seats that are
    opponents), with or without `you`: the seats 'of each opponent' and 'of all players' look at."""
    st = vm.state
    n = st.n
    if you < n:
        seats = [(you + i) % n for i in range(0 if with_you else 1, n)]
    else:
        seats = list(range(n))
    seats += [s for s in vm.linker.opponent_automa(st) if with_you or s != you]
    return seats


CMP: dict[str, Callable[[int, int], bool]] = {
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def div(a: int, b: int) -> int:
    return a // b if b else 0
