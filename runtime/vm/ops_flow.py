"""Jumps aside (inline.py), the opcodes that steer programs: returning, loops over cards and players, events, the
first-player marker, the end of the game, and activations.

Each handler takes (vm, frame, instruction) and returns None to go on, CHANGED after pushing or
popping frames, or SUSPEND when it needs a decision."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .machine import VM

from .core import CHANGED, RETURNED, SUSPEND, Frame, owner
from .trial import answers_that_work, region_risky


def op_RETURN(vm: VM, f: Frame, ins) -> Any:
    vm.frames.pop()
    return RETURNED


def op_FOR_CARDS(vm, f, ins):
    q = ins[1]
    cards = [f.stack.pop()] if q.on_stack else vm.query(q, f)
    f.stack.append([cards, 0, f.it])


def op_FOR_PLAYERS(vm, f, ins):
    kind, start = ins[1], ins[2]
    st = vm.state
    n = st.n
    if kind == "chosen":
        seats = vm.recall(f) or _legal_players(vm, f, n)
        if not seats:  # nobody for whom what follows can be done: nobody is chosen
            f.stack.append([[], 0, f.you, st.active, False])
            return None
        a = vm.decide(f, "player", "choose a player", seats, lambda: [f"player {s + 1}" for s in seats], memo=seats)
        if a is None:
            return SUSPEND
        seats = [seats[a]]
    elif kind == "ref":
        seats = [owner(vm, start, f)]
    else:
        first = owner(vm, start, f) if start else (st.first if kind == "turns" else f.you)
        seats = [(first + i) % n for i in range(n)]
        if kind == "each_other":
            if start is None:
                seats = [(f.you + i) % n for i in range(1, n)]
            else:
                seats = [s for s in seats if s != f.you]
    f.stack.append([seats, 0, f.you, st.active, kind == "turns"])


def _legal_players(vm: VM, f: Frame, n: int) -> list[int]:
    """The players a 'choose a player' may name: those for whom every effect it governs can be done in full
    (legal targets), found by trials when such an effect may fall short. In a trial every player is an answer
    to explore."""
    seats = list(range(n))
    if vm.trial is not None:
        return seats
    code = f.lc.code
    nxt = code.ops[f.pc]  # NEXT_PLAYER: its target is the end of the scope
    if not region_risky(vm.linker, code, f.pc + 1, nxt[1]):
        return seats
    good = answers_that_work(vm, f, n, nxt[1])
    return [seats[i] for i in good]


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
        st.first = owner(vm, who, f)


def op_END_GAME(vm, f, ins):
    vm.state.over = True
    vm.frames.clear()
    return CHANGED


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
