"""The text planner: every decision about what a program says, made once for all languages.

`Planner` walks the checked, macro-expanded AST and returns a small tree of `Phrase`s: a template key
('gain', 'compare.count.ge', 'amount.n.upto', ...) and typed slots (numbers, pack `Word`s with the
number already agreed, nested phrases, clause lists). What is decided here: how statements group into
clauses and which ones join their neighbours, how a negated comparison is flipped and a constant moved
to the right, which nouns are plural, when an amount is 'up to', 'all' or 'equal to' something, which
words a macro call becomes (its glossary phrase, its name, or its body), what 'it' and 'this' refer to.

A realiser (text_realise.py) turns the tree into one language with that language's templates and
morphology. A key names one decision path, most general part first, so a language that makes no
difference between 'amount.n.upto' and 'amount.n' simply leaves the longer key out of its templates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cardsmith.compiler import ast as A
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.unparse import text as unparse

from .lexicon import Lexicon

COMPARISONS = {">=", "<=", ">", "<", "=", "!="}
OP_NAMES = {">=": "ge", "<=": "le", ">": "gt", "<": "lt", "=": "eq", "!=": "ne"}
_NEGATED = {">=": "<", "<=": ">", ">": "<=", "<": ">=", "=": "!=", "!=": "="}
_MIRRORED = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "=": "=", "!=": "!="}
_ARITH_NAMES = {"+": "plus", "-": "minus", "*": "times", "/": "divide", "%": "mod"}
# Functions whose value counts things, so a number can be 'per' one of them.
_COUNTING = ("path", "rows", "columns", "neighbours", "sets", "distinct", "occurrences")


# --------------------------------------------------------------------------- the intermediate structure


@dataclass(frozen=True)
class Word:
    """A pack name to be said in the language; `plural` is the planner's number agreement."""

    name: str
    sec: str | None = None
    plural: bool = False


@dataclass(frozen=True)
class Verb:
    """An event or trigger verb a pack names ('play', 'places')."""

    name: str


@dataclass(frozen=True)
class Points:
    """The points a `score` statement gives (the language's 'VP' unless the pack's glossary renames it)."""

    plural: bool = False


@dataclass
class Phrase:
    key: str
    slots: dict[str, Any] = field(default_factory=dict)


@dataclass
class Clause:
    """One statement. `joins`: a single verb phrase that may be joined to the clauses next to it."""

    phrase: Phrase
    joins: bool = True


@dataclass
class Body:
    """Statements said inline, one after the other ('pay 1 soil: gain 2 coins and draw 1 card')."""

    clauses: list[Clause]


def P(key: str, **slots: Any) -> Phrase:
    return Phrase(key, slots)


# --------------------------------------------------------------------------- macro calls


@dataclass
class CallInfo:
    """A macro call found in the expanded AST: its signature and its arguments by parameter."""

    signature: str
    call: str
    args: dict[str, A.CallArg] = field(default_factory=dict)


def call_info(group: A.Group) -> CallInfo:
    from cardsmith.compiler.parse import parse_program, plain_locate

    info = CallInfo(group.macro or "", group.call or "")
    words = (group.macro or "").split()[1:]
    prog = parse_program(group.call or "", plain_locate(), Diagnostics()) if group.call else None
    call = prog.body[0] if prog is not None and prog.body and isinstance(prog.body[0], A.Call) else None
    if call is not None and len(call.args) == len(words):
        for w, arg in zip(words, call.args, strict=True):
            if w.startswith("$"):
                info.args[w[1:]] = arg
    return info


# --------------------------------------------------------------------------- the planner


class Planner:
    """Plans the text of programs, conditions and values of one pack in one language.

    `mode` card: self-contained text; rules: a macro with its own section is named; source: a macro the
    glossary gives no phrase is named by its call as written. `standalone`: clause keys the language
    never joins to a neighbour (its realiser's data). Nodes no method knows become a 'fallback' phrase
    (the effect-language text) and are recorded in `fallbacks`.
    """

    def __init__(self, lex: Lexicon, mode: str = "card", fallbacks: list | None = None,
                 macro_sections: set[str] | None = None, standalone: frozenset[str] = frozenset()) -> None:
        self.lex = lex
        self.mode = mode
        self.fallbacks = fallbacks if fallbacks is not None else []
        self.macro_sections = macro_sections or set()
        self.standalone = standalone

    # ---------------------------------------------------------------- dispatch
    def stmt(self, s) -> Clause:
        f = getattr(self, "s_" + type(s).__name__, None)
        if f is None:
            return Clause(self.fallback(s))
        return f(s)

    def value(self, e) -> Any:
        f = getattr(self, "e_" + type(e).__name__, None)
        if f is None:
            return self.fallback(e)
        return f(e)

    def fallback(self, node) -> Phrase:
        self.fallbacks.append(node)
        return P("fallback", text=unparse(node))

    def clause(self, phrase: Phrase, joins: bool = True) -> Clause:
        return Clause(phrase, joins and phrase.key.split(".")[0] not in self.standalone)

    # ---------------------------------------------------------------- numbers
    def const(self, e) -> int | None:
        """The integer an expression always has (a number, a number param, simple arithmetic), or None."""
        if isinstance(e, A.Num):
            return e.value
        if isinstance(e, A.Neg):
            v = self.const(e.operand)
            return -v if v is not None else None
        if isinstance(e, A.Name):
            v = self.lex.param(e.name)
            return v if isinstance(v, int) and not isinstance(v, bool) else None
        if isinstance(e, A.BinOp) and e.op in ("+", "-", "*"):
            a, b = self.const(e.left), self.const(e.right)
            if a is None or b is None:
                return None
            return a + b if e.op == "+" else a - b if e.op == "-" else a * b
        return None

    def number(self, e) -> Any:
        c = self.const(e)
        return str(c) if c is not None else self.value(e)

    def is_param(self, e) -> bool:
        return isinstance(e, A.Name) and self.lex.param(e.name) is not None

    def is_bool(self, e) -> bool:
        if isinstance(e, A.BinOp):
            return e.op in COMPARISONS or e.op in ("and", "or")
        if isinstance(e, A.Not | A.Bool | A.CardIs | A.Can):
            return True
        if isinstance(e, A.Attr):
            return self.lex.timing_kind(e.name) == "condition" or e.name == "requires"
        return False

    # ---------------------------------------------------------------- bodies
    def clauses(self, body) -> list[Clause]:
        out: list[Clause] = []
        for s in body:
            if isinstance(s, A.Group) and s.macro is None:
                out.extend(self.clauses(s.body))
            else:
                out.append(self.stmt(s))
        return out

    def body(self, body) -> Body:
        return Body(self.clauses(body))

    def grouped(self, inner: list[Clause], joins: bool) -> Clause:
        return inner[0] if len(inner) == 1 else Clause(P("inline", body=Body(inner)), joins)

    # ---------------------------------------------------------------- macro calls
    def macro(self, g: A.Group) -> Clause:
        info = call_info(g)
        phrase = self.lex.phrase(g.macro or "")
        # see uses_phrase; a decision's option (source mode) is better short than self-contained
        if phrase is not None and (self.mode == "source" or all(self.plain_arg(a) for a in info.args.values())):
            return self.clause(P("glossary-phrase", text=phrase,
                                 args={k: self.call_arg(a) for k, a in info.args.items()}))
        if self.mode == "rules" and g.macro in self.macro_sections:
            return self.clause(P("named-call", call=info.call))
        if self.mode == "source" and phrase is None and info.call:
            return self.clause(P("as-written", text=" ".join(self.lex.spell(w) for w in info.call.split())))
        return self.grouped(self.clauses(g.body), False)

    def uses_phrase(self, g: A.Group) -> bool:
        """Whether a macro call reads as its glossary phrase (else as its body)."""
        if g.macro is None or self.lex.phrase(g.macro) is None:
            return False
        return all(self.plain_arg(a) for a in call_info(g).args.values())

    def plain_arg(self, a: A.CallArg) -> bool:
        """Whether an argument reads well inside a phrase: a number or a word, not a computed amount
        ('draw (start-cards of it)' reads better from the macro's body)."""
        if a.kind in ("num", "word", "it", "this"):
            return True
        if a.kind == "upto":
            return isinstance(a.value, A.Num) or self.const(a.value) is not None
        return False

    def call_arg(self, a: A.CallArg) -> Any:
        if a.kind == "num":
            return str(a.value)
        if a.kind == "word":
            c = self.const(A.Name(str(a.value)))
            return str(c) if c is not None else Word(str(a.value))
        if a.kind == "upto":
            return P("up-to", n=self.number(a.value))
        if a.kind == "it":
            return P("card-ref.it")
        if a.kind == "this":
            return P("card-ref.this")
        if isinstance(a.value, A.Node):
            return self.number(a.value)
        return str(a.value)

    # ---------------------------------------------------------------- amounts
    def amount(self, a: A.Amount, what: Callable[[bool], Any], yours: bool = False) -> Phrase:
        """'2 soil', 'up to 3 sprouts', 'all cards', 'soil equal to its cost': `what(plural)` is the noun."""
        upto = ".upto" if a.kind == "up_to" else ""
        if a.kind == "all":
            return P("amount.all" + (".yours" if yours else ""), what=what(True))
        c = self.const(a.value) if a.value is not None else None
        if c is not None:
            return P("amount.n" + upto, n=str(c), what=what(c != 1))
        value = self.value(a.value)
        if isinstance(a.value, A.VarX):
            return P("amount.x" + upto, n=value, what=what(True), value=value)
        if isinstance(a.value, A.Name) and a.value.name.startswith("$"):
            return P("amount.param" + upto, n=a.value.name, what=what(True), value=value)
        return P("amount.equal" + upto, what=what(True), value=value)

    def word(self, name: str, sec: str | None = None) -> Callable[[bool], Word]:
        return lambda plural: Word(name, sec, plural)

    def per(self, p: A.Per | None) -> Phrase | None:
        if p is None:
            return None
        unit = self.query(p.of, plural=p.divisor != 1) if isinstance(p.of, A.Query) else \
            self.unit(p.of, plural=p.divisor != 1)
        return P("per" + (".one" if p.divisor == 1 else ""), n=str(p.divisor), unit=unit)

    def many(self, a: A.Amount) -> bool:
        c = self.const(a.value) if a.value is not None else None
        return c != 1

    # ---------------------------------------------------------------- statements
    def s_Gain(self, s: A.Gain) -> Clause:
        return self.clause(P("gain", amount=self.amount(s.amount, self.word(s.resource, "resources"),
                                                         self.lex.is_resource(s.resource)), per=self.per(s.per)))

    def s_Lose(self, s: A.Lose) -> Clause:
        return self.clause(P("lose", amount=self.amount(s.amount, self.word(s.resource, "resources"),
                                                         self.lex.is_resource(s.resource)), per=self.per(s.per)))

    def s_Pay(self, s: A.Pay) -> Clause:
        items = [self.amount(a, self.word(r, "resources"), self.lex.is_resource(r)) for a, r in s.items]
        key = "pay" + (".one" if len(items) == 1 else "")
        if s.for_card is not None:  # 'pay 3 coin for it': the sources for such a card apply
            return self.clause(P("pay.for", items=items, card=self.card_ref(s.for_card)))
        return self.clause(P(key, items=items))

    def s_PaySource(self, s: A.PaySource) -> Clause:
        rate = P("pay-rate", value=self.number(s.rate)) if s.rate is not None else None
        target = P("pay-target", card=P("card-noun.one", **self.filter_parts(s.target))) if s.target else None
        currency = Word(s.currency, "resources")
        if s.counter is not None:
            return self.clause(P("pay-source.counter", counter=Word(s.counter, "resources", True), currency=currency,
                                 rate=rate, target=target), False)
        return self.clause(P("pay-source.cards", cards=self.query(s.query), currency=currency, rate=rate,
                             target=target, spend=self.body(s.spend or ())), False)

    def s_InAnyOrder(self, s: A.InAnyOrder) -> Clause:
        return self.clause(P("in-any-order", body=self.body(s.parts)), False)

    def s_SetCounter(self, s: A.SetCounter) -> Clause:
        return self.clause(P("set", name=self.named(s.name), value=self.number(s.value)))

    def s_Score(self, s: A.Score) -> Clause:
        a = s.amount
        if s.per is not None or a.kind != "exact":
            return self.clause(P("score.amount", amount=self.amount(a, Points), per=self.per(s.per)))
        c = self.const(a.value)
        if c is not None:
            return self.clause(P("score.n", n=str(c), points=Points()))
        e = a.value
        if isinstance(e, A.BinOp) and e.op == "*":
            k, rest = (self.const(e.left), e.right) if self.const(e.left) is not None else (self.const(e.right), e.left)
            if k is not None and self.has_unit(rest):
                return self.clause(P("score.per-unit", k=str(k), points=Points(), unit=self.unit(rest, plural=False)))
        if self.has_unit(e) and not isinstance(e, A.Name):
            return self.clause(P("score.per-unit", k="1", points=Points(), unit=self.unit(e, plural=False)))
        return self.clause(P("score.equal", points=Points(), value=self.value(e)))

    def s_May(self, s: A.May) -> Clause:
        inner = self.stmt(s.body)
        return self.clause(P("may" if inner.joins else "may.compound", body=inner), inner.joins)

    def s_Group(self, s: A.Group) -> Clause:
        if s.macro is not None:
            return self.macro(s)
        inner = self.clauses(s.body)
        return self.grouped(inner, all(c.joins for c in inner))

    def s_Nothing(self, s) -> Clause:
        return self.clause(P("nothing"))

    def s_Emit(self, s: A.Emit) -> Clause:
        if s.object:
            return self.clause(P("emit.object", event=Verb(s.event), object=Word(s.object)), False)
        return self.clause(P("emit", event=Verb(s.event)), False)

    def s_PassFirst(self, s: A.PassFirst) -> Clause:
        return self.clause(P("pass-first", player=self.player(s.to)))

    def s_EndGame(self, s) -> Clause:
        return self.clause(P("end-game"))

    def s_Shuffle(self, s: A.Shuffle) -> Clause:
        return self.clause(P("shuffle", zone=self.zone(s.zone)))

    def s_Modify(self, s: A.Modify) -> Clause:
        n = self.const(s.by)
        slots = {"stat": Word(s.stat, "stats"), "cards": self.query(s.query, plural=True)}
        if n is None:
            return self.clause(P("modify.by", value=self.value(s.by), **slots), False)
        return self.clause(P("modify.lower" if n < 0 else "modify.higher", n=str(abs(n)), **slots), False)

    def s_Prevent(self, s: A.Prevent) -> Clause:
        who = "opponents" if s.opponents else "anyone"
        scope = "this" if s.scope == "this" else "yours"
        return self.clause(P(f"prevent.{who}.{scope}", names=[Word(n, plural=True) for n in s.names]), False)

    def s_ActivateTiming(self, s: A.ActivateTiming) -> Clause:
        return self.clause(P("activate-timing", timing=Word(s.timing)))

    def s_ActivateCopy(self, s: A.ActivateCopy) -> Clause:
        key = {A.It: "activate-copy.it", A.This: "activate-copy.this"}.get(type(s.target), "activate-copy")
        return self.clause(P(key, timing=Word(s.timing), target=self.target(s.target)))

    def s_Mark(self, s: A.Mark) -> Clause:
        return self.clause(P("mark" if s.on else "unmark", flag=Word(s.flag), target=self.target(s.target)))

    def s_Flip(self, s: A.Flip) -> Clause:
        return self.clause(P("flip", target=self.target(s.target)))

    def s_Reveal(self, s: A.Reveal) -> Clause:
        return self.clause(P("reveal", amount=self.amount(s.amount, self.cards()), source=self.source(s.source)))

    def s_ChooseX(self, s: A.ChooseX) -> Clause:
        return self.clause(P("choose-x", low=self.number(s.low), high=self.number(s.high)))

    def s_Move(self, s: A.Move) -> Clause:
        parts = self.filter_parts(s.source.filters)
        withs = P("with-list", items=parts["withs"]) if parts["withs"] else None
        return self.clause(P("move.all" if s.amount.kind == "all" else "move",
                             amount=self.amount(s.amount, self.cards(s.source.filters)), withs=withs,
                             source=self.source(s.source), dest=self.dest(s.dest), face=self.face(s.face)))

    def s_MoveCard(self, s: A.MoveCard) -> Clause:
        return self.clause(P("move-card", card=self.target(s.card), dest=self.dest(s.dest), face=self.face(s.face)))

    def face(self, face: str | None) -> Phrase | None:
        return P(f"face.{face}", face=face) if face else None

    def s_Place(self, s: A.Place) -> Clause:
        target = self.target(s.target, many=self.many(s.amount))
        if not s.owned:
            return self.clause(P("place", amount=self.amount(s.amount, self.word(s.piece, "pieces")), target=target))
        c = self.const(s.amount.value) if s.amount.value is not None else None
        amount = self.amount(s.amount, lambda plural: P("yours", what=Word(s.piece, "pieces", plural)))
        return self.clause(P("place.owned" + (".n" if c is not None else ""), amount=amount, n=str(c),
                             pieces=Word(s.piece, "pieces", True), target=target))

    def s_Remove(self, s: A.Remove) -> Clause:
        return self.clause(P("remove", amount=self.amount(s.amount, self.word(s.piece, "pieces")),
                             target=self.target(s.target, many=self.many(s.amount))))

    def s_Costed(self, s: A.Costed) -> Clause:
        return self.clause(P("costed", cost=self.stmt(s.cost), body=self.body(s.body)), False)

    def s_If(self, s: A.If) -> Clause:
        if s.otherwise:
            return self.clause(P("if.else", cond=self.cond(s.cond), then=self.body(s.then),
                                 otherwise=self.body(s.otherwise)), False)
        return self.clause(P("if", cond=self.cond(s.cond), then=self.body(s.then)), False)

    def s_Scoped(self, s: A.Scoped) -> Clause:
        p = s.players
        start = P("starting-with", player=self.player(p.start)) if p.start is not None else \
            P("in-turn-order") if p.kind == "turns" else None
        who = P(f"players.{p.kind}", start=start, ref=self.player(p.ref))
        inner = self.clauses(s.body)
        key = "scoped" + (".simple" if all(c.joins for c in inner) else "") + (".started" if p.start else "")
        return self.clause(P(key, who=who, start=start, body=Body(inner)), False)

    def s_ForEach(self, s: A.ForEach) -> Clause:
        return self.clause(P("for-each" + (".reverse" if s.reverse else ""), cards=self.query(s.query, plural=False),
                             body=self.body(s.body)), False)

    def s_Repeat(self, s: A.Repeat) -> Clause:
        if s.kind == "times" and self.const(s.value) == 1:
            return self.s_Group(A.Group(s.body))
        body = self.body(s.body)
        if s.kind in ("times", "up_to"):
            one = ".one" if self.const(s.value) == 1 else ""
            return self.clause(P(f"repeat.{'times' if s.kind == 'times' else 'upto'}{one}", n=self.number(s.value),
                                 body=body), False)
        return self.clause(P(f"repeat.{'until' if s.kind == 'until' else 'while'}", cond=self.cond(s.value),
                             body=body), False)

    def s_ChooseOne(self, s: A.ChooseOne) -> Clause:
        return self.clause(P("choose-one", options=[self.body(o) for o in s.options]), False)

    def s_ChooseCard(self, s: A.ChooseCard) -> Clause:
        return self.clause(P("choose-card", card=self.query(s.query, plural=False, article=True),
                             body=self.body(s.body)), False)

    def s_Trigger(self, s: A.Trigger) -> Clause:
        if isinstance(s.object, A.Query):
            obj = P("trigger-object.cards", cards=self.query(s.object, plural=False, article=True))
        elif isinstance(s.object, str):
            obj = P("trigger-object.word", word=Word(s.object, plural=True))
        else:
            obj = None
        return self.clause(P("trigger" + (".you" if s.subject == "you" else ""),
                             subject=P(f"subject.{s.subject}", name=s.subject), verb=Verb(s.verb), object=obj,
                             body=self.body(s.body)), False)

    def s_Call(self, s: A.Call) -> Clause:
        return self.clause(P("call", text=unparse(s), name=s.name))

    # ---------------------------------------------------------------- cards, places and players
    def target(self, t, many: bool = False) -> Any:
        if isinstance(t, A.It):
            return P("card-ref.it")
        if isinstance(t, A.This):
            return P("card-ref.this")
        if isinstance(t, A.Param):
            return f"${t.name}"
        if isinstance(t, A.EachOf):
            return P("each-card", cards=self.query(t.query, plural=False))
        if isinstance(t, A.AnyOf):
            return self.query(t.query, plural=many, article=not many)
        return self.fallback(t)

    def card_ref(self, ref) -> Phrase:
        return P("card-ref.this" if isinstance(ref, A.This) else "card-ref.it")

    def owner(self, ref: A.PlayerRef | None, zone: str) -> Phrase:
        if ref is None:
            return P("owner.default." + ("player" if self.lex.zone_owner(zone) == "player" else "shared"))
        return P(f"owner.{ref.kind}")

    def zone(self, z: A.ZoneRef) -> Phrase:
        return P("zone", owner=self.owner(z.player, z.name), name=Word(z.name))

    def zones(self, zs) -> Phrase | None:
        if not zs:
            return None
        first = zs[0]
        if all(z.player == first.player and self.lex.zone_owner(z.name) == self.lex.zone_owner(first.name)
               for z in zs):
            return P("zones.one-owner", owner=self.owner(first.player, first.name), names=[Word(z.name) for z in zs])
        return P("zones", zones=[self.zone(z) for z in zs])

    def source(self, s: A.Source) -> Phrase:
        return P("from" + (f".{s.end}" if s.end in ("top", "bottom") else ""), zone=self.zone(s.zone))

    def dest(self, d: A.Dest) -> Phrase:
        end = f".{d.end}" if d.end in ("top", "bottom") else ""
        if d.cell is not None:
            return P("dest.cell" + end, zone=self.zone(d.zone), row=self.number(d.cell.row),
                     column=self.number(d.cell.column))
        return P("dest" + end, zone=self.zone(d.zone))

    def filter_parts(self, filters) -> dict[str, list]:
        """A query's filters by the place they take in a noun phrase: 'other', trait adjectives ('cold'),
        card types ('tree'), and the rest ('with canopy'); each language orders them."""
        parts: dict[str, list] = {"other": [], "traits": [], "types": [], "withs": []}
        for f in filters:
            if isinstance(f, A.NotThis):
                parts["other"] = [P("filter.not-this")]
            elif isinstance(f, A.TraitIs) and f.trait != "type":
                parts["traits"].append(self.filter(f))
            elif self.adjectival(f):
                parts["types"].append(self.filter(f))
            else:
                parts["withs"].append(self.filter(f))
        return parts

    def adjectival(self, f) -> bool:
        return isinstance(f, A.TraitIs) or (isinstance(f, A.Has) and self.lex.is_type(f.name))

    def cards(self, filters=()) -> Callable[[bool], Phrase]:
        """The noun 'card' with the adjectives of `filters` ('other cold tree card')."""
        parts = self.filter_parts(filters)
        return lambda plural: P("card-noun" + ("" if plural else ".one"), **parts)

    def filter(self, f) -> Phrase:
        if isinstance(f, A.TraitIs):
            return P("filter.trait" + (".type" if f.trait == "type" else ""), trait=Word(f.trait),
                     values=[Word(v) for v in f.values])
        if isinstance(f, A.Has | A.HasNo):
            key = "filter.has" if isinstance(f, A.Has) else "filter.has-no"
            if isinstance(f, A.Has) and self.lex.is_type(f.name):
                return P("filter.has.type", name=Word(f.name))
            if self.lex.is_piece(f.name) and not self.lex.is_flag(f.name):
                return P(key + ".piece", thing=Word(f.name, "pieces", True))
            return P(key, thing=Word(f.name))
        if isinstance(f, A.HasAbility):
            return P("filter.ability", timing=Word(f.timing))
        if isinstance(f, A.StatCmp):
            return P("filter.stat", stat=Word(f.stat, "stats"), compare=self.compare_phrase(f.op, f.value))
        if isinstance(f, A.FilterNot):
            return P("filter.not" + (".adjective" if self.adjectival(f.inner) else ""), inner=self.filter(f.inner))
        if isinstance(f, A.NotThis):
            return P("filter.not-this")
        return self.fallback(f)

    def query(self, q: A.Query, plural: bool = True, article: bool = False) -> Phrase:
        """Cards a query selects: 'cold tree cards in your tableau with canopy for which ...'."""
        parts = self.filter_parts(q.filters)
        where = getattr(q, "where", None)
        zones = self.zones(q.zones)
        return P("query" + (".indefinite" if article and not plural else ""),
                 head=P("card-noun" + ("" if plural else ".one"), **parts),
                 zones=P("in-zones" + (".other" if parts["other"] else ""), zones=zones) if zones else None,
                 withs=P("with-list", items=parts["withs"]) if parts["withs"] else None,
                 where=P("for-which", cond=self.cond(where)) if where is not None else None)

    def player(self, ref) -> Phrase:
        if ref is None:
            return P("player.you")
        return P(f"player.{ref.kind}", kind=ref.kind)

    # ---------------------------------------------------------------- expressions
    def named(self, name: str) -> Any:
        """A counter as the thing set or counted: 'your soil' for a resource."""
        return P("named.resource", name=Word(name)) if self.lex.is_resource(name) else Word(name)

    def e_Num(self, e: A.Num) -> str:
        return str(e.value)

    def e_Bool(self, e: A.Bool) -> Phrase:
        return P("bool.true" if e.value else "bool.false")

    def e_VarX(self, e) -> Phrase:
        return P("x")

    def e_Name(self, e: A.Name) -> Any:
        v = self.lex.param(e.name)
        if isinstance(v, int) and not isinstance(v, bool):
            return str(v)
        if isinstance(v, list):
            return P("param-list", name=Word(e.name), values=[str(x) for x in v])
        if e.name == "player-count":
            return P("player-count")
        return P("value.resource", name=Word(e.name)) if self.lex.is_resource(e.name) else Word(e.name)

    def e_Param(self, e: A.Param) -> str:
        return f"${e.name}"

    def e_It(self, e) -> Phrase:
        return P("card-ref.it")

    def e_This(self, e) -> Phrase:
        return P("card-ref.this")

    def e_Attr(self, e: A.Attr) -> Any:
        ref = e.ref
        if isinstance(ref, A.PlayerRef):
            if ref.kind == "you":
                return P("attr.you", named=self.named(e.name), value=self.e_Name(A.Name(e.name)))
            return P("attr.player", player=self.player(ref), name=Word(e.name))
        owner = P("card-owner.this" if isinstance(ref, A.This) else "card-owner.it")
        if self.lex.timing_kind(e.name) == "condition":
            return P("attr.condition", owner=owner, timing=Word(e.name))
        if e.name == "requires":
            return P("attr.requires", owner=owner)
        if e.name in ("row", "column", "position"):
            return P(f"attr.{e.name}", owner=owner)
        if self.lex.is_piece(e.name):
            return P("attr.pieces", owner=owner, pieces=Word(e.name, "pieces", True), card=self.card_ref(ref))
        return P("attr.stat", owner=owner, stat=Word(e.name, "stats"))

    def e_Pieces(self, e: A.Pieces) -> Phrase:
        return P("pieces-on" + (".owned" if e.owned else ""), pieces=Word(e.piece, "pieces", True),
                 card=self.card_ref(e.ref))

    def e_Count(self, e: A.Count) -> Phrase:
        return P("count", cards=self.query(e.query))

    def e_SumOf(self, e: A.SumOf) -> Phrase:
        if self.lex.is_piece(e.name):
            return P("sum.pieces", pieces=Word(e.name, "pieces", True), cards=self.query(e.query))
        return P("sum.stat", stat=Word(e.name, "stats"), cards=self.query(e.query))

    def e_Func(self, e: A.Func) -> Any:
        f = getattr(self, "f_" + e.name, None)
        if f is None:
            return self.fallback(e)
        return f(e.args)

    def arg(self, a) -> Any:
        if isinstance(a, A.Query):
            return self.query(a)
        if isinstance(a, A.TraitIs):
            return P("trait-values", values=[Word(v) for v in a.values])
        if isinstance(a, A.Name) and not self.lex.param(a.name):
            return P("arg.name", name=Word(a.name), value=self.value(a))
        return self.value(a)

    def f_min(self, args) -> Phrase:
        return P("func.min", values=[self.value(a) for a in args])

    def f_max(self, args) -> Phrase:
        return P("func.max", values=[self.value(a) for a in args])

    def f_abs(self, args) -> Phrase:
        return P("func.abs", value=self.value(args[0]))

    def f_nth(self, args) -> Phrase:
        lst, idx = args
        values = self.lex.param(lst.name) if isinstance(lst, A.Name) else None
        shown = P("param-list", name=Word(lst.name), values=[str(v) for v in values]) if values else self.value(lst)
        if isinstance(idx, A.BinOp) and idx.op == "-" and self.const(idx.right) == 1:
            return P("func.nth.from-one", list=shown, index=self.value(idx.left))
        c = self.const(idx)
        if c is not None:
            return P("func.nth.n", list=shown, n=str(c + 1))
        return P("func.nth.from-zero", list=shown, index=self.value(idx))

    def set_slots(self, slots) -> list[Phrase]:
        return [P("set-slot", item=Word(s.name) if isinstance(s, A.Name) else self.arg(s), arg=self.arg(s))
                for s in slots]

    def f_sets(self, args) -> Phrase:
        return P("func.sets", slots=self.set_slots(args[1:]), cards=self.arg(args[0]))

    def f_path(self, args) -> Phrase:
        return P("func.path", cards=self.arg(args[0]), through=self.value(args[1]))

    def f_rows(self, args) -> Phrase:
        return P("func.rows", cards=self.arg(args[0]))

    def f_columns(self, args) -> Phrase:
        return P("func.columns", cards=self.arg(args[0]))

    def f_neighbours(self, args) -> Phrase:
        return P("func.neighbours", cards=self.arg(args[0]), card=self.value(args[1]))

    def f_distinct(self, args) -> Phrase:
        return P("func.distinct", cards=self.arg(args[0]))

    def f_occurrences(self, args) -> Phrase:
        return P("func.occurrences", cards=self.arg(args[0]), symbol=self.arg(args[1]))

    def e_Can(self, e: A.Can) -> Phrase:
        return P("can", body=self.stmt(e.stmt))

    def e_CardIs(self, e: A.CardIs) -> Phrase:
        return P("card-is" + (".adjective" if self.adjectival(e.filter) else ""), card=self.card_ref(e.ref),
                 filter=self.filter(e.filter))

    def e_BinOp(self, e: A.BinOp) -> Any:
        if e.op in COMPARISONS or e.op in ("and", "or"):
            return self.cond(e)
        c = self.const(e)
        if c is not None:
            return str(c)
        return P(f"arith.{_ARITH_NAMES.get(e.op, e.op)}", op=e.op, left=self.operand(e.left),
                 right=self.operand(e.right))

    def operand(self, e) -> Phrase:
        return P("operand" + (".compound" if isinstance(e, A.BinOp) else ""), value=self.value(e))

    def e_Not(self, e: A.Not) -> Phrase:
        return self.cond(e)

    def e_Neg(self, e: A.Neg) -> Any:
        c = self.const(e)
        return str(c) if c is not None else P("negative", value=self.operand(e.operand))

    # ---------------------------------------------------------------- units: what a count counts
    def has_unit(self, e) -> bool:
        if isinstance(e, A.Count | A.Pieces):
            return True
        if isinstance(e, A.SumOf):
            return self.lex.is_piece(e.name)
        if isinstance(e, A.Name):
            return self.lex.is_resource(e.name) or self.lex.is_counter(e.name)
        if isinstance(e, A.Func):
            return e.name in _COUNTING
        return False

    def unit(self, e, plural: bool) -> Phrase:
        """One of what a counting expression counts, for 'per' and 'for each' ('tree card in your tableau')."""
        one = "" if plural else ".one"
        if isinstance(e, A.Count):
            return P("unit.count" + one, cards=self.query(e.query, plural=plural))
        if isinstance(e, A.SumOf) and self.lex.is_piece(e.name):
            return P("unit.pieces-on-cards" + one, piece=Word(e.name, "pieces", plural), cards=self.query(e.query))
        if isinstance(e, A.Pieces):
            return P("unit.pieces" + (".owned" if e.owned else "") + one, piece=Word(e.piece, "pieces", plural),
                     card=self.card_ref(e.ref))
        if isinstance(e, A.Name):
            return P("unit.name" + one, name=Word(e.name, plural=plural), named=self.named(e.name))
        if isinstance(e, A.Func) and e.name in _COUNTING:
            a = e.args
            slots: dict[str, Any] = {"cards": self.arg(a[0])}
            if e.name == "path":
                slots["through"] = self.value(a[1])
            elif e.name == "neighbours":
                slots["card"] = self.value(a[1])
                slots["one"] = None if plural else self.query(a[0], plural=False)
            elif e.name == "sets":
                slots["slots"] = self.set_slots(a[1:])
            elif e.name == "occurrences":
                slots["symbol"] = self.arg(a[1])
            return P(f"unit.{e.name}{one}", **slots)
        return P("unit.value", value=self.value(e))

    # ---------------------------------------------------------------- conditions
    def compare_phrase(self, op: str, rhs) -> Phrase:
        """A comparison with its left side said elsewhere ('cost 3 or more')."""
        c = self.const(rhs)
        return P(f"compare-with.{OP_NAMES[op]}" + (".n" if c is not None else ""), n=self.number(rhs))

    def cond(self, e) -> Any:
        if isinstance(e, A.BinOp) and e.op in ("and", "or"):
            return P(f"cond.{e.op}", left=self.cond(e.left), right=self.cond(e.right))
        if isinstance(e, A.Not):
            inner = e.operand
            if isinstance(inner, A.BinOp) and inner.op in COMPARISONS:
                return self.cond(A.BinOp(_NEGATED[inner.op], inner.left, inner.right))
            return P("cond.not", cond=self.cond(inner))
        if isinstance(e, A.BinOp) and e.op in COMPARISONS:
            return self.compare(e)
        if isinstance(e, A.Bool):
            return P("cond.true" if e.value else "cond.false")
        if isinstance(e, A.Attr | A.CardIs | A.Can):
            return self.value(e)
        return P("cond.nonzero", value=self.value(e))

    def compare(self, e: A.BinOp) -> Phrase:
        left, op, right = e.left, e.op, e.right
        if self.const(left) is not None and self.const(right) is None:  # 3 <= x  ->  x >= 3
            left, right = right, left
            op = _MIRRORED[op]
        c = self.const(right)
        if op == ">" and c == 0:
            op, c = ">=", 1
        r = str(c) if c is not None else self.value(right)
        name = OP_NAMES[op]
        if self.is_param(left):  # a rule option: name it ('if the beginner side is 1'), do not fold it
            return P(f"compare.param.{name}", name=Word(left.name), n=r)
        none = ".none" if op == "=" and c == 0 else ""
        if isinstance(left, A.Count) and c is not None:
            return P(f"compare.count.{name}{none}", n=r, count=c, cards=self.query(left.query, plural=c != 1))
        if isinstance(left, A.Name) and self.lex.is_resource(left.name) and c is not None:
            return P(f"compare.resource.{name}{none}", n=r, count=c, what=Word(left.name, plural=c != 1))
        if self.has_unit(left) and not isinstance(left, A.Name) and c is not None:
            return P(f"compare.unit.{name}{none}", n=r, count=c, unit=self.unit(left, plural=c != 1))
        return P(f"compare.value.{name}", n=r, value=self.value(left))
