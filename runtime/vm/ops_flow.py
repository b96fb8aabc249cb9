"""Jumps aside (inline.py), the opcodes that steer programs: returning, loops over cards and players, events, the
first-player marker, the end of the game, and activations.

Each handler takes (vm, frame, instruction) and returns None to go on, CHANGED after pushing or
popping frames, or SUSPEND when it needs a decision."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .machine import VM

from .core import CHANGED, RETURNED, SUSPEND, Frame, owner
from .ops_players import candidates, end_game, placed
from .trial import answers_that_work, region_risky


def op_RETURN(vm: VM, f: Frame, ins) -> Any:
    vm.frames.pop()
    return RETURNED


def op_FOR_CARDS(vm, f, ins):
    q = ins[1]
    cards = [f.stack.pop()] if q.on_stack else vm.query(q, f)
    f.stack.append([cards, 0, f.it])


def op_FOR_PLAYERS(vm, f, ins):
    """The iterator: [seats, next index, your seat before, the active player before, turns?, the decider before,
    who decides for each seat (None: the seat itself)]."""
    kind, start = ins[1], ins[2]
    st = vm.state
    n = st.n
    chooser = f.decider if f.decider is not None else f.you
    if kind == "chosen":  # any player, and the automa seats that are opponents (they can be targeted)
        pick = start or {}
        seats = vm.recall(f) or _legal_players(vm, f, candidates(vm, f, pick))
        if not seats:  # nobody for whom what follows can be done: nobody is chosen
            f.stack.append([[], 0, f.you, st.active, False, f.decider, None])
            return None
        a = vm.decide(f, "player", "choose a player", seats, lambda: [vm.seat_label(s) for s in seats], memo=seats)
        if a is None:
            return SUSPEND
        # the chosen player is acted upon: the chooser makes the choices of the scope
        f.stack.append([[seats[a]], 0, f.you, st.active, False, f.decider, chooser])
        return None
    if kind == "named":  # 'the NAME: ...' (the chooser decides) or 'the NAME chooses: ...' (the player does)
        f.stack.append([[f.vars[start["name"]]], 0, f.you, st.active, False, f.decider,
                        None if start["chooses"] else chooser])
        return None
    if kind == "ranked":
        seats = placed(vm, f, start)
        if start.get("count"):  # ties split: how many share the place divides what each is given
            if f.vars is None:
                f.vars = {}
            f.vars[start["count"]] = max(len(seats), 1)
        f.stack.append([seats, 0, f.you, st.active, False, f.decider, None])
        return None
    if kind == "ref":
        seats = [owner(vm, start, f)]
    else:
        first = owner(vm, start, f) if start else (st.first if kind == "turns" else f.you)
        seats = [(first + i) % n for i in range(n)]
        if kind in ("each_other", "opponents"):
            if start is None:
                seats = [(f.you + i) % n for i in range(1, n)] if f.you < n else list(range(n))
            else:
                seats = [s for s in seats if s != f.you]
        if kind == "opponents":  # the automa seats are opponents too (unless declared otherwise)
            seats += [s for s in vm.linker.opponent_automa(st) if s != f.you]
    f.stack.append([seats, 0, f.you, st.active, kind == "turns", f.decider, None])


def _legal_players(vm: VM, f: Frame, seats: list[int]) -> list[int]:
    """The seats a 'choose a player' may name: those for whom every effect it governs can be done in full
    (legal targets), found by trials when such an effect may fall short. In a trial every seat is an answer
    to explore."""
    if vm.trial is not None:
        return seats
    code = f.lc.code
    nxt = code.ops[f.pc]  # NEXT_PLAYER: its target is the end of the scope
    if not region_risky(vm.linker, code, f.pc + 1, nxt[1]):
        return seats
    good = answers_that_work(vm, f, len(seats), nxt[1])
    return [seats[i] for i in good]


def op_NEXT_PLAYER(vm, f, ins):
    it = f.stack[-1]
    seats, i = it[0], it[1]
    if i < len(seats):
        f.you = seats[i]
        f.decider = it[6]
        if it[4]:
            vm.state.active = seats[i]
            vm.state.turn += 1
            if vm.log is not None:
                vm.log.append(("turn", seats[i], vm.state.turn))
        it[1] = i + 1
    else:
        f.stack.pop()
        f.you = it[2]
        f.decider = it[5]
        if it[4]:
            vm.state.active = it[3]
        f.pc = ins[1]


def op_NEXT_PART(vm, f, ins):
    it = f.stack[-1]
    if it[1] < len(it[0]):
        f.stack.append(it[0][it[1]])
        it[1] += 1
    else:
        f.stack.pop()
        f.pc = ins[1]


def op_EMIT(vm, f, ins):
    if vm.log is not None:
        about = vm.pack.cards[vm.state.cards[f.it].defn].id if f.it is not None else None
        vm.log.append(("emit", ins[1], ins[2], f.you, about))
    if vm.state.live_triggers or vm.linker.rule_claims:
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
        st.first = owner(vm, who, f)


def op_END_GAME(vm, f, ins):
    if end_game(vm):  # in the unseen pass of 'each player at once': only this player's part ends
        return CHANGED
    vm.state.over = True
    vm.frames.clear()
    return CHANGED


def op_BEGIN_ACTIVATION(vm, f, ins):
    vm.state.activated[f.you] = set()  # 'once per card' holds until END_ACTIVATION


def op_END_ACTIVATION(vm, f, ins):
    vm.state.activated[f.you] = None


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
    vm.push(abilities[chosen], f.you, cid, cid, f.step, f.depth, f.decider)
    return CHANGED
