"""The text planner: every decision about what a program says, made once for all languages.

`Planner` walks the checked, macro-expanded AST and returns a small tree of phrases (text_ir.py): a
template key ('gain', 'compare.count.ge', 'amount.n.upto', ...) and typed slots (numbers, pack `Word`s
with the number already agreed, nested phrases, clause lists). Decided here: how statements group into
clauses and which ones join their neighbours, and which words a macro call becomes (its glossary
phrase, its name, or its body); text_phrases.py, which it builds on, decides amounts, plurals, queries,
'it'/'this' and conditions (a negated comparison flipped, a constant moved to the right).

A realiser (text_realise.py) turns the tree into one language with that language's templates and
morphology. A key names one decision path, most general part first, so a language that makes no
difference between 'amount.n.upto' and 'amount.n' simply leaves the longer key out of its templates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cardsmith.compiler import ast as A
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.unparse import text as unparse

from .lexicon import Lexicon
from .text_ir import Body, Clause, P, Phrase, Points, Verb, Word
from .text_phrases import COMPARISONS, OP_NAMES, PhrasePlanner
from .text_players import PlayerPhrases

__all__ = ["COMPARISONS", "OP_NAMES", "Body", "CallInfo", "Clause", "P", "Phrase", "Planner", "Points", "Verb",
           "Word", "call_info"]


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
    elif prog is None and group.call and len(group.call.split()) == len(words) + 1:
        # a call made by the tools, not a reader (the reference reads the activation order for a timing 'T'):
        # its words stand where the signature's do
        for w, arg in zip(words, group.call.split()[1:], strict=True):
            if w.startswith("$"):
                info.args[w[1:]] = A.CallArg("word", arg)
    return info

def _mentions_it(node) -> bool:
    """Whether a part of a statement speaks of 'it'."""
    if isinstance(node, A.It):
        return True
    if isinstance(node, tuple | list):
        return any(_mentions_it(x) for x in node)
    if isinstance(node, A.Node):
        return any(_mentions_it(getattr(node, f)) for f in node.__dataclass_fields__ if f != "span")
    return False

# --------------------------------------------------------------------------- the planner


class Planner(PlayerPhrases, PhrasePlanner):
    """Plans the text of programs, conditions and values of one pack in one language.

    `mode` card: self-contained text; rules: a macro with its own section is named; source: a macro the
    glossary gives no phrase is named by its call as written. `standalone`: clause keys the language
    never joins to a neighbour (its realiser's data).
    """

    def __init__(self, lex: Lexicon, mode: str = "card", fallbacks: list | None = None,
                 macro_sections: set[str] | None = None, standalone: frozenset[str] = frozenset()) -> None:
        super().__init__(lex, fallbacks)
        self.chosen: Phrase | None = None  # what 'it' reads as in a choice said as its statement (`chosen_target`)
        self.x_upto: Any = None  # 'choose X from 0 to N' said as 'up to N' where X is used (`x_as_upto`)
        self.mode = mode
        self.macro_sections = macro_sections or set()
        self.standalone = standalone

    def stmt(self, s) -> Clause:
        f = getattr(self, "s_" + type(s).__name__, None)
        if f is None:
            return Clause(self.fallback(s))
        return f(s)

    def clause(self, phrase: Phrase, joins: bool = True) -> Clause:
        return Clause(phrase, joins and phrase.key.split(".")[0] not in self.standalone)

    # ---------------------------------------------------------------- bodies
    def clauses(self, body) -> list[Clause]:
        out: list[Clause] = []
        flat: list = []
        for s in body:
            if isinstance(s, A.Group) and s.macro is None:
                flat.extend(self.flat(s.body))
            else:
                flat.append(s)
        i = 0
        x_upto = self.x_upto
        while i < len(flat):  # the same macro call made n times in a row is said once, n times
            s, n = flat[i], 1
            if isinstance(s, A.ChooseX) and self.x_as_upto(s, flat[i + 1:]):
                self.x_upto = self.number(s.high)
                i += 1
                continue
            values = self.trait_run(flat, i)
            if values is not None:  # 'if it is tag animal: X, if it is tag plant: X'
                ref, trait, names = values
                out.append(self.clause(P("for-each-value", card=self.card_ref(ref), trait=Word(trait),
                                         values=[Word(v, f"trait:{trait}") for v in names],
                                         body=self.body(s.then)), False))
                i += len(names)
                continue
            if isinstance(s, A.Group) and s.macro is not None and s.call:
                while i + n < len(flat) and isinstance(flat[i + n], A.Group) and flat[i + n].call == s.call \
                        and flat[i + n].macro == s.macro:
                    n += 1
            clause = self.stmt(s)
            i += n
            if clause.phrase.key == "glossary-phrase" and not clause.phrase.slots["text"]:
                continue  # bookkeeping the glossary says nothing for
            out.append(clause if n == 1 else self.clause(P("repeat.times", n=str(n), body=Body([clause])), False))
        self.x_upto = x_upto
        return out

    @staticmethod
    def trait_run(flat: list, i: int) -> tuple | None:
        """(card, trait, values) for statements from `i` that each do the same thing if a card has one value of a
        trait ('if it is tag animal: place 1 microbe on this', 'if it is tag plant: ...'): said once, 'for each
        kind of tag it has among animal and plant'. None when fewer than two do."""

        def test(s):
            if isinstance(s, A.If) and not s.otherwise and isinstance(s.cond, A.CardIs) \
                    and isinstance(s.cond.filter, A.TraitIs) and len(s.cond.filter.values) == 1:
                return unparse(s.cond.ref), s.cond.filter.trait, unparse(A.Group(s.then))
            return None

        first = test(flat[i])
        if first is None:
            return None
        names = []
        for s in flat[i:]:
            if test(s) != first or s.cond.filter.values[0] in names:
                break
            names.append(s.cond.filter.values[0])
        return (flat[i].cond.ref, first[1], names) if len(names) > 1 else None

    def x_as_upto(self, s: A.ChooseX, rest) -> bool:
        """Whether 'choose X from 0 to N' can go unsaid, the one amount that uses X read as 'up to N' ('a player
        of your choice loses up to 3 plants'): X starts at 0 and the statements after the choice use it once,
        as an exact amount, outside any macro call (whose phrase says its own amounts)."""
        if self.const(s.low) != 0:
            return False
        uses: list = []

        def walk(node, in_amount: bool) -> bool:
            if isinstance(node, A.VarX):
                uses.append(in_amount)
                return True
            if isinstance(node, tuple | list):
                return all(walk(x, in_amount) for x in node)
            if not isinstance(node, A.Node):
                return True
            if isinstance(node, A.Group) and node.macro is not None:
                n = len(uses)
                walk(node.body, False)
                return len(uses) == n
            if isinstance(node, A.Amount):
                return walk(node.value, node.kind == "exact" and isinstance(node.value, A.VarX))
            return all(walk(getattr(node, f), False) for f in node.__dataclass_fields__ if f != "span")

        return walk(tuple(rest), False) and uses == [True]

    @staticmethod
    def flat(body) -> list:
        out: list = []
        for s in body:
            out.extend(Planner.flat(s.body) if isinstance(s, A.Group) and s.macro is None else [s])
        return out

    def body(self, body) -> Body:
        return Body(self.clauses(body))

    def grouped(self, inner: list[Clause], joins: bool) -> Clause:
        return inner[0] if len(inner) == 1 else Clause(P("inline", body=Body(inner)), joins)

    # ---------------------------------------------------------------- macro calls
    def macro(self, g: A.Group) -> Clause:
        """A macro call: its glossary phrase with the arguments filled in, whatever their form. Card text
        never says a macro's body (the rules' machinery): without a phrase it names the call as written
        (the checker's W130 asks for a phrase); the rules reference names a macro that has its own
        section, and says the body of the others."""
        info = call_info(g)
        phrase = self.lex.phrase(g.macro or "")
        if phrase is not None:
            said = self.clause(P("glossary-phrase", text=phrase,
                                 args={k: self.call_arg(a) for k, a in info.args.items()}))
            body = self.flat(g.body)
            if len(body) == 1 and isinstance(body[0], A.May):  # an optional macro: 'may' is the language's
                return self.clause(P("may", body=said), said.joins)
            return said
        if self.mode == "rules" and g.macro in self.macro_sections:
            return self.clause(P("named-call", call=info.call))
        if self.mode != "rules" and info.call:
            return self.clause(P("as-written", text=" ".join(self.lex.spell(w) for w in info.call.split())))
        return self.grouped(self.clauses(g.body), False)

    def uses_phrase(self, g: A.Group) -> bool:
        """Whether a macro call reads as its glossary phrase (else as its call or its body)."""
        return g.macro is not None and self.lex.phrase(g.macro) is not None

    def call_arg(self, a: A.CallArg) -> Any:
        """An argument of a phrase: final text for a number or a word, else a phrase the realiser fits into
        the phrase's words ('draw cards equal to ...', '1 step per jovian tag')."""
        if a.kind == "num":
            return str(a.value)
        if a.kind == "word":
            c = self.const(A.Name(str(a.value)))
            if c is None and self.is_local(str(a.value)):  # a number the caller named ('gaia grows cards-gained')
                return P("call-value", value=P("local", name=Word(str(a.value), "local:number")))
            return str(c) if c is not None else Word(str(a.value))
        if a.kind == "upto":
            return P("up-to", n=self.number(a.value))
        if a.kind == "it":
            return P("card-ref.it")
        if a.kind == "this":
            return P("card-ref.this")
        if a.kind == "param":
            return f"${a.value}"
        if a.kind == "words":  # 'hand or discard'
            return P("words", names=[Word(str(w)) for w in a.value])
        if isinstance(a.value, A.Node):
            return self.call_amount(a.value)
        return str(a.value)

    def call_amount(self, e) -> Any:
        """An expression given to a macro: a number, X, so many per unit, or a value."""
        c = self.const(e)
        if c is not None:
            return str(c)
        if isinstance(e, A.VarX):
            return P("x")
        if isinstance(e, A.Name) and not self.lex.is_resource(e.name) and not self.lex.is_counter(e.name):
            # a word the call passes on (a timing, a zone), or a number the caller named (fitted as a value)
            return P("call-value", value=self.value(e)) if self.is_local(e.name) else self.value(e)
        if isinstance(e, A.BinOp) and e.op == "*":
            k, rest = (self.const(e.left), e.right) if self.const(e.left) is not None else (self.const(e.right), e.left)
            if k is not None and self.has_unit(rest):
                return P("call-per", k=str(k), per=P("per.one", n="1", unit=self.unit(rest, plural=False)))
        if isinstance(e, A.BinOp) and e.op == "/" and self.const(e.right) is not None and self.has_unit(e.left):
            n = self.const(e.right)
            return P("call-per", k="1", per=P("per", n=str(n), unit=self.unit(e.left, plural=True)))
        if self.has_unit(e) and not isinstance(e, A.Name):
            return P("call-per", k="1", per=P("per.one", n="1", unit=self.unit(e, plural=False)))
        return P("call-value", value=self.value(e))

    # ---------------------------------------------------------------- statements
    def bookkeeping(self, verb: str, name: str, amount) -> Clause | None:
        """A statement on an internal counter says what the glossary gives for 'VERB $n NAME' (the rule the
        counter keeps, in players' words); None when it is not internal."""
        if not self.lex.is_internal(name):
            return None
        key = f"{verb} $n {name}" if verb != "set" else f"set {name} to $n"
        n = amount if isinstance(amount, str) else self.number(amount)
        # the phrase for this very number first ('set first-action-due to 1'), then for any
        phrase = (self.lex.phrase(key.replace("$n", n)) if isinstance(n, str) else None) or self.lex.phrase(key)
        if phrase is None:
            return None  # said as it is: the text-quality test names the internal counter it shows
        # a computed amount fits the phrase's words ('take cards equal to its card value')
        arg = n if isinstance(n, str) else P("call-value", value=n)
        return self.clause(P("glossary-phrase", text=phrase, args={"n": arg}))

    def s_Gain(self, s: A.Gain) -> Clause:
        said = self.bookkeeping("gain", s.resource, s.amount.value) if s.amount.value is not None else None
        if said is not None:
            return said
        return self.clause(P("gain", amount=self.amount(s.amount, self.word(s.resource, "resources"),
                                                         self.lex.is_resource(s.resource)), per=self.per(s.per)))

    def s_Lose(self, s: A.Lose) -> Clause:
        said = self.bookkeeping("lose", s.resource, s.amount.value) if s.amount.value is not None else None
        if said is not None:
            return said
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
        said = self.bookkeeping("set", s.name, s.value)
        if said is not None:
            return said
        return self.clause(P("set", name=self.named(s.name), value=self.number(s.value)))

    def s_Score(self, s: A.Score) -> Clause:
        a = s.amount
        if s.per is not None or a.kind != "exact":
            return self.clause(P("score.amount", amount=self.amount(a, Points), per=self.per(s.per)))
        c = self.const(a.value)
        if c is not None:
            return self.clause(P("score.n", n=str(c), points=Points()))
        if self.per_unit(a.value) is not None:
            return self.clause(P("score.amount", amount=self.amount(a, Points), per=None))
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
        if inner.joins:
            return self.clause(P("may", body=inner))
        scoped = ".scoped" if inner.phrase.key.startswith(("scoped.chosen", "scoped.named")) else ""
        return self.clause(P("may.compound" + scoped, body=inner), False)  # 'if you wish, a player of your choice: ...'

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

    def s_PassZones(self, s: A.PassZones) -> Clause:
        return self.clause(P("pass-zones", zone=Word(s.zone), to=P(f"side.{s.to}")))

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

    def s_Activation(self, s: A.Activation) -> Clause:
        # the expanded activation order reads as the statement that asked for it
        return self.clause(P("activate-timing", timing=Word(s.timing)))

    def s_ActivateCopy(self, s: A.ActivateCopy) -> Clause:
        key = {A.It: "activate-copy.it", A.This: "activate-copy.this"}.get(type(s.target), "activate-copy")
        return self.clause(P(key, timing=Word(s.timing), target=self.target(s.target)))

    def s_Mark(self, s: A.Mark) -> Clause:
        if isinstance(s.target, A.PlayerRef) or s.flag in self.lex.voc.player_flags:
            return self.mark_player(s)
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
        said = self.without_guard(s)
        if said is not None:
            return self.stmt(said)
        if s.otherwise:
            return self.clause(P("if.else", cond=self.cond(s.cond), then=self.body(s.then),
                                 otherwise=self.body(s.otherwise)), False)
        return self.clause(P("if", cond=self.cond(s.cond), then=self.body(s.then)), False)

    def s_Scoped(self, s: A.Scoped) -> Clause:
        p = s.players
        if p.kind in ("chosen", "named", "at_once"):
            return self.scoped_players(s)
        start = P("starting-with", player=self.player(p.start)) if p.start is not None else \
            P("in-turn-order") if p.kind == "turns" else None
        who = P(f"players.{p.kind}", start=start, ref=self.player(p.ref))
        inner = self.clauses(s.body)
        key = "scoped" + (".simple" if all(c.joins for c in inner) else "") + (".started" if p.start else "")
        return self.clause(P(key, who=who, start=start, body=Body(inner)), False)

    @staticmethod
    def without_guard(s: A.If):
        """A condition that only says whether what follows can be done, left unsaid:
        'if there is a microbe card: choose a microbe card: ...' is 'choose a microbe card: ...' (a choice
        among no cards does nothing), and 'if COND: choose one: A | COST: B, otherwise A', where A and a
        costed B are the options, is 'choose one: A | COST: B' (an option whose cost cannot be paid is not
        offered)."""
        then = Planner.flat(s.then)
        if len(then) != 1:
            return None
        inner = then[0]
        if not s.otherwise and isinstance(inner, A.ChooseCard) and isinstance(s.cond, A.BinOp) \
                and isinstance(s.cond.left, A.Count) and unparse(s.cond.left.query) == unparse(inner.query) \
                and s.cond.op in (">", ">=") and isinstance(s.cond.right, A.Num) and s.cond.right.value in (0, 1) \
                and (s.cond.op == ">") == (s.cond.right.value == 0):
            return inner
        otherwise = Planner.flat(s.otherwise)
        if len(otherwise) == 1 and isinstance(inner, A.ChooseOne) and len(inner.options) == 2:
            other = unparse(otherwise[0])
            options = [Planner.flat(o) for o in inner.options]
            said = [unparse(o[0]) if len(o) == 1 else None for o in options]
            if other in said:
                rest = options[1 - said.index(other)]
                if len(rest) == 1 and isinstance(rest[0], A.Costed):
                    return inner
        return None

    def s_ForEach(self, s: A.ForEach) -> Clause:
        return self.clause(P("for-each" + (".reverse" if s.reverse else ""), cards=self.query(s.query, plural=False),
                             named=self.as_name(s), body=self.about_it(s.query.zones, lambda: self.body(s.body))),
                           False)

    def as_name(self, s) -> Phrase | None:
        """'as NAME' on a loop or a choice: the card is also 'the NAME' in its body."""
        return P("as-name", name=Word(s.name, "local:card")) if getattr(s, "name", None) else None

    def s_AsSoonAs(self, s: A.AsSoonAs) -> Clause:
        cards = self.query(s.query, plural=False) if s.query is not None else None
        return self.clause(P("as-soon-as" + (".each" if cards is not None else ""), cond=self.cond(s.cond),
                             cards=cards, body=self.body(s.body)), False)

    def s_OpenWindow(self, s: A.OpenWindow) -> Clause:
        return self.clause(P("open-window", window=Word(s.name)))

    def s_Let(self, s: A.Let) -> Clause:
        kind = "player" if isinstance(s.value, A.PlayerRef) else \
            "card" if isinstance(s.value, A.It | A.This | A.LocalCard) else "number"
        return self.clause(P("let", name=P("local", name=Word(s.name, f"local:{kind}")), value=self.value(s.value)))

    def s_Repeat(self, s: A.Repeat) -> Clause:
        if s.kind == "times" and self.const(s.value) == 1:
            return self.s_Group(A.Group(s.body))
        body = self.body(s.body)
        if s.kind == "times" and self.has_unit(s.value) and not isinstance(s.value, A.Name):
            return self.clause(P("repeat.per", unit=self.unit(s.value, plural=False), body=body), False)
        if s.kind in ("times", "up_to"):
            one = ".one" if self.const(s.value) == 1 else ""
            return self.clause(P(f"repeat.{'times' if s.kind == 'times' else 'upto'}{one}", n=self.number(s.value),
                                 body=body), False)
        if s.kind == "while" and isinstance(s.value, A.Bool) and s.value.value:  # 'while true': until 'end game'
            return self.clause(P("repeat.forever", body=body), False)
        return self.clause(P(f"repeat.{'until' if s.kind == 'until' else 'while'}", cond=self.cond(s.value),
                             body=body), False)

    def s_ChooseOne(self, s: A.ChooseOne) -> Clause:
        rest = tuple(o for o in s.options if not self.says_nothing(o))
        if rest and len(rest) < len(s.options):  # 'choose one: do nothing | X' is 'you may X'
            inner = A.Group(rest[0]) if len(rest) == 1 else A.ChooseOne(rest, s.span)
            return self.s_May(A.May(inner, s.span))
        return self.clause(P("choose-one", options=[self.body(o) for o in s.options]), False)

    def says_nothing(self, body) -> bool:
        """An option that does nothing and says so only by 'do nothing' (a call with a phrase says something)."""
        return all(isinstance(x, A.Nothing) or (isinstance(x, A.Group) and not self.uses_phrase(x)
                                                and self.says_nothing(x.body)) for x in body)

    def s_ChooseCard(self, s: A.ChooseCard) -> Clause:
        folded = self.chosen_target(s)
        if folded is not None:
            return folded
        return self.clause(P("choose-card", card=self.query(s.query, plural=False, article=True),
                             named=self.as_name(s), body=self.about_it(s.query.zones, lambda: self.body(s.body))),
                           False)

    def chosen_target(self, s: A.ChooseCard) -> Clause | None:
        """A choice whose body is one statement done to the chosen card said as that statement done to 'a ...'
        card: 'choose a microbe card: place 3 microbes on it' is 'place 3 microbes on a microbe card in your
        tableau'. Only where the statement speaks of the card as its target alone."""
        body = self.flat(s.body)
        if getattr(s, "name", None) or len(body) != 1:
            return None
        st = body[0]
        field = {A.Place: "target", A.Remove: "target", A.Mark: "target", A.MoveCard: "card"}.get(type(st))
        if field is None or not isinstance(getattr(st, field), A.It) or \
                any(_mentions_it(getattr(st, f)) for f in st.__dataclass_fields__ if f not in (field, "span")):
            return None
        outer, self.chosen = self.chosen, self.query(s.query, plural=False, article=True)
        try:
            return self.stmt(st)
        finally:
            self.chosen = outer

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
        return self.clause(P("unexpanded-call", text=unparse(s), name=s.name))
