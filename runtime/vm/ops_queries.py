"""Questions about cards and boards: filters, conditions, lists of numbers, sets, paths, lines, neighbours, distinct
cards and trait occurrences. COUNT, SUM, STAT and PIECES are in inline.py.

Each handler takes (vm, frame, instruction) and returns None to go on, CHANGED after pushing or
popping frames, or SUSPEND when it needs a decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .machine import VM

from .core import MAX_SEARCH, Frame, Query, owner


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
    if lc is None:  # no requirement: playable; no goal: not met; no value: 0
        f.stack[-1] = ins[1] == "requires" if vm.pack.timings.get(ins[1], {}).get("kind") != "value" else 0
        return
    v = vm.eval_sync(lc, f.you, f.it, cid)
    f.stack[-1] = v if type(v) is int else bool(v)  # a value timing gives a number, a condition a truth value


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
    seat = owner(vm, mode, f)
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
    try:
        f.stack[-1] = longest_path(cards[cid].pos, cells, ortho.neighbours, MAX_SEARCH)
    except SearchTooLong:
        raise vm.fault(f"path() over zone '{zname}' needs more than {MAX_SEARCH:,} steps of search (a board too "
                       "large or too tangled for it)") from None


class SearchTooLong(Exception):
    """A search went past its budget of work."""


def longest_path(start: int, cells: set[int], neighbours, budget: int) -> int:
    """The number of cells on the longest simple path through `start` (two disjoint arms from it).

    Depth-first, without recursion, cells as bits of one mask; a branch stops when even every cell it could
    still reach would not beat the best path found, and the search ends when a path takes every cell it could.
    Each step, and each cell counted for a bound, is work: past `budget` it raises SearchTooLong."""
    nbs = {c: [n for n in neighbours[c] if n in cells] for c in cells}
    work = 0

    def reach(frm: int, blocked: int) -> int:
        """How many cells `frm` reaches without crossing `blocked` (a mask), `frm` not counted."""
        nonlocal work
        seen = blocked | (1 << frm)
        todo = [frm]
        n = 0
        while todo:
            for x in nbs[todo.pop()]:
                b = 1 << x
                if not seen & b:
                    seen |= b
                    n += 1
                    todo.append(x)
        work += n + 1
        if work > budget:
            raise SearchTooLong
        return n

    def free(cell: int, mask: int) -> int:
        return sum(1 for x in nbs[cell] if not mask & (1 << x))

    def longest_arm(frm: int, blocked: int, need: int) -> tuple[int, int]:
        """The longest arm from `frm` avoiding `blocked`: its length and cells; stops at one of length `need`."""
        nonlocal work
        best, best_mask = 0, 0
        stack = [(blocked | (1 << frm), 0, iter(nbs[frm]))]
        while stack:
            mask, length, it = stack[-1]
            for nb in it:
                bit = 1 << nb
                if mask & bit:
                    continue
                m = mask | bit
                work += 1
                if length + 1 > best:
                    best, best_mask = length + 1, m & ~blocked
                    if best >= need:
                        return best, best_mask
                if free(nb, m) > 1 and length + 1 + reach(nb, m) <= best:  # a corridor has no choice to prune
                    continue
                stack.append((m, length + 1, iter(nbs[nb])))
                break
            else:
                stack.pop()
            if work > budget:
                raise SearchTooLong
        return best, best_mask

    start_bit = 1 << start
    total = 1 + reach(start, 0)
    b, b_mask = longest_arm(start, 0, total - 1)  # one arm alone
    best = 1 + b
    # arm A from start, then the longest arm B from start avoiding A: the parent's B again when A's new cell is
    # not on it (the region only shrank where B was not)
    stack = [(start_bit, 0, iter(nbs[start]), b, b_mask)]
    while stack and best < total:
        mask, length, it, pb, pb_mask = stack[-1]
        for nb in it:
            bit = 1 << nb
            if mask & bit:
                continue
            m = mask | bit
            work += 1
            # bound: A may still grow by what its end reaches, B by what start reaches
            if free(nb, m) > 1 and length + 2 + reach(nb, m) + reach(start, m) <= best:
                continue
            if length == 0 or pb_mask & bit:
                b, b_mask = longest_arm(start, m & ~start_bit, total - length - 2)
            else:
                b, b_mask = pb, pb_mask
            best = max(best, length + 2 + b)
            stack.append((m, length + 1, iter(nbs[nb]), b, b_mask))
            break
        else:
            stack.pop()
        if work > budget:
            raise SearchTooLong
    return best


def op_LINES(vm, f, ins):
    zname, seat, geo, members = _board(vm, ins[1], f)
    grid = vm.state.zones[(zname, seat)]
    full = 0
    if geo.limit is not None:  # a growing grid: a complete line holds as many cards as the span may be wide (high)
        length = geo.limit[0] if ins[2] == "rows" else geo.limit[1]
        for line in geo.rows if ins[2] == "rows" else geo.columns:
            cards = [grid[c] for c in line if grid[c] is not None]
            if len(cards) == length and all(c in members for c in cards):
                full += 1
        f.stack.append(full)
        return
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
        grid = vm.state.zones[(zname, owner(vm, mode, f))]
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
