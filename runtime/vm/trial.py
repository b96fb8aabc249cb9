"""Trials: can a program be performed in full now? It is run on a copy of the game in strict mode.

In strict mode an effect of the tried program that falls short (a loss the counter's minimum cuts, pieces
that do not fit or are not there, a card that cannot be taken or put, a choice of a card with none to choose
while the effects that follow must happen) fails the trial, unless the pack's `may-fall-short` list excepts
it. Decisions of the tried program are explored depth first: the trial succeeds when some answers get
through. Triggers and other programs it starts run leniently (their decisions take the first option): they
are the game's reaction, not the tried program's effects.

A choice of a card in the tried program looks at the matching cards one at a time (the first that passes its
`where`, then the next if that one fails), so a trial that needs one playable card tries one, not all.

Bounds: a trial makes at most MAX_BRANCHES runs (paths of answers); past that it counts the program as one
that cannot be done (deterministically). Each run is also held to the VM's step budget.

Which programs need a trial is read from the bytecode once per program (`risk`): one whose every effect can
always be done in full, or may fall short by the pack's rules, succeeds without one.
"""

from __future__ import annotations

from itertools import permutations
from typing import TYPE_CHECKING

from cardsmith.runtime.state import SHARED

from .core import SUSPEND, WORK_COPY, Frame

if TYPE_CHECKING:
    from .machine import VM

MAX_BRANCHES = 400  # runs (paths of answers) a trial makes before it gives up
SAFE, COPIES, RISKY = 0, 1, 2  # a program's risk: nothing falls short; only the abilities it runs may; it may


class TrialFailed(Exception):
    """An effect of the tried program fell short."""


class Trial:
    """What strict mode needs: whose program it is, the depth of its frames, where to stop, and the answers:
    the run's path (answers given in order to the tried program's decisions) and the decisions met."""

    __slots__ = ("depth", "met", "path", "pos", "seat", "stop")

    def __init__(self, seat: int, depth: int, stop: int = -1) -> None:
        self.seat = seat
        self.depth = depth
        self.stop = stop  # the tried frame stops succeeding at this instruction (-1: at its end)
        self.path: list[int] = []
        self.pos = 0
        self.met: list[tuple[int, int | None, int]] = []  # (position, options or None if open-ended, answer)

    def answer(self, n: int | None) -> int:
        """The answer to the next decision of the tried program: the path's, or the first option. `n` is how
        many options there are, or None for a choice that finds its options one at a time (the answer is then
        the index of a card among those that match; a run past the last fails)."""
        pos = self.pos
        self.pos += 1
        if pos < len(self.path):
            a = self.path[pos]
            if n is not None and a >= n:
                raise TrialFailed
            if n is None:
                self.met.append((pos, None, a))  # on failure, the next card is tried
            return a
        self.path.append(0)
        self.met.append((pos, n, 0))
        return 0

    def past_the_end(self) -> TrialFailed:
        """The open-ended decision just answered has no such option: the run fails, and no answer after it is
        worth trying (the caller raises what this returns)."""
        if self.met and self.met[-1][1] is None:
            self.met.pop()
        return TrialFailed()


# ------------------------------------------------------------------ running trials
def _fork(vm: VM, frames: list[Frame], trial: Trial) -> VM:
    from .machine import VM

    t = VM(vm.pack, vm.state.fork(), vm.linker, None)
    t.meter = vm.meter  # a trial's work counts towards the game's between two decisions
    t.frames = frames
    t.trial = trial
    return t


def _advance(t: VM) -> bool:
    """Run the trial's frames until the tried frame ends or reaches its stop (decisions are answered on the
    spot, see `Trial.answer`); TrialFailed when an effect falls short."""
    frames = t.frames
    root = frames[0]
    stop = t.trial.stop
    left = t.budget
    try:
        while frames:
            f = frames[-1]
            if f is root and f.pc == stop:
                return True
            ins = f.ops[f.pc]
            f.pc += 1
            if ins[0](t, f, ins) is SUSPEND:  # pragma: no cover - a trial answers every decision itself
                raise RuntimeError("internal: a trial suspended")
            left -= 1
            if left < 0:
                raise t.fault(f"a trial ran {t.budget:,} instructions without a decision (a loop that never ends?)")
        return True
    finally:
        t.charge(WORK_COPY + t.budget - left)


def _search(make) -> bool:
    """Depth first over the answers to the tried program's decisions, by replay: each run starts from a fresh
    copy (`make`), answers as its path says and then takes first options, noting every decision it meets
    past the path; a run that fails stacks the other answers of those decisions, the deepest on top. Most
    trials succeed on their first run or fail before any decision, so copies are made only as needed. After
    MAX_BRANCHES runs the search gives up: the program counts as one that cannot be done."""
    todo: list[tuple[int, ...]] = [()]
    runs = 0
    while todo and runs < MAX_BRANCHES:
        runs += 1
        path = todo.pop()
        t = make()
        tr = t.trial
        tr.path = list(path)
        try:
            if _advance(t):
                return True
        except TrialFailed:
            pass
        for pos, n, a in tr.met:
            head = tuple(tr.path[:pos])
            todo += [(*head, a + 1)] if n is None else [(*head, i) for i in range(n - 1, 0, -1)]
    return False


def performable(vm: VM, f: Frame, lc, it: int | None, this: int | None, vars: dict | None = None,
                x: int = 0) -> bool:
    """Whether program `lc` (run for f's player, with `it`, `this`, the local names `vars` and the value of X) can
    be performed in full now."""
    def make() -> VM:
        frame = Frame(lc, f.you, it, this, f.step, f.depth, vars=dict(vars) if vars is not None else None)
        frame.x = x
        return _fork(vm, [frame], Trial(f.you, f.depth))
    return _search(make)


def answers_that_work(vm: VM, f: Frame, n: int, stop: int) -> list[int]:
    """Which of the n answers to the decision f is making now lets f's program go on to instruction `stop`
    (the end of what the decision governs) with every effect performed in full."""
    def maker(i: int):
        def make() -> VM:
            frame = f.clone()
            frame.pc -= 1  # the decision's instruction, run again with answer i
            t = _fork(vm, [frame], Trial(f.you, f.depth, stop))
            t.answer = i
            return t
        return make
    return [i for i in range(n) if _search(maker(i))]


def short(vm: VM, f: Frame, kind: str, name: str, seat: int) -> None:
    """An effect fell short: in a trial, for the tried program's own effects, that fails the trial unless the
    pack's may-fall-short list excepts it."""
    tr = vm.trial
    if tr is None or f.depth != tr.depth:
        return
    whose = "shared" if seat == SHARED else "yours" if seat == tr.seat else "others"
    if not vm.linker.excepted(kind, name, whose):
        raise TrialFailed


# ------------------------------------------------------------------ reading risk from the bytecode
_WHOSE_ALL = ("yours", "others", "shared")
_JUMPS = ("JUMP", "JUMP_IF", "JUMP_IF_NOT")
_SETS_IT = frozenset({"TAKE", "CHOOSE_CARD", "FOR_CARDS", "PICK_HOLDER", "REVEAL", "NEXT_ACTIVATION"})
_WHOSE_PLAYER = ("yours", "others")


def _effect(lk, ins: list) -> tuple[str, list[str], tuple[str, ...]] | None:
    """The effect an instruction performs, as the may-fall-short list names it: (kind, names, whose)."""
    name = ins[0]
    pack = lk.pack
    if name in ("GAIN", "LOSE"):
        whose = ("shared",) if ins[1] in pack.counters and ins[1] not in pack.resources else _WHOSE_PLAYER
        return name.lower(), [ins[1]], whose
    if name == "PAY":
        return "pay", list(ins[1]), _WHOSE_PLAYER
    if name in ("ADD_PIECES", "TAKE_PIECES"):
        return ("place" if name == "ADD_PIECES" else "remove"), [ins[1]], _WHOSE_ALL
    if name == "PICK_HOLDER":
        return ("place" if ins[3] == "add" else "remove"), [ins[2]], _WHOSE_ALL
    if name in ("TAKE", "PUT", "PUT_CELL"):
        return "move", [ins[1]["zone"][0]], _WHOSE_ALL
    if name in ("MARK", "FLIP"):
        return "mark", [ins[1]] if name == "MARK" else [], _WHOSE_ALL
    return None


def _may_fall_short(lk, ins: list) -> bool:
    """Whether an instruction's effect may be done in part (before the pack's exceptions)."""
    name = ins[0]
    pack = lk.pack
    if name == "GAIN":
        decl = pack.resources.get(ins[1]) or pack.counters.get(ins[1]) or {}
        return decl.get("max") is not None
    if name in ("LOSE", "PAY", "TAKE_PIECES", "PUT_CELL"):
        return True
    if name == "ADD_PIECES":
        return lk.capacity.get(ins[1]) is not None
    if name in ("PICK_HOLDER", "TAKE"):
        return not ins[4 if name == "PICK_HOLDER" else 2] and not (name == "TAKE" and ins[1].get("all"))
    if name == "PUT":
        zone = pack.zones.get(ins[1]["zone"][0], {})
        return zone.get("kind") in ("slot", "grid", "hex")
    return False


def _never_excepted(lk, effect) -> bool:
    kind, names, whose = effect
    return any(not lk.excepted(kind, n, w) for n in (names or [""]) for w in whose)


def body_needs(lk, code, start: int, end: int) -> bool:
    """Whether instructions start..end-1 hold an effect that must happen (the pack does not let it fall
    short): then a choice that governs them and has nothing to choose falls short itself."""
    key = (id(code), start, end)
    hit = lk.needs.get(key)
    if hit is None:
        hit = lk.needs[key] = _needs(lk, code.ops[start:end])
    return hit


def _needs(lk, ops: list) -> bool:
    for ins in ops:
        if ins[0] in ("RUN_ABILITY", "ACTIVATION", "WINDOW"):
            return True
        effect = _effect(lk, ins)
        if effect is not None and _never_excepted(lk, effect):
            return True
    return False


def risk(lk, code) -> tuple[int, tuple[str, ...]]:
    """SAFE when nothing a program does can fall short (or all of it may, by the pack's rules); COPIES with
    the timings when only the abilities it runs of 'it' or 'this' might; RISKY otherwise."""
    cached = lk.risks.get(id(code))
    if cached is None:
        cached = lk.risks[id(code)] = _scan(lk, code, 0, len(code.ops))
    return cached


def region_risky(lk, code, start: int, end: int) -> bool:
    """Whether instructions start..end-1 of a program (what a choice governs) may fall short."""
    key = ("region", id(code), start, end)
    hit = lk.needs.get(key)
    if hit is None:
        hit = lk.needs[key] = _scan(lk, code, start, end)[0] != SAFE
    return hit


def _scan(lk, code, start: int, end: int) -> tuple[int, tuple[str, ...]]:
    level, copies = SAFE, []
    ops = code.ops
    it_moves = any(ins[0] in _SETS_IT for ins in ops[start:end])  # then 'it' is not the card it started with
    for k in range(start, end):
        ins = ops[k]
        name = ins[0]
        if name == "RUN_ABILITY":
            if k > start and (ops[k - 1][0] == "THIS" or (ops[k - 1][0] == "IT" and not it_moves)):
                copies.append(ins[1])
                level = max(level, COPIES)
            else:
                level = RISKY
        elif name in ("ACTIVATION", "WINDOW"):  # programs the player or the activation order picks
            level = RISKY
        elif name == "CHOOSE_CARD" and not ins[2] and k + 1 < len(ops) and ops[k + 1][0] == "JUMP_IF_NOT":
            if body_needs(lk, code, k + 2, ops[k + 1][1]):
                level = RISKY
        elif _may_fall_short(lk, ins) and _never_excepted(lk, _effect(lk, ins)):
            level = RISKY
    return level, tuple(copies)


def guards(lk, code) -> list:
    """What must hold before a program does anything, read from its bytecode: the leading runs of pure
    instructions that each end in a jump past the end of the program ('if C:' without else, the check of a
    cost 'COST:'), each as a program of its own that leaves the condition. Cached per program."""
    key = ("guard", id(code))
    hit = lk.needs.get(key)
    if hit is not None:
        return hit
    from cardsmith.bytecode import Code

    from .core import PURE

    out = []
    ops, n, start = code.ops, len(code.ops), 0
    for k in range(n):
        ins = ops[k]
        if ins[0] == "JUMP_IF_NOT" and ins[1] >= n and k > start:
            part = ops[start:k]
            if all(i[0] not in _JUMPS or start <= i[1] <= k for i in part):  # no jump out of the run
                rebased = [[i[0], i[1] - start, *i[2:]] if i[0] in _JUMPS else i for i in part]
                out.append(lk.link(Code(f"{code.name} (guard)", rebased, list(code.spans[start:k]))))
            start = k + 1
            continue
        if ins[0] not in PURE:
            break
    lk.needs[key] = out
    return out


def guarded(vm: VM, f: Frame, lc, it: int | None, this: int | None, vars: dict | None = None) -> bool:
    """Whether the program's guards (see `guards`) hold now."""
    return all(vm.eval_sync(g, f.you, it, this, f.step, vars=vars) for g in guards(vm.linker, lc.code))


def ability_risky(vm: VM, defn: int, timing: str) -> bool:
    lc = vm.linker.abilities[defn].get(timing)
    if lc is None:
        return False
    level, copies = risk(vm.linker, lc.code)
    return level == RISKY or bool(copies)  # an ability that runs other abilities: tried as a whole


def needs_trial(vm: VM, f: Frame, lc) -> bool:
    """Whether program `lc` must be tried: it may fall short itself, or an ability it runs of 'it' or 'this'
    may."""
    level, copies = risk(vm.linker, lc.code)
    if level != COPIES:
        return level == RISKY
    cards = vm.state.cards
    for card in (f.it, f.this):
        if card is not None and any(ability_risky(vm, cards[card].defn, t) for t in copies):
            return True
    return False


def orders(n: int) -> list[tuple[int, ...]]:
    return list(permutations(range(n)))
