"""The checks of prices and costs (Language 2, part 1): a mixin of the checker (check.py), which gives it `err`,
`warn`, `word`, `unknown`, `amount`, `expect`, `query`, `filter`, `stmts`, `stmt`, `cardref` and the rest.

A price names resources or currencies (units only payment sources pay); a payment source is declared where it
stays live and says how a card that pays is spent; a cost before ':' is something checked before it is paid.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from . import ast as A
from .diagnostics import Span
from .unparse import text as text_of

if TYPE_CHECKING:
    from .check import Context


class PaymentChecks:
    """Checker methods for 'pay', payment sources and costs (see the module)."""

    def s_Pay(self, s: A.Pay, ctx: Context) -> None:
        for amount, res in s.items:
            self.amount(amount, ctx)
            self.currency_name(res, s.span, ctx)
        if s.for_card is not None:
            self.cardref(s.for_card, ctx)

    def currency_name(self, name: str, span: Span, ctx: Context) -> None:
        """What 'pay' takes: a resource, or a unit that only payment sources pay (a currency)."""
        if name in self.voc.currencies or self.param(name, ctx):
            self.paid.add(name)
            return
        self.counter_name(name, span, ctx)

    def s_PaySource(self, s: A.PaySource, ctx: Context) -> None:
        voc = self.voc
        if not (ctx.allow_live or ctx.kind == "payment"):
            self.err(ctx, "E120", "a payment source ('pay ... with ...') is declared in rules.yaml's payments or at "
                     "the top of an ongoing ability, where it stays live", s.span,
                     hint=f"to pay now, say 'pay AMOUNT {s.currency}'")
        if s.currency in voc.counters or s.currency in voc.pieces or s.currency in voc.params:
            what = "shared counter" if s.currency in voc.counters else \
                "piece" if s.currency in voc.pieces else "param"
            self.err(ctx, "E122", f"'{s.currency}' is a {what}: a currency is a resource of the payer, or a unit "
                     "only payment sources pay", self.word(s.span, s.currency))
        inner = self._inner(ctx, allow_live=False)
        if s.counter is not None:
            if s.counter not in voc.resources and not self.param(s.counter, ctx):
                self.unknown(ctx, "resource", s.counter, voc.resources, self.word(s.span, s.counter))
            if s.spend:
                self.err(ctx, "E121", f"a resource pays by being lost: '{s.counter}' needs no statement after ':'",
                         s.spend[0].span, hint=f"write 'pay {s.currency} with {s.counter}'")
            if s.rate is not None:
                self.expect(s.rate, "int", inner)
        else:
            self.query(s.query, inner)
            if s.rate is not None:
                self.expect(s.rate, "int", replace(inner, has_it=True))
            if not s.spend:
                self.err(ctx, "E121", "a card that pays must be spent: say how after ':' (the card is 'it')",
                         s.span, hint=f"e.g. '{text_of(s)}: move it to discard'")
            else:
                self.stmts(s.spend, replace(inner, has_it=True))
        for f in s.target or ():
            self.filter(f, inner)

    def cost(self, s, ctx: Context) -> None:
        """A cost must be something that can be checked before it is paid."""
        if isinstance(s, A.Group):
            inner = ctx if s.macro is None or ctx.call_span else replace(ctx, macro=s.macro, call_span=s.span)
            for c in s.body:
                self.cost(c, inner)
            return
        if isinstance(s, A.May):
            self.cost(s.body, ctx)
            return
        if isinstance(s, A.Pay | A.Lose | A.Remove | A.Mark | A.Move | A.MoveCard):
            self.stmt(s, self._inner(ctx))
            if isinstance(s, A.Pay):
                self._payable(s, ctx)
            if isinstance(s, A.Move) and s.amount.kind != "exact":
                self.err(ctx, "E105", "a cost must name an exact number of cards", s.span)
            if isinstance(s, A.Move | A.MoveCard) and s.dest.cell is not None:
                self.err(ctx, "E105", "a move to a named cell cannot be a cost: the cell may be taken, and then "
                         "the card stays where it is", s.dest.cell.span,
                         hint="test the cell first: 'if count(card in ZONE where row of it = R and column of it "
                         "= C) = 0: ...'")
            return
        if isinstance(s, A.Call):
            self.stmt(s, ctx)
            return
        self.err(ctx, "E105", f"'{statement_word(s)}' cannot be a cost: a cost before ':' pays something "
                 "(pay, lose, remove, move a card, mark)", s.span)

    def _payable(self, s: A.Pay, ctx: Context) -> None:
        """A fixed price above a resource's declared maximum can never be paid: the ability is dead."""
        for amount, res in s.items:
            if res in self.voc.currencies:
                continue  # other sources may pay it
            entry = self.voc.resources.get(res)
            cap = entry.value.get("max") if entry is not None and isinstance(entry.value, dict) else None
            if (amount.kind == "exact" and isinstance(amount.value, A.Num) and isinstance(cap, int)
                    and not isinstance(cap, bool) and amount.value.value > cap):
                self.warn(ctx, "W100", f"'pay {amount.value.value} {res}' can never be paid: {res} is declared "
                         f"with max {cap}", s.span, hint=f"lower the price, or raise {res}'s max in rules.yaml")


def statement_word(s) -> str:
    """The word a statement starts with, for messages ('gain', 'choose one')."""
    return {"Gain": "gain", "Score": "score", "Place": "place", "If": "if", "ChooseOne": "choose one",
            "Emit": "emit", "SetCounter": "set"}.get(type(s).__name__, type(s).__name__.lower())
