"""Code generation: checked AST to bytecode (see `opcodes` for every instruction).

Runs only on programs the checker passed, so it can assume names resolve. Each
instruction records the span of the node it came from.
"""

from __future__ import annotations

from cardsmith.bytecode import Code

from . import ast as A
from .diagnostics import Span
from .emit_players import PlayerEmits, _who
from .unparse import text
from .vocab import Vocabulary

X_LOCAL = "X"  # the local name that carries X into the codes of a program's filters (no name of a pack: capital)
IT_AMOUNT = "AMOUNT"  # the local name of a piece amount worked out before its targets are walked


class SpanTable:
    def __init__(self) -> None:
        self.spans: list[Span] = []
        self._index: dict[tuple, int] = {}

    def add(self, span: Span) -> int:
        key = (span.file, span.line, span.col)
        i = self._index.get(key)
        if i is None:
            i = self._index[key] = len(self.spans)
            self.spans.append(Span(span.file, span.line, span.col))
        return i


class Emitter(PlayerEmits):
    def __init__(self, voc: Vocabulary, spans: SpanTable) -> None:
        self.voc = voc
        self.table = spans
        self.code: Code = Code("")
        self.span: Span = Span("<none>", 0, 0)
        self.activating = False  # inside an activation order: its card activations may be skipped
        # X of the program being emitted: `x_local` when it chooses X somewhere, so that the filters and 'where'
        # conditions it runs (codes of their own, on frames of their own) read it from the local name X_LOCAL;
        # `x_known` once an X is chosen before the statement being emitted, which a later cost with X then pays.
        self.x_local = False
        self.x_known = False
        self.top: Code | None = None  # the program being emitted (a filter's code is another)
        self.splits: list[str] = []  # inside 'for the players with ... (ties split)': the local of the tie's size
        self.players: list[str] = []  # the local names bound to players here ('choose a player ... as NAME')

    # ------------------------------------------------------------ assembly
    def new(self, name: str) -> Code:
        self.code = Code(name)
        return self.code

    def op(self, name: str, *operands) -> int:
        self.code.ops.append([name, *operands])
        self.code.spans.append(self.table.add(self.span))
        return len(self.code.ops) - 1

    def here(self) -> int:
        return len(self.code.ops)

    def patch(self, at: int, target: int | None = None) -> None:
        self.code.ops[at][1] = self.here() if target is None else target

    def at(self, node) -> None:
        sp = getattr(node, "span", None)
        if sp is not None and sp.line > 0:
            self.span = sp

    # ------------------------------------------------------------ entry points
    def program(self, name: str, body: tuple) -> Code:
        saved = self.x_local, self.x_known, self.top
        self.top = self.new(name)
        self.x_local, self.x_known = _x_in_filters(body), False
        if self.x_local:  # defined before any filter reads it: X is 0 until chosen
            self.op("PUSH", 0)
            self.op("SET_LOCAL", X_LOCAL)
        self.stmts(body)
        code = self.code
        self.x_local, self.x_known, self.top = saved
        return code

    def expression(self, name: str, expr) -> Code:
        self.new(name)
        self.expr(expr)
        return self.code

    def cost_check(self, name: str, cost) -> Code:
        """A Code that leaves True when `cost` can be paid in full now."""
        self.new(name)
        self.check(cost)
        return self.code

    # ------------------------------------------------------------ statements
    def stmts(self, body) -> None:
        known = self.x_known
        skips = []  # 'choose X' from an empty range skips the rest of the group
        bound = len(self.players)  # players bound by 'let' hold to the end of their group
        for s in body:
            if isinstance(s, A.Trigger | A.Modify | A.Prevent | A.AsSoonAs | A.PaySource):
                continue  # collected by the pipeline as live abilities, not run in sequence
            self.at(s)
            getattr(self, f"s_{type(s).__name__}")(s)
            if isinstance(s, A.ChooseX):
                skips.append(self.x_skip)
                self.x_known = True
        for j in skips:
            self.patch(j)
        self.x_known = known
        del self.players[bound:]

    def s_Gain(self, s: A.Gain) -> None:
        self.amount(s.amount, s.resource, s.per, share=True)
        self.op("GAIN", s.resource)

    def s_Lose(self, s: A.Lose) -> None:
        self.amount(s.amount, s.resource, s.per)
        self.op("LOSE", s.resource)

    def s_Pay(self, s: A.Pay) -> None:
        # Outside a cost, paying still happens in full or not at all (PAY checks that itself, so that a trial
        # sees a price that cannot be paid).
        if self.sourced(s):
            self.pay_operands(s)
            self.op("PAY", [res for _, res in s.items], s.for_card is not None)
            return
        self.s_Costed(A.Costed(s, (), span=s.span))

    def s_SetCounter(self, s: A.SetCounter) -> None:
        self.expr(s.value)
        self.op("SET", s.name)

    def s_Score(self, s: A.Score) -> None:
        self.amount(s.amount, None, s.per, share=True)
        self.op("SCORE", s.step)

    def s_May(self, s: A.May) -> None:
        self.op("MAY", f"may {text(s.body)}")
        j = self.op("JUMP_IF_NOT", None)
        self.stmts((s.body,))
        self.patch(j)

    def s_Group(self, s: A.Group) -> None:
        self.stmts(s.body)

    def s_Nothing(self, s) -> None:
        pass

    def s_Emit(self, s: A.Emit) -> None:
        self.op("EMIT", s.event, s.object)

    def s_PassFirst(self, s: A.PassFirst) -> None:
        self.op("PASS_FIRST", _who(s.to))

    def s_EndGame(self, s) -> None:
        self.op("END_GAME")

    def s_Shuffle(self, s: A.Shuffle) -> None:
        self.op("SHUFFLE", self.zone(s.zone))

    def s_Activation(self, s: A.Activation) -> None:
        """The pack's activation order: each card at most once (once-per-card) between BEGIN and END, and
        each 'activate ... ability of' in it may be skipped when the activation is optional."""
        self.op("BEGIN_ACTIVATION", s.timing)
        outer, self.activating = self.activating, True
        self.stmts(s.body)
        self.activating = outer
        self.at(s)
        self.op("END_ACTIVATION")

    def s_ActivateCopy(self, s: A.ActivateCopy) -> None:
        act = self.voc.activation.value if self.voc.activation else {}
        optional = self.activating and bool(act.get("optional", True))
        self.for_target(s.target, lambda: (self.op("IT"), self.op("RUN_ABILITY", s.timing, optional)))

    def s_Flip(self, s: A.Flip) -> None:
        self.for_target(s.target, lambda: (self.op("IT"), self.op("FLIP")))

    def s_Reveal(self, s: A.Reveal) -> None:
        self.amount(s.amount, None)
        self.op("REVEAL", self.source(s.source))

    def s_InAnyOrder(self, s: A.InAnyOrder) -> None:
        # ORDER leaves the chosen order as an iterator; NEXT_PART hands out the parts one by one.
        self.op("ORDER", [text(p) for p in s.parts])
        loop = self.op("NEXT_PART", None)
        sw = self.op("SWITCH", [])
        targets = []
        for part in s.parts:
            targets.append(self.here())
            self.stmts((part,))
            self.op("JUMP", loop)
        self.patch(loop)
        self.code.ops[sw][1] = targets

    def payment(self, s: A.PaySource) -> dict:
        """A payment source as the VM reads it (pack.payments, or a card's live payments)."""
        saved = (self.code, self.span)
        out: dict = {"currency": s.currency, "text": text(s)}
        if s.counter is not None:
            out["counter"] = s.counter
        else:
            out["query"] = self.query(s.query)
        if s.rate is not None:
            out["rate"] = _const(s.rate, self.voc) if is_const(s.rate, self.voc) else \
                self.expression(f"rate of {text(s)}", s.rate).to_json()
        if s.target is not None:
            out["target"] = [self.filter(f) for f in s.target]
        if s.spend:
            out["spend"] = self.program(f"spend: {text(s)}", s.spend).to_json()
        self.code, self.span = saved
        return out
    def s_OpenWindow(self, s: A.OpenWindow) -> None:
        self.op("WINDOW", s.name)

    def s_ChooseX(self, s: A.ChooseX) -> None:
        # No number lies in an empty range: the rest of the group is skipped (stmts patches the jump).
        self.expr(s.low)
        self.expr(s.high)
        self.op("BIN", "<=")
        self.x_skip = self.op("JUMP_IF_NOT", None)
        self.expr(s.low)
        self.expr(s.high)
        self.op("CHOOSE_X")
        self.keep_x()

    def keep_x(self) -> None:
        """After CHOOSE_X: the chosen X also where the program's filters read it."""
        if self.x_local:
            self.op("X")
            self.op("SET_LOCAL", X_LOCAL)

    def s_Move(self, s: A.Move) -> None:
        src = self.source(s.source)
        if s.amount.kind == "all":
            src["all"] = True  # everything goes: nobody chooses which card first
        optional = s.amount.kind == "up_to"
        if s.amount.kind == "all":
            self.op("PUSH", 10_000)
        else:
            self.expr(s.amount.value)
        loop = self.op("COUNTDOWN", None)
        self.op("TAKE", src, optional)
        stop = self.op("JUMP_IF_NOT", None)
        self.put(s.dest, s.face)
        self.op("JUMP", loop)
        self.patch(stop)
        self.op("POP")
        self.patch(loop)

    def s_MoveCard(self, s: A.MoveCard) -> None:
        if isinstance(s.card, A.This | A.LocalCard):
            # Moving 'this' (or a named card) works on that card; 'it' is the card PUT moves.
            self.card_value(s.card)
            self.op("FOR_CARDS", {"card_on_stack": True})
            j = self.op("NEXT_CARD", None)
            self.put(s.dest, s.face)
            self.op("JUMP", j)
            self.patch(j)
            return
        self.put(s.dest, s.face)

    def put(self, d: A.Dest, face: str | None) -> None:
        """Put 'it' in the destination; a named cell is worked out here, with the card being moved as 'it'."""
        if d.cell is None:
            self.op("PUT", self.dest(d), face)
            return
        self.expr(d.cell.row)
        self.expr(d.cell.column)
        self.op("PUT_CELL", self.dest(d), face)

    def s_Place(self, s: A.Place) -> None:
        self.pieces(s.amount, s.piece, s.target, "add", s.owned)

    def s_Remove(self, s: A.Remove) -> None:
        self.pieces(s.amount, s.piece, s.target, "remove", False)

    def pieces(self, amount: A.Amount, piece: str, target, mode: str, owned: bool) -> None:
        opname = "ADD_PIECES" if mode == "add" else "TAKE_PIECES"
        if isinstance(target, A.AnyOf):
            # One piece at a time, each to a card the player picks among those with room.
            optional = amount.kind == "up_to"
            self.amount_value(amount)
            loop = self.op("COUNTDOWN", None)
            self.op("PICK_HOLDER", self.query(target.query), piece, mode, optional)
            stop = self.op("JUMP_IF_NOT", None)
            self.op("PUSH", 1)
            self.op(opname, piece, owned)
            self.op("JUMP", loop)
            self.patch(stop)
            self.op("POP")
            self.patch(loop)
            return

        if not isinstance(target, A.It) and amount.value is not None and _mentions_it(amount.value):
            # 'it' in the amount is the card it means before the statement (a trigger's card, a loop's), not
            # each card the pieces go on: worked out once, before the target is walked
            self.amount_value(amount)
            self.op("SET_LOCAL", IT_AMOUNT)

            def body():
                self.op("LOCAL", IT_AMOUNT)
                if amount.kind == "up_to":
                    self.op("UPTO", "how many")
                self.op(opname, piece, owned)
        else:
            def body():
                self.amount(amount, None)
                self.op(opname, piece, owned)

        self.for_target(target, body)

    def for_target(self, target, body) -> None:
        """Run `body` with 'it' set to each card the target names."""
        if isinstance(target, A.It):
            body()
            return
        if isinstance(target, A.This | A.LocalCard):
            self.card_value(target)
            q = {"card_on_stack": True}
        elif isinstance(target, A.EachOf):
            q = self.query(target.query)
        else:  # AnyOf: the player picks one
            self.op("CHOOSE_CARD", self.query(target.query), False)
            j = self.op("JUMP_IF_NOT", None)
            body()
            self.patch(j)
            return
        self.op("FOR_CARDS", q)
        loop = self.op("NEXT_CARD", None)
        body()
        self.op("JUMP", loop)
        self.patch(loop)

    def s_Costed(self, s: A.Costed) -> None:
        if isinstance(s.cost, A.Reveal):
            self.amount(s.cost.amount, None)
            self.op("DUP")
            self.op("CAN_TAKE", self.source(s.cost.source))
            skip = self.op("JUMP_IF_NOT", None)
            self.op("REVEAL", self.source(s.cost.source))
            self.stmts(s.body)
            end = self.op("JUMP", None)
            self.patch(skip)
            self.op("POP")
            self.patch(end)
            return
        known = self.x_known
        if _uses_x(s.cost) and not known:  # a cost with X after X was chosen pays that X: it does not ask again
            self.op("PUSH", 0)
            self.x_bound(s.cost)
            self.op("CHOOSE_X")
            self.keep_x()
            self.x_known = True
        self.check(s.cost)
        skip = self.op("JUMP_IF_NOT", None)
        self.pay(s.cost)
        self.stmts(s.body)
        self.patch(skip)
        self.x_known = known

    def x_bound(self, cost) -> None:
        for item in _flatten_cost(cost):
            if isinstance(item, A.Pay):
                for amount, res in item.items:
                    if isinstance(amount.value, A.VarX) and res in self.voc.resources:
                        self.op("COUNTER", res)
                        return
        self.op("PUSH", 20)

    def check(self, cost) -> None:
        """Leave True on the stack when the cost can be paid in full."""
        self.at(cost)
        if isinstance(cost, A.Group):
            parts = cost.body
            if not parts:
                self.op("PUSH", True)
                return
            self.check(parts[0])
            for p in parts[1:]:
                self.check(p)
                self.op("BIN", "and")
            return
        if isinstance(cost, A.May):
            self.check(cost.body)
            no = self.op("JUMP_IF_NOT", None)
            self.op("MAY", f"may {text(cost.body)}")
            done = self.op("JUMP", None)
            self.patch(no)
            self.op("PUSH", False)
            self.patch(done)
            return
        if isinstance(cost, A.Pay) and self.sourced(cost):
            self.pay_operands(cost)
            self.op("CAN_PAY", [res for _, res in cost.items], cost.for_card is not None)
            return
        if isinstance(cost, A.Pay | A.Lose):
            items = cost.items if isinstance(cost, A.Pay) else ((cost.amount, cost.resource),)
            first = True
            for amount, res in items:
                self.amount(amount, res)
                self.op("HAS", res)
                if not first:
                    self.op("BIN", "and")
                first = False
            return
        if isinstance(cost, A.Move):
            self.expr(cost.amount.value)
            self.op("CAN_TAKE", self.source(cost.source))
            return
        if isinstance(cost, A.MoveCard):
            self.op("PUSH", True)
            return
        if isinstance(cost, A.Remove):
            self.amount(cost.amount, None)
            self.op("CAN_REMOVE", cost.piece, self.target_operand(cost.target))
            return
        if isinstance(cost, A.Mark):
            self.op("CAN_MARK", cost.flag, cost.on, self.target_operand(cost.target))
            return
        self.op("PUSH", True)  # unreachable for checked programs

    def pay(self, cost) -> None:
        if isinstance(cost, A.Group):
            for p in cost.body:
                self.pay(p)
            return
        if isinstance(cost, A.May):
            self.pay(cost.body)
            return
        self.at(cost)
        if isinstance(cost, A.Pay) and self.sourced(cost):
            self.pay_operands(cost)
            self.op("PAY", [res for _, res in cost.items], cost.for_card is not None)
            return
        if isinstance(cost, A.Pay):
            for amount, res in cost.items:
                self.amount(amount, res)
                self.op("LOSE", res)
            return
        self.stmts((cost,))

    def sourced(self, p: A.Pay) -> bool:
        """Whether some payment source of the pack pays a currency of `p`: else it compiles to HAS and LOSE,
        as it always did."""
        return any(res in self.voc.currencies for _, res in p.items)

    def pay_operands(self, p: A.Pay) -> None:
        for amount, res in p.items:
            self.amount(amount, res)
        if p.for_card is not None:
            self.expr(p.for_card)
    def card_value(self, ref) -> None:
        """Push a card named by 'this' or 'the NAME' (at the statement's own span)."""
        if isinstance(ref, A.This):
            self.op("THIS")
        else:
            self.op("LOCAL", ref.name)

    def target_operand(self, target):
        if isinstance(target, A.EachOf | A.AnyOf):
            return self.query(target.query)
        if isinstance(target, A.LocalCard):
            return {"local": target.name}
        return {"it": True} if isinstance(target, A.It) else {"this": True}

    def s_If(self, s: A.If) -> None:
        self.expr(s.cond)
        j = self.op("JUMP_IF_NOT", None)
        self.stmts(s.then)
        if s.otherwise:
            end = self.op("JUMP", None)
            self.patch(j)
            self.stmts(s.otherwise)
            self.patch(end)
        else:
            self.patch(j)

    def s_ForEach(self, s: A.ForEach) -> None:
        q = self.query(s.query)
        if s.reverse:
            q["reverse"] = True
        self.op("FOR_CARDS", q)
        loop = self.op("NEXT_CARD", None)
        if s.name is not None:
            self.op("IT")
            self.op("SET_LOCAL", s.name)
        self.stmts(s.body)
        self.op("JUMP", loop)
        self.patch(loop)

    def s_Repeat(self, s: A.Repeat) -> None:
        if s.kind in ("times", "up_to"):
            self.expr(s.value)
            loop = self.op("COUNTDOWN", None)
            if s.kind == "up_to":
                # Another round is offered only when its leading cost can be paid (a leading 'if' is not a
                # guard here: the player may still be asked, and the round then does nothing).
                guarded = self.guard(s.body, conditions=False)
                if guarded:
                    unable = self.op("JUMP_IF_NOT", None)
                self.op("MAY", f"again: {text(s.body)}")
                stop = self.op("JUMP_IF_NOT", None)
                self.stmts(s.body)
                self.op("JUMP", loop)
                self.patch(stop)
                if guarded:
                    self.patch(unable)
                self.op("POP")
            else:
                self.stmts(s.body)
                self.op("JUMP", loop)
            self.patch(loop)
            return
        top = self.here()
        self.expr(s.value)
        j = self.op("JUMP_IF" if s.kind == "until" else "JUMP_IF_NOT", None)
        self.stmts(s.body)
        self.op("JUMP", top)
        self.patch(j)

    def guard_code(self, name: str, opt: tuple) -> Code | None:
        """An option's guard as a program of its own (a window's options), or None when it has none."""
        self.new(name)
        return self.code if self.guard(opt) else None

    def s_ChooseOne(self, s: A.ChooseOne) -> None:
        for opt in s.options:
            if not self.guard(opt):
                self.op("PUSH", True)
        self.op("CHOOSE", [text(o) for o in s.options])
        sw = self.op("SWITCH", [])
        ends = []
        targets = []
        for opt in s.options:
            targets.append(self.here())
            self.stmts(opt)
            ends.append(self.op("JUMP", None))
        self.code.ops[sw][1] = [*targets, self.here()]  # the last target: no option could happen
        for e in ends:
            self.patch(e)

    def guard(self, body: tuple, conditions: bool = True) -> bool:
        """Leave on the stack whether a body (an option, a round) can happen now: one that starts with 'if' (no
        else; unless `conditions` is False) or with a cost is offered only when that holds. False (and nothing
        emitted) when it has no guard."""
        first = body[0] if body else None
        while isinstance(first, A.Group) and first.body:  # a macro's body guards like written-out text
            first = first.body[0]
        if conditions and isinstance(first, A.If) and not first.otherwise:
            self.expr(first.cond)
            self.op("BOOL")
            return True
        if isinstance(first, A.Costed) and not isinstance(first.cost, A.Reveal | A.May) and not _uses_x(first.cost):
            self.check(first.cost)
            return True
        return False

    def s_ChooseCard(self, s: A.ChooseCard) -> None:
        self.op("CHOOSE_CARD", self.query(s.query), False)
        j = self.op("JUMP_IF_NOT", None)
        if s.name is not None:
            self.op("IT")
            self.op("SET_LOCAL", s.name)
        self.stmts(s.body)
        self.patch(j)

    # ------------------------------------------------------------ operands
    def amount(self, a: A.Amount, resource: str | None, per: A.Per | None = None, share: bool = False) -> None:
        """The amount on the stack; 'per' scales it first, so 'up to' offers every part of the total. A reward
        (`share`: a score, a gain) given to players who split a tie is divided among them, rounded down."""
        self.amount_value(a)
        if per is not None:
            self.per(per)
        if share and self.splits:
            self.op("LOCAL", self.splits[-1])
            self.op("BIN", "/")
        if a.kind == "up_to":
            self.op("UPTO", f"how many{' ' + resource if resource else ''}")

    def amount_value(self, a: A.Amount) -> None:
        if a.kind == "all":
            self.op("PUSH", 10_000)
        else:
            self.expr(a.value)

    def per(self, p: A.Per) -> None:
        if isinstance(p.of, A.Query):
            self.op("COUNT", self.query(p.of))
        else:
            self.expr(p.of)
        self.op("PER", p.divisor)

    def zone(self, z: A.ZoneRef | A.ZoneOf) -> list:
        """[name, owner]: owner is shared, you, active, left, right, first, others or all. The zone a card is
        in is [None, "it" | "this" | "local:NAME"], found when the query runs."""
        if isinstance(z, A.ZoneOf):
            c = z.card
            return [None, "it" if isinstance(c, A.It) else "this" if isinstance(c, A.This) else f"local:{c.name}"]
        owner = "shared" if self.voc.zone(z.name).get("owner", "player") == "shared" else \
            (_who(z.player) if z.player else "you")
        return [z.name, owner]

    def source(self, s: A.Source) -> dict:
        return {"zone": self.zone(s.zone), "end": s.end, "filters": [self.filter(f) for f in s.filters]}

    def dest(self, d: A.Dest) -> dict:
        return {"zone": self.zone(d.zone), "end": d.end}

    def query(self, q: A.Query) -> dict:
        zones = [self.zone(z) for z in q.zones]
        if not zones:
            zones = [[n, "you"] for n, e in self.voc.zones.items()
                     if e.value.get("in-play") and e.value.get("owner", "player") == "player"]
        out = {"zones": zones, "filters": [self.filter(f) for f in q.filters]}
        if q.where is not None:
            saved = (self.code, self.span)
            out["where"] = self.expression("where", q.where).to_json()
            self.code, self.span = saved
        return out

    def filter(self, f) -> list:
        voc = self.voc
        if isinstance(f, A.TraitIs):
            if f.trait == "type":
                return ["type", list(f.values)]
            if f.trait == "zone":
                return ["zone", list(f.values)]
            return ["trait", f.trait, list(f.values)]
        if isinstance(f, A.Has | A.HasNo):
            n = f.name
            if n in voc.card_types:
                inner = ["type", [n]]
            elif n in voc.flags:
                inner = ["flag", n]
            elif n in voc.pieces:
                inner = ["piece", n]
            else:
                inner = ["trait", voc.trait_values[n][0], [n]]
            return ["not", inner] if isinstance(f, A.HasNo) else inner
        if isinstance(f, A.HasAbility):
            return ["ability", f.timing]
        if isinstance(f, A.StatCmp):
            if is_const(f.value, voc) and not isinstance(f.value, A.Name):
                return ["stat", f.stat, f.op, _const(f.value, voc)]
            # Compared with something that changes (a counter, a param): evaluated once per query.
            saved = (self.code, self.span)
            value = self.expression(f"filter {f.stat} {f.op}", f.value).to_json()
            self.code, self.span = saved
            return ["stat", f.stat, f.op, value]
        if isinstance(f, A.FilterNot):
            return ["not", self.filter(f.inner)]
        if isinstance(f, A.NotThis):
            return ["not-this"]
        if isinstance(f, A.NotCard):
            return ["not-card", "it" if isinstance(f.card, A.It) else f"local:{f.card.name}"]
        if isinstance(f, A.MacroFilter):
            return ["all", [self.filter(g) for g in f.filters]]
        raise AssertionError(f)

    # ------------------------------------------------------------ expressions
    def expr(self, e) -> None:
        self.at(e)
        getattr(self, f"e_{type(e).__name__}")(e)

    def e_Num(self, e: A.Num) -> None:
        self.op("PUSH", e.value)

    def e_Bool(self, e: A.Bool) -> None:
        self.op("PUSH", e.value)

    def e_VarX(self, e) -> None:
        # in a filter's or a condition's own code, X is the program's, kept in a local name
        self.op("LOCAL", X_LOCAL) if self.x_local and self.code is not self.top else self.op("X")

    def e_It(self, e) -> None:
        self.op("IT")

    def e_This(self, e) -> None:
        self.op("THIS")

    def e_LocalCard(self, e: A.LocalCard) -> None:
        self.op("LOCAL", e.name)

    def e_Name(self, e: A.Name) -> None:
        voc = self.voc
        if e.name in voc.player_flags:  # kept as a counter of 0 or 1 (see the pipeline)
            self.op("COUNTER", e.name)
            self.op("BOOL")
        elif e.name in voc.resources:
            self.op("COUNTER", e.name)
        elif e.name in voc.counters:
            self.op("GLOBAL", e.name)
        elif e.name == "player-count":
            self.op("NPLAYERS")
        elif e.name == "total-score":
            self.op("TOTAL_SCORE")
        elif e.name in voc.params:
            self.op("PARAM", e.name)
        else:  # the checker allows no other name: a local one
            self.op("LOCAL", e.name)

    def e_Pieces(self, e: A.Pieces) -> None:
        self.expr(e.ref)
        self.op("PIECES", f"{e.piece}@" if e.owned else e.piece)

    def e_Count(self, e: A.Count) -> None:
        self.op("COUNT", self.query(e.query))

    def e_CountPlayers(self, e: A.CountPlayers) -> None:
        self.op("COUNT_PLAYERS", self.pick(e.other, e.filters))

    def e_SumOf(self, e: A.SumOf) -> None:
        self.op("SUM", e.name, self.query(e.query))

    def e_Func(self, e: A.Func) -> None:
        n = e.name
        if n in ("min", "max"):
            self.expr(e.args[0])
            for a in e.args[1:]:
                self.expr(a)
                self.op("BIN", n)
        elif n == "abs":
            self.expr(e.args[0])
            self.op("ABS")
        elif n in ("highest", "lowest"):
            self.op("BEST", self.sub_expression(f"{n} of", e.args[0]), n == "lowest")
        elif n == "nth":
            self.expr(e.args[1])
            self.op("NTH", e.args[0].name)
        elif n == "sets":
            slots = [self.filter(a if isinstance(a, A.TraitIs) else A.Has(a.name)) for a in e.args[1:]]
            self.op("SETS", self.query(e.args[0]), slots)
        elif n == "path":
            self.expr(e.args[1])
            self.op("PATH", self.query(e.args[0]))
        elif n == "neighbours":
            self.expr(e.args[1])
            self.op("NEIGHBOURS", self.query(e.args[0]))
        elif n in ("rows", "columns"):
            self.op("LINES", self.query(e.args[0]), n)
        elif n == "distinct":
            self.op("DISTINCT", self.query(e.args[0]))
        elif n == "occurrences":
            t = e.args[1]
            if isinstance(e.args[0], A.Query):
                self.op("OCCURRENCES", self.query(e.args[0]), t.trait, list(t.values))
            else:  # one card (it, this): counted from the stack
                self.expr(e.args[0])
                self.op("OCCURRENCES", {"card_on_stack": True}, t.trait, list(t.values))

    def e_Can(self, e: A.Can) -> None:
        st = e.stmt
        if isinstance(st, A.Pay):
            self.check(st)
            return
        if isinstance(st, A.ActivateCopy):
            self.expr(st.target)
            self.op("CAN_ACTIVATE", st.timing)
            return
        # Any other statement: the VM reads its guards (leading conditions and costs) from the bytecode and
        # tries the rest on a copy of the game.
        saved = (self.code, self.span)
        code = self.program(f"can {text(st)}", (st,)).to_json()
        self.code, self.span = saved
        self.op("CAN_PERFORM", code)

    def e_CardIs(self, e: A.CardIs) -> None:
        self.expr(e.ref)
        self.op("MATCH", self.filter(e.filter))

    def e_BinOp(self, e: A.BinOp) -> None:
        if e.op in ("and", "or"):
            # Short-circuit: the right side runs only when it can change the result.
            self.expr(e.left)
            self.op("BOOL")
            self.op("DUP")
            j = self.op("JUMP_IF_NOT" if e.op == "and" else "JUMP_IF", None)
            self.op("POP")
            self.expr(e.right)
            self.op("BOOL")
            self.patch(j)
            return
        self.expr(e.left)
        self.expr(e.right)
        self.op("BIN", e.op)

    def e_Not(self, e: A.Not) -> None:
        self.expr(e.operand)
        self.op("NOT")

    def e_Neg(self, e: A.Neg) -> None:
        self.expr(e.operand)
        self.op("NEG")

    def e_Cond(self, e: A.Cond) -> None:
        self.expr(e.cond)
        j = self.op("JUMP_IF_NOT", None)
        self.expr(e.then)
        end = self.op("JUMP", None)
        self.patch(j)
        self.expr(e.otherwise)
        self.patch(end)




def _const(e, voc: Vocabulary) -> int:
    if isinstance(e, A.Num):
        return e.value
    if isinstance(e, A.Neg):
        return -_const(e.operand, voc)
    raise ValueError("not a constant")


def is_const(e, voc: Vocabulary) -> bool:
    try:
        _const(e, voc)
        return True
    except ValueError:
        return False


def const_value(e, voc: Vocabulary) -> int:
    return _const(e, voc)


def _flatten_cost(cost):
    if isinstance(cost, A.Group):
        for c in cost.body:
            yield from _flatten_cost(c)
    elif isinstance(cost, A.May):
        yield from _flatten_cost(cost.body)
    else:
        yield cost


def _mentions_it(node) -> bool:
    """Whether an expression reads the 'it' of where it stands (a query's 'where' reads the card it looks at)."""
    import dataclasses

    if isinstance(node, A.It):
        return True
    if isinstance(node, tuple):
        return any(_mentions_it(n) for n in node)
    if isinstance(node, A.Query):  # its 'where' reads the card it looks at: only its zones and filters count
        return _mentions_it(node.zones) or _mentions_it(node.filters)
    if not isinstance(node, A.Node):
        return False
    return any(_mentions_it(getattr(node, f.name)) for f in dataclasses.fields(node) if f.name != "span")


def _x_in_filters(body) -> bool:
    """Whether a program reads X in a filter or a 'where' (each run as a code of its own, that reads the
    program's X from its local name X_LOCAL)."""
    import dataclasses

    if isinstance(body, tuple):
        return any(_x_in_filters(n) for n in body)
    if isinstance(body, A.StatCmp):
        return _uses_x(body.value)
    if isinstance(body, A.Query) and body.where is not None and _uses_x(body.where):
        return True
    if not isinstance(body, A.Node):
        return False
    return any(_x_in_filters(getattr(body, f.name)) for f in dataclasses.fields(body) if f.name != "span")


def _uses_x(node) -> bool:
    import dataclasses

    if isinstance(node, A.VarX):
        return True
    if isinstance(node, tuple):
        return any(_uses_x(n) for n in node)
    if dataclasses.is_dataclass(node):
        return any(_uses_x(getattr(node, f.name)) for f in dataclasses.fields(node) if f.name != "span")
    return False
