"""The linker: prepares a pack's programs for the VM once, shared by every game of that pack.

Operands become what handlers need (queries become generated Python functions over the state's
zones, filters become predicates), opcodes become handler functions, and runs of instructions are
fused into superinstructions (`fuser`).
"""

from __future__ import annotations

import os
from typing import Any

from cardsmith.bytecode import Code, CompiledPack
from cardsmith.runtime.geometry import geometry
from cardsmith.runtime.state import SHARED, automa_seats

from .claims import ANY, Claim, _query_reads, flag_events, reads
from .core import CMP, Frame, Linked, Query, others, owner
from .fuser import fuse, single_on_first_run
from .handlers import HANDLERS
from .inline import INLINE
from .ops_flow import op_RETURN

# Superinstructions (see `fuser`): on unless CARDSMITH_VM_FUSE=0, which runs every instruction on its own
# (to check that both give the same games, byte for byte).
FUSE = os.environ.get("CARDSMITH_VM_FUSE", "1") != "0"


class Linker:
    """Prepares a pack's codes for the VM once; shared by every game of that pack."""

    def __init__(self, pack: CompiledPack) -> None:
        self.pack = pack
        self.cache: dict[int, Linked] = {}
        # the automa seats of a game of n players (see automa_seats): by id, the opponents, the bottomless
        self._automa: dict[int, tuple[dict[str, int], tuple[int, ...], frozenset[int]]] = {}
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
        self._link_claims()
        # 'open window NAME': (label, guard or None, body) of each option
        self.windows = {w: [(o["label"], self.link(o["guard"]) if o["guard"] else None, self.link(o["code"]))
                            for o in opts] for w, opts in pack.windows.items()}
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
        # payment sources: the rules' (pack.payments) and each card's live ones ('pay ... with ...')
        self.sources = [Source(self, d) for d in pack.payments]
        self.card_sources: list[list[Source]] = [[Source(self, d) for d in c.payments] for c in pack.cards]
        self.card_payers = frozenset(i for i, ss in enumerate(self.card_sources) if ss)
        # mandatory effects (see trial.py): the pack's exceptions, and what is read from each program once
        self.fall_short = [(e["effect"], e.get("whose"), frozenset(e["names"]) if "names" in e else None)
                           for e in pack.may_fall_short]
        self._excepted: dict[tuple[str, str, str], bool] = {}
        self.risks: dict[int, tuple] = {}
        self.needs: dict[tuple, bool] = {}

    def excepted(self, kind: str, name: str, whose: str) -> bool:
        """Whether the pack lets an effect of this kind, on this name, of this player fall short."""
        key = (kind, name, whose)
        hit = self._excepted.get(key)
        if hit is None:
            hit = self._excepted[key] = any(k == kind and w in (None, whose) and (names is None or name in names)
                                            for k, w, names in self.fall_short)
        return hit

    def listens(self, verb: str, name: str | None) -> bool:
        """Whether any trigger of the pack can start on event `verb` about `name`, or a claim reads what it
        changed (see VM.fire)."""
        key = (verb, name)
        hit = self._listening.get(key)
        if hit is None:
            hit = self._listening[key] = any(t.verb == verb and (t.name is None or t.name == name)
                                             for c in self.pack.cards for t in c.triggers) \
                or self.claims_read(name if name is not None else verb)
        return hit

    def _automa_of(self, n: int) -> tuple[dict[str, int], tuple[int, ...], frozenset[int]]:
        hit = self._automa.get(n)
        if hit is None:
            seats = automa_seats(self.pack, n)
            hit = self._automa[n] = (
                {a["id"]: n + i for i, a in enumerate(seats)},
                tuple(n + i for i, a in enumerate(seats) if a.get("opponent", True)),
                frozenset(n + i for i, a in enumerate(seats) if a.get("bottomless")))
        return hit

    def automa_seat(self, name: str, n: int) -> int | None:
        """The seat of automa NAME in a game of n players; None when it does not sit in such a game."""
        return self._automa_of(n)[0].get(name)

    def opponent_automa(self, st) -> list[int]:
        """The automa seats the players' effects reach as opponents."""
        return list(self._automa_of(st.n)[1])

    def bottomless(self, n: int) -> frozenset[int]:
        """The automa seats that always have what is taken from them (`bottomless`): a loss from one of them
        is done in full, below the counter's minimum if need be."""
        return self._automa_of(n)[2]

    def claims_read(self, changed: str) -> bool:
        """Whether some claim of the pack reads `changed` (a counter, piece, flag or zone)."""
        names = self.claim_names
        return bool(names) and (changed in names or ANY in names)

    def _link_claims(self) -> None:
        pack = self.pack

        def make(c) -> Claim:
            # what the claim reads for any card; the query's own zones and filters decide which cards it has
            query_reads = _query_reads(pack, c.query, set()) if c.query else set()
            claim = Claim(pack, c.cond, self.link(c.cond), self.query(c.query) if c.query else None,
                          self.link(c.code), c.players,
                          frozenset(flag_events(pack, reads(pack, c.cond) | query_reads)))
            claim.query_reads = frozenset(flag_events(pack, query_reads))
            return claim

        self.rule_claims = [make(c) for c in pack.claims]
        self.card_claims = [[make(c) for c in card.claims] for card in pack.cards]
        self.claim_names = frozenset(n for cl in (*self.rule_claims, *(c for cs in self.card_claims for c in cs))
                                     for n in cl.reads)
        # the cards whose being in play matters to events: with triggers, or with claims of their own
        self.live_cards = [bool(t) or bool(c) for t, c in zip(self.triggers, self.card_claims, strict=True)]

    def link(self, code: Code) -> Linked:
        key = id(code)
        lc = self.cache.get(key)
        if lc is None:
            prepared = [self._prepare(ins) for ins in code.ops]
            prepared.append((op_RETURN,))
            # An opcode with an inline definition (inline.py) has no hand-written handler: it runs as a
            # region of one instruction, generated from that definition the first time it runs.
            ops = [single_on_first_run(code, prepared, k, self) if ins[0] in INLINE else prepared[k]
                   for k, ins in enumerate(code.ops)]
            ops.append(prepared[-1])
            if FUSE:
                fuse(code, prepared, ops, self)
            lc = self.cache[key] = Linked(code, ops)
        return lc

    def _prepare(self, ins: list) -> tuple:
        name, *args = ins
        handler = HANDLERS.get(name)
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
            args[i] = t if ("it" in t or "this" in t or "local" in t) else self.query(t)
        elif name in ("DISTINCT", "OCCURRENCES"):
            args[0] = self.query(args[0])
        elif name == "CAN_PERFORM":
            args[0] = self.link(Code.from_json(args[0]))
        elif name == "FOR_PLAYERS" and isinstance(args[1], dict):
            args[1] = self.players_spec(args[1])
        elif name in ("CHOOSE_PLAYER", "PLACED", "COUNT_PLAYERS"):
            args[0] = self.players_spec(args[0])
        elif name == "BEST":
            args[0] = self.link(Code.from_json(args[0]))
        return (handler, *args)

    def players_spec(self, spec: dict) -> dict:
        """A choice of a player or a ranking, prepared: its filters as one test (vm, frame, seat) -> bool, its
        measure linked."""
        out = dict(spec)
        if spec.get("filters"):
            tests = [self.player_test(t) for t in spec["filters"]]
            out["test"] = lambda vm, f, seat: all(t(vm, f, seat) for t in tests)
        if "by" in spec:
            out["by"] = self.link(Code.from_json(spec["by"]))
        return out

    def player_test(self, flt: list):
        """A player filter: a flag set or at least 1 of a counter ('has'), its negation, a counter compared."""
        kind = flt[0]
        if kind == "has":
            name = flt[1]
            return lambda vm, f, seat: vm.state.counters[seat].get(name, 0) > 0
        if kind == "not":
            inner = self.player_test(flt[1])
            return lambda vm, f, seat: not inner(vm, f, seat)
        name, op, value = flt[1], CMP[flt[2]], flt[3]
        if isinstance(value, dict):  # read for the chooser, as the rest of the statement is
            code = self.link(Code.from_json(value))
            return lambda vm, f, seat: op(vm.state.counters[seat].get(name, 0),
                                          vm.eval_sync(code, f.you, f.it, f.this, vars=f.vars))
        return lambda vm, f, seat: op(vm.state.counters[seat].get(name, 0), value)

    def query(self, q: dict) -> Query:
        if q.get("card_on_stack"):
            return Query([], None, on_stack=True)
        pred = self.pred(q["filters"]) if q["filters"] else None
        where = None
        if q.get("where"):
            where = self.link(Code.from_json(q["where"]))
            base = pred

            def pred(vm, f, c, base=base, where=where):
                return (base is None or base(vm, f, c)) and bool(vm.eval_sync(where, f.you, c.id, f.this,
                                                                               vars=f.vars))

        query = Query([(z, o) for z, o in q["zones"]], pred, reverse=bool(q.get("reverse")))
        query.run = self._query_code(query.zones, q["filters"], where, query.reverse)
        return query

    def _query_code(self, zones: list[tuple[str, str]], filters: list, where: Linked | None, reverse: bool):
        """`VM.query` of one query as a generated function: the zones unrolled, the filters written inline."""
        ns: dict[str, Any] = {"traits": self.traits, "defs": self.pack.cards, "owner": owner, "W": where,
                              "Frame": Frame, "_where": run_where, "others": others}
        tests = [self._filter_code(flt, ns) for flt in filters]
        lines = ["def run(vm, f):", " st = vm.state", " cards = st.cards", " zones = st.zones", " out = []"]
        if where is not None and where.pure:  # one frame for the whole query, as eval_sync would make per card
            lines.append(" w = Frame(W, f.you, None, f.this, vars=f.vars)")
            tests.append("_where(vm, w, cid)")
        elif where is not None:
            tests.append("bool(vm.eval_sync(W, f.you, cid, f.this, vars=f.vars))")
        for i, (zname, mode) in enumerate(zones):
            ns[f"z{i}"] = zname
            if zname is None:  # the zone a card is in ('the zone of it'), found now
                card = "f.it" if mode == "it" else "f.this" if mode == "this" else f"f.vars[{mode[6:]!r}]"
                lines.append(f" zc = {card}")
                lines.append(" if zc is not None:")
                lines.append("  zc = cards[zc]")
                lines.append("  for cid in zones[(zc.zone, zc.seat)]:")
                pad = "   "
            elif mode in ("others", "all") and self.pack.automa:  # automa seats are opponents too
                lines.append(f" for seat in others(vm, f.you, {mode == 'all'}):")
                lines.append(f"  for cid in zones[(z{i}, seat)]:")
                pad = "   "
            elif mode in ("others", "all"):
                lines.append(" n = st.n")
                lines.append(f" for i in range({0 if mode == 'all' else 1}, n):")
                lines.append(f"  for cid in zones[(z{i}, (f.you + i) % n)]:")
                pad = "   "
            else:
                seat = "f.you" if mode == "you" else f"({SHARED})" if mode == "shared" else f"owner(vm, {mode!r}, f)"
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
        if kind == "not-card":
            return "(c.id != f.it)" if flt[1] == "it" else f"(c.id != f.vars[{const(flt[1][6:])}])"
        if kind == "all":  # a filter macro: all of its filters
            return "(" + " and ".join(self._filter_code(g, ns) for g in flt[1]) + ")" if flt[1] else "True"
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
        if kind == "all":
            parts = [self._filter(g) for g in flt[1]]
            return lambda vm, f, c: all(p(vm, f, c) for p in parts)
        if kind == "ability":
            # multicolour counts as each colour it matches (seed 000: 多色の能力 ... それぞれの色としてカウント)
            runs = frozenset(self.run_timings.get(flt[1], [flt[1]]))
            abilities = self.pack.cards
            return lambda vm, f, c: not runs.isdisjoint(abilities[c.defn].abilities) or \
                not runs.isdisjoint(abilities[c.defn].conditions)
        if kind == "not-this":
            return lambda vm, f, c: c.id != f.this
        if kind == "not-card":
            if flt[1] == "it":
                return lambda vm, f, c: c.id != f.it
            local = flt[1][6:]
            return lambda vm, f, c: c.id != f.vars[local]
        if kind == "stat" and flt[1] in self.pack.pieces:
            piece, op, value = flt[1], CMP[flt[2]], flt[3]
            if isinstance(value, dict):
                code = self.link(Code.from_json(value))
                return lambda vm, f, c: op(c.pieces.get(piece, 0), vm.eval_sync(code, f.you, f.it, f.this,
                                                                               vars=f.vars))
            return lambda vm, f, c: op(c.pieces.get(piece, 0), value)
        if kind == "stat":
            stat, op, value = flt[1], CMP[flt[2]], flt[3]
            if isinstance(value, dict):
                code = self.link(Code.from_json(value))
                return lambda vm, f, c: op(vm.stat(c, stat, f.you), vm.eval_sync(code, f.you, f.it, f.this,
                                                                                 vars=f.vars))
            return lambda vm, f, c: op(vm.stat(c, stat, f.you), value)
        raise ValueError(f"unknown filter {flt!r}")


class Source:
    """A payment source, prepared: the currency it pays, a counter or a query of cards, the rate (a number,
    or a program run with the card as 'it'), a filter on the card paid for, and the spend program."""

    __slots__ = ("counter", "currency", "query", "rate", "rate_stat", "spend", "target", "text")

    def __init__(self, lk: Linker, d: dict) -> None:
        self.currency = d["currency"]
        self.text = d["text"]
        self.counter = d.get("counter")
        self.query = lk.query(d["query"]) if "query" in d else None
        rate = d.get("rate", 1)
        self.rate = lk.link(Code.from_json(rate)) if isinstance(rate, dict) else rate
        # 'at STAT of it' (the card's own value) is read without running the program
        ops = rate.get("ops") if isinstance(rate, dict) else None
        self.rate_stat = ops[1][1] if ops and len(ops) == 2 and ops[0] == ["IT"] and ops[1][0] == "STAT" else None
        self.target = lk.pred(d["target"]) if "target" in d else None
        self.spend = lk.link(Code.from_json(d["spend"])) if "spend" in d else None


def run_where(vm, w: Frame, cid: int) -> bool:
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
            if ins[0](vm, w, ins) is not None:  # pragma: no cover - a handler out of PURE
                raise RuntimeError(f"internal: {ins!r} is not pure")
    finally:
        vm.sync -= 1
    return bool(stack[-1]) if stack else False


_LINKERS: dict[int, Linker] = {}


def linker_for(pack: CompiledPack) -> Linker:
    lk = _LINKERS.get(id(pack))
    if lk is None or lk.pack is not pack:
        lk = _LINKERS[id(pack)] = Linker(pack)
    return lk
