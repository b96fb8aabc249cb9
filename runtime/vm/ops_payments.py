"""Payment with substitutes: whether a price can be paid from every source that applies, and paying it one
source at a time.

A price is an amount of one or more currencies. What can pay it, for the paying player now:
- pools: a resource pays itself at 1, and a counter source ('pay megacredit with heat') pays its currency
  at its rate; each unit of a pool is lost when used;
- cards: each card of a card source's query ('pay egg with card in hand at egg-value of it') pays one
  currency once, by its value (the rate, with the card as 'it'); its spend program takes it. A card in
  several sources still pays once, for one currency. The card being paid for never pays for itself.
A source 'for a card with FILTERS' applies only when the thing paid for is such a card. Sources are the
rules' and the live ones of the player's cards in play (run with that card as 'this').

Can it be paid is an exact search (`Search`): pools dedicated to one currency are used in full (more units
never hurt), and then every way to give the cards to currencies is tried, depth first, memoised on what is
still missing, with a bound on what the remaining cards could still pay. A card that can pay nothing still
missing is never tried, and overpaying with a coarse unit (a 3 M€ titanium for the last 1 M€) is allowed.
The search visits at most MAX_STATES states; beyond that the game stops with a runtime fault (R001) that names
the payment, rather than search for ever (no real price comes near: a hand of 10 cards and a price of 9 of two
currencies is at most 1,100 states).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from .core import CHANGED, SUSPEND, WORK_COPY, Frame
from .trial import short

if TYPE_CHECKING:
    from .machine import VM

MAX_STATES = 100_000
_PAYING = object()  # marks the payment in progress on the frame's stack (PAY runs again after each step)


class Ledger:
    """What can pay, now: pools (resource -> units and currency -> rate) and cards (card -> currency ->
    (value, source, source card))."""

    __slots__ = ("cards", "pools")

    def __init__(self) -> None:
        self.pools: dict[str, list] = {}  # resource -> [units, {currency: (rate, label)}]
        self.cards: dict[int, dict[str, tuple]] = {}


def _value(vm: VM, f: Frame, src, it: int | None, this: int | None) -> int:
    rate = src.rate
    if isinstance(rate, int):
        return rate
    if src.rate_stat is not None and it is not None:  # 'at STAT of it', the common case: no program to run
        return vm.stat(vm.state.cards[it], src.rate_stat, f.you)
    v = vm.eval_sync(rate, f.you, it, this)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def ledger(vm: VM, f: Frame, currencies: list[str], target: int | None, used_pools: frozenset,
           used_cards: frozenset) -> Ledger:
    st = vm.state
    lk = vm.linker
    counters = st.counters[f.you]
    out = Ledger()
    pack = vm.pack

    def pool(res: str, cur: str, rate: int, label: str) -> None:
        if rate <= 0 or (res, cur) in used_pools:
            return
        p = out.pools.get(res)
        if p is None:
            units = max(counters.get(res, 0), 0)
            if units and res in lk.prevent_names and vm.prevented(f, res, f.you):
                units = 0
            p = out.pools[res] = [units, {}]
        if cur not in p[1] or p[1][cur][0] < rate:
            p[1][cur] = (rate, label)

    wanted = set(currencies)
    for cur in currencies:
        if cur in pack.resources:
            pool(cur, cur, 1, cur)
    sources = [(s, None) for s in lk.sources if s.currency in wanted]
    if lk.card_payers:
        cards = st.cards
        for z in lk.in_play:
            for cid in st.zones.get((z, f.you), ()):
                if cid is not None and cards[cid].defn in lk.card_payers:
                    sources += [(s, cid) for s in lk.card_sources[cards[cid].defn] if s.currency in wanted]
    tcard = st.cards[target] if target is not None else None
    vm.charge(WORK_COPY // 2 + len(sources))  # building a ledger costs about half a copy of the game
    for src, holder in sources:
        if src.target is not None and (tcard is None or not src.target(vm, f, tcard)):
            continue
        if src.counter is not None:
            pool(src.counter, src.currency, _value(vm, f, src, None, holder), src.text)
            continue
        saved = f.this
        f.this = holder if holder is not None else f.this
        try:
            found = vm.query(src.query, f)
        finally:
            f.this = saved
        for cid in found:
            if cid == target or cid in used_cards:
                continue
            v = _value(vm, f, src, cid, holder)
            if v <= 0:
                continue
            pays = out.cards.setdefault(cid, {})
            if src.currency not in pays or pays[src.currency][0] < v:
                pays[src.currency] = (v, src, holder)
    return out


class Search:
    """Can `need` (a tuple, one amount per currency) be paid from a ledger? See the module docstring."""

    def __init__(self, vm: VM, f: Frame, currencies: list[str], book: Ledger) -> None:
        self.vm, self.f = vm, f
        self.index = {c: i for i, c in enumerate(currencies)}
        self.book = book
        self.states = 0
        # no cards and every pool for one currency: what each currency can get is a plain sum
        self.simple = not book.cards and all(len(rates) == 1 for _, rates in book.pools.values())
        if self.simple:
            self.worth = [0] * len(currencies)
            for _res, (units, rates) in book.pools.items():
                for c, (r, _) in rates.items():
                    self.worth[self.index[c]] += units * r

    def can(self, need: tuple, skip_pool: tuple | None = None, skip_card: int | None = None) -> bool:
        before = self.states
        try:
            return self._can(need, skip_pool, skip_card)
        finally:
            self.vm.charge(1 + self.states - before)  # the search's states count as the game's nested work

    def _can(self, need: tuple, skip_pool: tuple | None, skip_card: int | None) -> bool:
        if self.simple:
            if skip_pool is None:
                return all(n <= w for n, w in zip(need, self.worth, strict=True))
            units, rates = self.book.pools[skip_pool[0]]
            i = self.index[skip_pool[1]]
            return all(n <= w - (units * rates[skip_pool[1]][0] if j == i and skip_pool[1] in rates else 0)
                       for j, (n, w) in enumerate(zip(need, self.worth, strict=True)))
        need = list(need)
        multi = []
        for res, (units, rates) in self.book.pools.items():
            useful = [(c, r) for c, (r, _) in rates.items() if (res, c) != skip_pool and need[self.index[c]] > 0]
            if len(useful) == 1:
                c, r = useful[0]
                need[self.index[c]] -= units * r
            elif useful:
                multi.append((units, useful))
        cards = [[(self.index[c], v) for c, (v, _, _) in pays.items()]
                 for cid, pays in self.book.cards.items() if cid != skip_card]
        return self._pools(tuple(max(n, 0) for n in need), multi, cards)

    def _pools(self, need: tuple, multi: list, cards: list) -> bool:
        if not multi:
            return self._cards(need, cards)
        (units, useful), rest = multi[0], multi[1:]
        # a pool that pays several currencies: every split of its units that is not wasted
        splits = [()]
        for c, r in useful:
            i = self.index[c]
            splits = [(*s, (i, r, k)) for s in splits for k in range(0, -(-need[i] // r) + 1)
                      if sum(x[2] for x in s) + k <= units]
        for split in splits:
            n = list(need)
            for i, r, k in split:
                n[i] = max(n[i] - r * k, 0)
            if self._pools(tuple(n), rest, cards):
                return True
        return False

    def _cards(self, need: tuple, cards: list) -> bool:
        if not any(need):
            return True
        k = len(need)
        # what the cards from i on could pay at most, per currency: a bound that prunes hopeless branches
        reach = [[0] * k for _ in range(len(cards) + 1)]
        for i in range(len(cards) - 1, -1, -1):
            row = reach[i] = list(reach[i + 1])
            for c, v in cards[i]:
                row[c] += v
        seen: set = set()

        def go(i: int, need: tuple) -> bool:
            if not any(need):
                return True
            if i == len(cards) or any(need[c] > reach[i][c] for c in range(k)):
                return False
            key = (i, need)
            if key in seen:
                return False
            self.states += 1
            if self.states > MAX_STATES:
                raise self.vm.fault(f"the payment search tried more than {MAX_STATES:,} ways to pay")
            seen.add(key)
            for c, v in cards[i]:
                if need[c] > 0:
                    n = list(need)
                    n[c] = max(n[c] - v, 0)
                    if go(i + 1, tuple(n)):
                        return True
            return go(i + 1, need)

        return go(0, need)


    def ways(self, need: tuple):
        """Every way to pay `need`, one at a time (a trial tries them in this order): per pool (resource and
        currency) how many units, from the most that is not wasted down; per card which currency or none.
        Each way is ([(resource, currency, units)], [(card, currency)])."""
        pools = [(res, cur, r) for res, (_, rates) in self.book.pools.items() for cur, (r, _) in rates.items()]
        units = {res: u for res, (u, _) in self.book.pools.items()}
        cards = [(cid, [(self.index[c], c, v) for c, (v, _, _) in pays.items()])
                 for cid, pays in self.book.cards.items()]
        k = len(need)
        reach = [[0] * k for _ in range(len(cards) + 1)]
        for i in range(len(cards) - 1, -1, -1):
            row = reach[i] = list(reach[i + 1])
            for c, _, v in cards[i][1]:
                row[c] += v

        def go(i: int, need: tuple, left: dict, used: list, paid: list):
            if not any(need):
                yield used, paid
                return
            if i < len(pools):
                res, cur, rate = pools[i]
                c = self.index[cur]
                top = min(left[res], -(-need[c] // rate)) if need[c] > 0 else 0
                for n in range(top, -1, -1):
                    rest = list(need)
                    rest[c] = max(rest[c] - n * rate, 0)
                    yield from go(i + 1, tuple(rest), {**left, res: left[res] - n},
                                  [*used, (res, cur, n)] if n else used, paid)
                return
            j = i - len(pools)
            if j == len(cards) or any(need[c] > reach[j][c] for c in range(k)):
                return
            cid, pays = cards[j]
            for c, cur, v in pays:
                if need[c] > 0:
                    rest = list(need)
                    rest[c] = max(rest[c] - v, 0)
                    yield from go(i + 1, tuple(rest), left, used, [*paid, (cid, cur)])
            yield from go(i + 1, need, left, used, paid)

        return go(0, need, units, [], [])


def _pay_in_trial(vm: VM, f: Frame, tr, search: Search, need: tuple):
    """Pay in a trial: the path's way to pay (see Search.ways) all at once; the other ways are the trial's
    alternatives. Units are lost, and cards spent, as in a game, in the way's order."""
    a = tr.answer(None)
    way = next(itertools.islice(search.ways(need), a, None), None)
    if way is None:
        raise tr.past_the_end()
    used, paid = way
    r = None
    for res, _, n in used:
        r = _lose(vm, f, res, n) or r
    for cid, cur in reversed(paid):  # pushed last first: the first card is spent first
        _, src, holder = search.book.cards[cid][cur]
        vm.push(src.spend, f.you, cid, holder, f.step, f.depth)
        r = CHANGED
    return r


def _pop_price(f: Frame, currencies: list[str], for_card: bool) -> tuple[tuple, int | None]:
    target = f.stack.pop() if for_card else None
    k = len(currencies)
    amounts = f.stack[-k:]
    del f.stack[-k:]
    return tuple(max(a, 0) if isinstance(a, int) else 0 for a in amounts), target


def op_CAN_PAY(vm, f, ins):
    currencies, for_card = ins[1], ins[2]
    need, target = _pop_price(f, currencies, for_card)
    if not any(need):
        f.stack.append(True)
        return
    book = ledger(vm, f, currencies, target, frozenset(), frozenset())
    f.stack.append(Search(vm, f, currencies, book).can(need))


def _amounts(search: Search, need: tuple, res: str, cur: str) -> list[int]:
    """How many units of a pool may pay `cur`, keeping the rest payable without that pool: from the least
    that does to the most that is not wasted."""
    units, rates = search.book.pools[res]
    rate = rates[cur][0]
    i = search.index[cur]
    top = min(units, -(-need[i] // rate))
    if search.simple:  # the others pay at most `rest`: from the least that leaves them enough, to the top
        rest = search.worth[i] - units * rate
        return list(range(max(1, -(-(need[i] - rest) // rate)), top + 1)) if need[i] <= rest + units * rate else []
    out = []
    for n in range(1, top + 1):
        rest = list(need)
        rest[i] = max(rest[i] - n * rate, 0)
        if search.can(tuple(rest), skip_pool=(res, cur)):
            out.append(n)
    return out


def _steps(search: Search, need: tuple, enough: int | None = None) -> list[tuple]:
    """The sources that leave the rest payable: ('pool', resource, currency) and ('card', card, currency);
    with `enough`, only the first that many."""
    out: list[tuple] = []
    for res, (units, rates) in search.book.pools.items():
        if units <= 0:
            continue
        for cur in rates:
            i = search.index[cur]
            if need[i] > 0 and _amounts(search, need, res, cur):
                out.append(("pool", res, cur))
                if enough is not None and len(out) >= enough:
                    return out
    for cid, pays in search.book.cards.items():
        for cur, (v, _, _) in pays.items():
            i = search.index[cur]
            if need[i] <= 0:
                continue
            rest = list(need)
            rest[i] = max(rest[i] - v, 0)
            if search.can(tuple(rest), skip_card=cid):
                out.append(("card", cid, cur))
                if enough is not None and len(out) >= enough:
                    return out
    return out


def _one_way(search: Search, need: tuple, steps: list[tuple]) -> bool:
    """Whether the steps are one way to pay, taken in some order: every pool pays one amount only, and every
    card is needed and pays one currency. Then nothing is asked."""
    cards = [s[1] for s in steps if s[0] == "card"]
    if len(set(cards)) != len(cards):
        return False
    for step in steps:
        if step[0] == "pool":
            if len(_amounts(search, need, step[1], step[2])) != 1:
                return False
        elif search.can(need, skip_card=step[1]):
            return False  # the rest can do without this card: another way
    return True


def _label(vm: VM, search: Search, step: tuple) -> str:
    if step[0] == "pool":
        _, res, cur = step
        rate, _ = search.book.pools[res][1][cur]
        return res if res == cur else f"{res} ({rate} {cur} each)" if rate != 1 else f"{res} as {cur}"
    return f"{vm.label(step[1])} as {step[2]}"


def op_PAY(vm, f, ins):
    currencies, for_card = ins[1], ins[2]
    top = f.stack[-1] if f.stack else None
    tr = vm.trial
    if not (type(top) is list and top and top[0] is _PAYING):
        need, target = _pop_price(f, currencies, for_card)
        if not any(need):
            return None
        search = Search(vm, f, currencies, ledger(vm, f, currencies, target, frozenset(), frozenset()))
        if not search.can(need):
            short(vm, f, "pay", currencies[0], f.you)  # in full or not at all: here, not at all
            return None
        if tr is not None and f.depth == tr.depth:
            return _pay_in_trial(vm, f, tr, search, need)
        # [marker, still to pay, pools used (resource, currency), cards used, the card paid for, pool chosen]
        f.stack.append([_PAYING, need, frozenset(), frozenset(), target, None])
    state = f.stack[-1]
    while True:
        need = state[1]
        if not any(need):
            f.stack.pop()
            return None
        book = ledger(vm, f, currencies, state[4], state[2], state[3])
        search = Search(vm, f, currencies, book)
        if state[5] is None:
            steps = _steps(search, need)
            if not steps:  # the game changed while paying (a trigger): what is left cannot be paid
                short(vm, f, "pay", currencies[0], f.you)
                f.stack.pop()
                return None
            if len(steps) > 1 and not _one_way(search, need, steps):
                a = vm.decide(f, "option", "pay with", steps, lambda s=search, o=steps: [_label(vm, s, x) for x in o])
                if a is None:
                    return SUSPEND
            else:
                a = 0
            step = steps[a]
            if step[0] == "card":
                _, cid, cur = step
                v, src, holder = book.cards[cid][cur]
                i = search.index[cur]
                state[1] = (*need[:i], max(need[i] - v, 0), *need[i + 1:])
                state[3] = state[3] | {cid}
                if vm.log is not None:
                    vm.log.append(("pay", f.you, cur, v, vm.pack.cards[vm.state.cards[cid].defn].id))
                f.pc -= 1  # pay on once the card is spent
                vm.push(src.spend, f.you, cid, holder, f.step, f.depth)
                return CHANGED
            state[5] = (step[1], step[2])
        res, cur = state[5]
        amounts = _amounts(search, need, res, cur) if res in book.pools and cur in book.pools[res][1] else []
        if not amounts:
            state[5] = None
            state[2] = state[2] | {(res, cur)}
            continue
        if len(amounts) > 1:
            a = vm.decide(f, "number", f"how many {res} to pay {cur}", amounts)
            if a is None:
                return SUSPEND
        else:
            a = 0
        n = amounts[a]
        rate = book.pools[res][1][cur][0]
        i = search.index[cur]
        state[1] = (*need[:i], max(need[i] - n * rate, 0), *need[i + 1:])
        state[2] = state[2] | {(res, cur)}
        state[5] = None
        fired = _lose(vm, f, res, n)
        if fired is not None:
            f.pc -= 1  # pay on once the triggers are done
            return fired


def _lose(vm: VM, f: Frame, name: str, n: int):
    """What LOSE does to a counter of the current player: down by n, not below its minimum; logged; the
    triggers that listen start."""
    d = vm.state.counters[f.you]
    lo = vm.pack.resources[name].get("min", 0)
    d[name] = max(d.get(name, 0) - n, lo)
    if vm.log is not None:
        vm.log.append(("lose", f.you, name, n))
    if vm.state.live_triggers and vm.linker.listens("lose", name):
        return vm.fire(f, "lose", f.you, None, name)
    return None
