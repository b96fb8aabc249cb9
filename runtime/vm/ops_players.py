"""Players as values and rankings: choosing a player by name, player flags, the players a ranking places, and
'each player at once' (choices made unseen, then applied).

Each handler takes (vm, frame, instruction) and returns None to go on, CHANGED after pushing or
popping frames, or SUSPEND when it needs a decision.

'each player at once' runs in two passes. First every player's part runs on the game as it was when the
statement began, unseen by the others: the game is set back to that point before the next player's part,
and what each player answered is noted (`AtOnce.answers`; nothing of this pass is logged, its effects are
undone). Then every part runs for real, in turn, and each decision is answered with the answer noted for
it, matched by its kind, prompt and the option chosen; a decision whose noted answer is no longer offered
(two players took the same card of a shared market) is asked again, and so is every decision after it in
that part. Agents therefore decide on observations of the game as it was, plus their own part so far.

Each player's part draws its randomness (a shuffle) from a generator of its own, seeded when the statement
begins, so that it shuffles alike in both passes whatever the others did; the game's generator goes on from
where it was after the seeds were drawn.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from cardsmith.runtime.state import GameState

if TYPE_CHECKING:
    from .machine import VM

from .core import CHANGED, SUSPEND, Frame, others, owner
from .trial import answers_that_work, region_risky

# ------------------------------------------------------------------ choosing a player


def candidates(vm: VM, f: Frame, pick: dict) -> list[int]:
    """The seats a 'choose a player' may name before its legal targets are tried: every player and the automa
    seats that are opponents, less the chooser ('other than you'), kept by the pick's filters."""
    st = vm.state
    seats = [*range(st.n), *vm.linker.opponent_automa(st)]
    if pick.get("other"):
        seats = [s for s in seats if s != f.you]
    test = pick.get("test")
    return [s for s in seats if test(vm, f, s)] if test is not None else seats


def legal(vm: VM, f: Frame, seats: list[int], end: int) -> list[int]:
    """The seats for whom what the choice governs (the instructions from f.pc + 1 up to `end`) can be done in
    full, when something there may fall short (legal targets); in a trial, every seat is an answer to explore."""
    if vm.trial is not None or not seats:
        return seats
    code = f.lc.code
    if not region_risky(vm.linker, code, f.pc + 1, end):
        return seats
    return [seats[i] for i in answers_that_work(vm, f, len(seats), end)]


def op_CHOOSE_PLAYER(vm, f, ins):
    pick, end = ins[1], ins[2]
    seats = vm.recall(f)
    if seats is None:
        seats = legal(vm, f, candidates(vm, f, pick), end)
    if not seats:  # nobody for whom it can be done: nobody is chosen, and what it governs does not happen
        f.stack.append(False)
        return None
    a = vm.decide(f, "player", "choose a player", seats, lambda: [vm.seat_label(s) for s in seats], memo=seats)
    if a is None:
        return SUSPEND
    if f.vars is None:
        f.vars = {}
    f.vars[pick["name"]] = seats[a]
    if vm.log is not None:
        vm.log.append(("choose-player", f.you, seats[a]))
    f.stack.append(True)
    return None


def op_MARK_PLAYER(vm, f, ins):
    """A player flag is kept as a counter of 0 or 1 (the compiler declares it so)."""
    flag, on = ins[1], ins[2]
    seat = f.stack.pop()
    vm.state.counters[seat][flag] = 1 if on else 0
    if vm.log is not None:
        vm.log.append(("mark-player", seat, flag, on))
    if vm.state.live_triggers or vm.linker.rule_claims:  # the event is the flag's name; claims read the flag
        return vm.fire(f, flag if on else f"un{flag}", seat, None, flag)
    return None


# ------------------------------------------------------------------ rankings


def values(vm: VM, f: Frame, measure) -> dict[int, Any]:
    """The measure for every ranked seat (the players, and the automa seats that are opponents), each as 'you'."""
    return {s: vm.eval_sync(measure, s, f.it, f.this, f.step, vars=f.vars) or 0 for s in others(vm, f.you, True)}


def placed(vm: VM, f: Frame, rank: dict) -> list[int]:
    """The seats a ranking places at `place`, in seat order from the current player. Places count distinct values
    (after two tied for the most, the next value is the second most); ties decide who gets a shared place: share
    (all), split (all; the reward is divided), none (nobody) or friendly (all, and they use up the places below:
    after two tied for the most, nobody is second)."""
    got = values(vm, f, rank["by"])
    seats = list(got)
    fewest, place, ties = rank["fewest"], rank["place"], rank["ties"]

    def better(a, b) -> bool:
        return a < b if fewest else a > b

    if ties == "friendly":
        return [s for s in seats if 1 + sum(1 for t in seats if better(got[t], got[s])) == place]
    distinct = sorted(set(got.values()), reverse=not fewest)
    if place > len(distinct):
        return []
    out = [s for s in seats if got[s] == distinct[place - 1]]
    return [] if ties == "none" and len(out) > 1 else out


def op_COUNT_PLAYERS(vm, f, ins):
    pick = ins[1]
    test, other = pick.get("test"), pick.get("other")
    f.stack.append(sum(1 for s in range(vm.state.n) if not (other and s == f.you) and (test is None or test(vm, f, s))))


def op_PLACED(vm, f, ins):
    f.stack.append(f.you in placed(vm, f, ins[1]))


def op_BEST(vm, f, ins):
    got = values(vm, f, ins[1]).values()
    f.stack.append(min(got) if ins[2] else max(got))


# ------------------------------------------------------------------ each player at once


class AtOnce:
    """An 'each player at once' under way: the players in order, the game as it was at the start, the answers
    noted in the first pass (per player: (kind, prompt, option chosen)), which pass and player it is at, and the
    frame values every part starts from."""

    __slots__ = ("answers", "depth", "frame", "height", "index", "log", "next_pc", "phase", "replay", "seats",
                 "seeds", "snapshot")

    def __init__(self, seats: list[int], snapshot: GameState, frame: tuple, depth: int, height: int, next_pc: int,
                 log) -> None:
        self.seats = seats
        self.snapshot = snapshot
        self.answers: list[list[tuple]] = [[] for _ in seats]
        self.phase = "choose"
        self.index = -1
        self.frame = frame  # (you, it, x, vars, decider) when the statement began
        self.depth = depth  # the frame's place on the frame stack
        self.height = height  # its stack's height with the iterator on it
        self.next_pc = next_pc  # its NEXT_AT_ONCE
        self.log = log  # the game's log, off during the first pass
        self.replay: list[tuple] | None = None
        self.seeds: list[int] = []  # each part's random generator

    def copy(self, log) -> AtOnce:
        c = AtOnce.__new__(AtOnce)
        c.seats, c.snapshot, c.phase, c.index, c.frame, c.depth, c.height, c.next_pc = (
            self.seats, self.snapshot, self.phase, self.index, self.frame, self.depth, self.height, self.next_pc)
        c.answers = [list(a) for a in self.answers]
        c.seeds = list(self.seeds)
        c.replay = list(self.replay) if self.replay is not None else None
        c.log = log
        return c

    # --- what VM.decide asks
    def note(self, kind: str, prompt: str, option: Any) -> None:
        if self.phase == "choose" and 0 <= self.index < len(self.seats):
            self.answers[self.index].append((kind, prompt, option))

    def answer(self, kind: str, prompt: str, options: list) -> int | None:
        """In the second pass, the index of the option noted for this decision; None (and no more answers for
        this part) when it was noted otherwise or is no longer offered."""
        if self.phase != "apply" or not self.replay:
            return None
        k, p, option = self.replay.pop(0)
        if k == kind and p == prompt and option in options:
            return options.index(option)
        self.replay = None
        return None

    def skip(self) -> None:
        """A decision with one option in the second pass: its noted answer is used up."""
        if self.phase == "apply" and self.replay:
            self.replay.pop(0)


def restore(st: GameState, src: GameState) -> None:
    """Set `st` (the game's own state object, which the game, the VM and observations share) to `src`."""
    for slot in GameState.__slots__:
        setattr(st, slot, getattr(src, slot))


def _start(f: Frame, ao: AtOnce) -> None:
    f.you, f.it, f.x, vars_, f.decider = ao.frame
    f.vars = dict(vars_) if vars_ is not None else None
    del f.stack[ao.height:]


def op_AT_ONCE(vm, f, ins):
    st = vm.state
    n = st.n
    first = owner(vm, ins[1], f) if ins[1] else f.you
    seats = [(first + i) % n for i in range(n)] if first < n else list(range(n))
    if vm.at_once is not None or vm.trial is not None or vm.sync:
        # inside another, or tried: the parts run in turn (nobody is asked anything in a trial)
        f.stack.append([seats, 0, f.you, st.active, False, f.decider, None])
        return None
    f.stack.append(["at once"])
    seeds = [st.rng.getrandbits(64) for _ in seats]
    ao = AtOnce(seats, st.clone(), (f.you, f.it, f.x, dict(f.vars) if f.vars is not None else None, f.decider),
                len(vm.frames) - 1, len(f.stack), f.pc, vm.log)
    ao.seeds = seeds
    vm.at_once = ao
    vm.log = None  # the first pass is undone: nothing of it is logged
    return None


def op_NEXT_AT_ONCE(vm, f, ins):
    it = f.stack[-1]
    if it != ["at once"]:  # run in turn (see AT_ONCE)
        seats, i = it[0], it[1]
        if i < len(seats):
            f.you, f.decider = seats[i], None
            it[1] = i + 1
            return None
        f.stack.pop()
        f.you, f.decider = it[2], it[5]
        f.pc = ins[1]
        return None
    ao = vm.at_once
    _start(f, ao)
    if ao.phase == "choose":
        ao.index += 1
        if ao.index > 0:  # the part just run is undone (the snapshot itself stays as it was: copies share it)
            restore(vm.state, ao.snapshot.clone())
        if ao.index < len(ao.seats):
            f.you = ao.seats[ao.index]
            f.decider = None
            vm.state.rng = random.Random(ao.seeds[ao.index])
            return None
        ao.phase, ao.index = "apply", -1  # the parts now run for real, from the game as it was
        vm.log = ao.log
        if vm.log is not None:  # the choices are revealed: each part now runs for real
            vm.log.append(("at once", ao.seats))
    ao.index += 1
    if ao.index < len(ao.seats):
        f.you = ao.seats[ao.index]
        f.decider = None
        ao.replay = list(ao.answers[ao.index])
        vm.state.rng = random.Random(ao.seeds[ao.index])
        return None
    vm.state.rng = random.Random()
    vm.state.rng.setstate(ao.snapshot.rng.getstate())  # the game's own generator goes on (the parts used theirs)
    vm.at_once = None
    f.stack.pop()
    f.pc = ins[1]
    return None


def end_game(vm) -> bool:
    """'end game' during 'each player at once': in the first pass only the part running ends (the game ends when
    the part is run for real); True when that is what happened. In the second pass the statement is over."""
    ao = vm.at_once
    if ao is None:
        return False
    if ao.phase != "choose" or ao.depth >= len(vm.frames):
        vm.log = ao.log if vm.log is None else vm.log
        vm.at_once = None
        return False
    del vm.frames[ao.depth + 1:]
    frame = vm.frames[ao.depth]
    del frame.stack[ao.height:]
    frame.pc = ao.next_pc
    return True


__all__ = ["CHANGED", "AtOnce", "candidates", "end_game", "legal", "placed", "restore"]
