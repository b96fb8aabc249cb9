"""Planning noun phrases, values and conditions: the part of the planner statements are built from.

Decided here, once for every language: amounts ('up to', 'all', 'equal to'), which nouns are plural,
how a query's filters divide into adjectives and 'with' phrases, whose zone a zone is, what a counting
expression counts ('per' and 'for each'), and conditions: 'not' pushed into a comparison by flipping it,
a constant moved to the right, '> 0' read as '>= 1', 'exactly 0' read as 'no'. Where languages word one
decision differently, the phrase carries each alternative as a slot and a language's template picks
('attr.you': the counter's name or its value).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardsmith.compiler import ast as A
from cardsmith.compiler.check import BUILTIN_NAMES
from cardsmith.compiler.unparse import text as unparse

from .lexicon import Lexicon
from .text_ir import P, Phrase, Word

COMPARISONS = {">=", "<=", ">", "<", "=", "!="}
OP_NAMES = {">=": "ge", "<=": "le", ">": "gt", "<": "lt", "=": "eq", "!=": "ne"}
_NEGATED = {">=": "<", "<=": ">", ">": "<=", "<": ">=", "=": "!=", "!=": "="}
_MIRRORED = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "=": "=", "!=": "!="}
_ARITH_NAMES = {"+": "plus", "-": "minus", "*": "times", "/": "divide", "%": "mod"}
# Functions whose value counts things, so a number can be 'per' one of them.
_COUNTING = ("path", "rows", "columns", "neighbours", "sets", "distinct", "occurrences")


class PhrasePlanner:
    """Plans values, conditions and the noun phrases of statements for one pack's lexicon. Nodes no
    method knows become a 'fallback' phrase (the effect-language text), recorded in `fallbacks`."""

    def __init__(self, lex: Lexicon, fallbacks: list | None = None) -> None:
        self.lex = lex
        self.fallbacks = fallbacks if fallbacks is not None else []
        # inside a division of a rule option ('(difficulty - 1) / 2'), options read by name: their values folded
        # in would state the default's result ('1 ÷ 2') as if it were the rule
        self.named_params = False

    def value(self, e) -> Any:
        f = getattr(self, "e_" + type(e).__name__, None)
        if f is None:
            return self.fallback(e)
        return f(e)

    def fallback(self, node) -> Phrase:
        self.fallbacks.append(node)
        return P("fallback", text=unparse(node))

    # ---------------------------------------------------------------- numbers
    def const(self, e) -> int | None:
        """The integer an expression always has (a number, a number param, simple arithmetic), or None."""
        if isinstance(e, A.Num):
            return e.value
        if isinstance(e, A.MacroValue):
            return self.const(e.value)
        if isinstance(e, A.Neg):
            v = self.const(e.operand)
            return -v if v is not None else None
        if isinstance(e, A.Name):
            v = self.lex.param(e.name)
            return v if isinstance(v, int) and not isinstance(v, bool) and not self.named_params else None
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

    # ---------------------------------------------------------------- amounts
    def amount(self, a: A.Amount, what: Callable[[bool], Any], yours: bool = False) -> Phrase:
        """'2 soil', 'up to 3 sprouts', 'all cards', 'soil equal to its cost': `what(plural)` is the noun."""
        upto = ".upto" if a.kind == "up_to" else ""
        if a.kind == "all":
            return P("amount.all" + (".yours" if yours else ""), what=what(True))
        c = self.const(a.value) if a.value is not None else None
        if c is not None:
            return P("amount.n" + upto, n=str(c), what=what(c != 1))
        per = self.per_unit(a.value) if a.kind == "exact" else None
        if per is not None:
            return P("amount.per", k=per[0], what=what(per[0] != "1"), per=per[1])
        value = self.value(a.value)
        if isinstance(a.value, A.VarX) and a.kind == "exact" and getattr(self, "x_upto", None) is not None:
            return P("amount.n.upto", n=self.x_upto, what=what(True))  # X was chosen from 0 to n: 'up to n'
        if isinstance(a.value, A.VarX):
            return P("amount.x" + upto, n=value, what=what(True), value=value)
        if isinstance(a.value, A.Name) and a.value.name.startswith("$"):
            return P("amount.param" + upto, n=a.value.name, what=what(True), value=value)
        return P("amount.equal" + upto, what=what(True), value=value)

    def per_unit(self, e) -> tuple[str, Phrase] | None:
        """An amount that counts something, as so many per unit: a count (1 per card), k × a count (k per
        card) or a count ÷ n (1 per n cards, rounded down); None for any other amount."""
        e = self.shown(e)
        if isinstance(e, A.BinOp) and e.op == "*":
            k, rest = (self.const(e.left), e.right) if self.const(e.left) is not None else (self.const(e.right), e.left)
            if k is not None and self.has_unit(rest) and not isinstance(rest, A.Name):
                return str(k), P("per.one", n="1", unit=self.unit(rest, plural=False))
        if isinstance(e, A.BinOp) and e.op == "/" and self.const(e.right) and self.has_unit(e.left) \
                and not isinstance(e.left, A.Name):
            return "1", P("per", n=str(self.const(e.right)), unit=self.unit(e.left, plural=True))
        if self.has_unit(e) and not isinstance(e, A.Name):
            return "1", P("per.one", n="1", unit=self.unit(e, plural=False))
        return None

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

    # ---------------------------------------------------------------- cards, places and players
    def target(self, t, many: bool = False) -> Any:
        if isinstance(t, A.It | A.This | A.LocalCard):
            return self.card_ref(t)
        if isinstance(t, A.Param):
            return f"${t.name}"
        if isinstance(t, A.EachOf):
            return P("each-card", cards=self.query(t.query, plural=False))
        if isinstance(t, A.AnyOf):
            return self.query(t.query, plural=many, article=not many)
        return self.fallback(t)

    def card_ref(self, ref) -> Phrase:
        """'this card', 'it' (also for a $parameter) or 'the NAME' (a card bound to a local name)."""
        if isinstance(ref, A.LocalCard):
            return P("card-ref.local", name=Word(ref.name, "local:card"))
        if isinstance(ref, A.It) and getattr(self, "chosen", None) is not None:
            return self.chosen  # 'a microbe card in your tableau': a choice said as its statement
        if isinstance(ref, A.This):
            return P("card-ref.this")
        return self.it_ref("card-ref.it")

    def card_owner(self, ref) -> Phrase:
        """Whose stat or condition: 'its', 'this card's', 'the NAME's'."""
        if isinstance(ref, A.LocalCard):
            return P("card-owner.local", name=Word(ref.name, "local:card"))
        return P("card-owner.this") if isinstance(ref, A.This) else self.it_ref("card-owner.it")

    # the noun 'it' stands for where it is a card of a zone the glossary names its cards for (`zone_noun`)
    it_noun: str | None = None

    def it_ref(self, key: str) -> Phrase:
        """'it' ('.noun': a language may say which thing, Japanese 'そのマス' for a space)."""
        return P(key + ".noun", noun=Word(self.it_noun)) if self.it_noun else P(key)

    def about_it(self, zs, plan: Callable[[], Any]) -> Any:
        """`plan()` with 'it' standing for a card of the zones `zs` (a choice's, a loop's or a query's)."""
        outer, self.it_noun = self.it_noun, self.zone_noun(zs)
        try:
            return plan()
        finally:
            self.it_noun = outer

    def owner(self, ref: A.PlayerRef | None, zone: str) -> Phrase:
        if ref is None:
            return P("owner.default." + ("player" if self.lex.zone_owner(zone) == "player" else "shared"))
        if ref.kind == "local":  # a player bound to a name: 'the rival's hand'
            return P("owner.local", name=Word(ref.name, "local:player"))
        return P(f"owner.{ref.kind}", name=self.seat(ref))

    def seat(self, ref: A.PlayerRef) -> Word | None:
        """An automa seat's name (None for a player reference)."""
        name = getattr(ref, "name", None)
        return Word(name, "automa") if name else None

    def zone(self, z: A.ZoneRef) -> Phrase:
        return P("zone", owner=self.owner(z.player, z.name), name=Word(z.name))

    def zones(self, zs) -> Phrase | None:
        if not zs:
            return None
        first = zs[0]
        if any(isinstance(z, A.ZoneOf) for z in zs):
            return P("zones", zones=[P("zone-of", card=self.card_ref(z.card)) if isinstance(z, A.ZoneOf)
                                     else self.zone(z) for z in zs])
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
        for f in self.named_filters(filters):
            if isinstance(f, A.NotThis):
                parts["other"] = [P("filter.not-this")]
            elif self.adjective(f):
                parts["traits"].append(self.filter(f))
            elif self.adjectival(f):
                parts["types"].append(self.filter(f))
            else:
                parts["withs"].append(self.filter(f))
        parts["withs"] = self.merged_withouts(parts["withs"])
        return parts

    def adjective(self, f) -> bool:
        """A filter said before the noun: a trait value, a named filter, a flag ('tilted')."""
        if isinstance(f, A.TraitIs):
            return f.trait != "type"
        return isinstance(f, A.MacroFilter) or (isinstance(f, A.Has) and self.lex.is_flag(f.name))

    def named_filters(self, filters) -> list:
        """Filters with each filter macro (rules.yaml 'filters:') said by its glossary word ('free land'), or,
        without one, as the filters it stands for."""
        out: list = []
        for f in filters:
            if isinstance(f, A.MacroFilter):
                out.extend([f] if self.lex.has(f.name) else self.named_filters(f.filters))
            else:
                out.append(f)
        return out

    @staticmethod
    def merged_withouts(withs: list) -> list:
        """'without oceans and without cities and without greeneries' said once: 'without oceans, cities or
        greeneries' (a piece and a plain name each keep their own kind of phrase)."""
        out: list = []
        for w in withs:
            key = w.key if isinstance(w, Phrase) else ""
            if key in ("filter.has-no", "filter.has-no.piece") and out and isinstance(out[-1], Phrase) \
                    and out[-1].key in (key, key + ".many"):
                prev = out[-1]
                things = prev.slots.get("things") or [prev.slots["thing"]]
                out[-1] = P(key + ".many", things=[*things, w.slots["thing"]])
            else:
                out.append(w)
        return out

    def adjectival(self, f) -> bool:
        return isinstance(f, A.TraitIs | A.MacroFilter) or (isinstance(f, A.Has) and (self.lex.is_type(f.name)
                                                                       or self.lex.is_flag(f.name)))

    def cards(self, filters=()) -> Callable[[bool], Phrase]:
        """The noun 'card' with the adjectives of `filters` ('other cold tree card')."""
        parts = self.filter_parts(filters)
        return lambda plural: P("card-noun" + ("" if plural else ".one"), **parts)

    def filter(self, f) -> Phrase:
        if isinstance(f, A.MacroFilter):
            if self.lex.has(f.name):
                return P("filter.named", name=Word(f.name))
            return P("with-list", items=[self.filter(x) for x in self.named_filters(f.filters)])
        if isinstance(f, A.TraitIs):
            return P("filter.trait" + (".type" if f.trait == "type" else ""), trait=Word(f.trait),
                     values=[Word(v, f"trait:{f.trait}") for v in f.values])
        if isinstance(f, A.Has | A.HasNo):
            key = "filter.has" if isinstance(f, A.Has) else "filter.has-no"
            if isinstance(f, A.Has) and self.lex.is_type(f.name):
                return P("filter.has.type", name=Word(f.name, "card-types"))
            if self.lex.is_flag(f.name):  # a mark reads as an adjective: 'a tilted card', 'not used'
                return P(key + ".flag", thing=Word(f.name))
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
        if isinstance(f, A.NotCard):
            return P("filter.not-card", card=self.card_ref(f.card))
        return self.fallback(f)

    def query(self, q: A.Query, plural: bool = True, article: bool = False) -> Phrase:
        """Cards a query selects: 'cold tree cards in your tableau with canopy for which ...'."""
        parts = self.filter_parts(q.filters)
        where = self.owned_pieces(getattr(q, "where", None), parts)
        if where is not None and self.counted_on_it(where):  # 'cards with at least 1 resource on them'
            n = self.const(where.right) + (where.op == ">")
            pieces = None if isinstance(where.left, A.MacroValue) else \
                P("words", names=[Word(t.piece, "pieces", n != 1) for t in self.sum_terms(where.left)])
            parts["withs"].append(P("filter.at-least" + (".on-it" if pieces else "") + (".one" if n == 1 else ""),
                                    n=str(n), what=pieces,
                                    unit=self.unit(where.left, plural=n != 1)))
            where = None
        return self.query_parts(q.zones, parts, where, plural, article)

    def counted_on_it(self, e) -> bool:
        """'U > n' or 'U >= n' for U something counted on or around the card at hand: pieces on it, or a
        named count (rules.yaml 'expressions:' with a glossary word: 'resources on it')."""
        if not (isinstance(e, A.BinOp) and e.op in (">", ">=") and self.const(e.right) is not None
                and self.const(e.left) is None):
            return False
        left = e.left
        if isinstance(left, A.MacroValue):
            return self.lex.has(left.name) and self.has_unit(left.value)
        terms = self.sum_terms(left)
        return all(isinstance(t, A.Pieces) and isinstance(t.ref, A.It) and not t.owned for t in terms) and \
            (len(terms) == 1 or self.summed_unit(left) is not None)

    def owned_pieces(self, where, parts: dict):
        """A 'where' that asks for a piece of the player's own on the card ('with city where city of yours on
        it > 0') said as a filter, 'with your cities', in `parts` (the plain 'with cities' it makes redundant
        dropped); what else the 'where' asks is returned, None when nothing."""
        conds: list = []

        def split(e) -> None:
            if isinstance(e, A.BinOp) and e.op == "and":
                split(e.left)
                split(e.right)
            else:
                conds.append(e)

        if where is None:
            return None
        split(where)
        rest = []
        for c in conds:
            piece = self.owned_piece_on_it(c)
            if piece is None:
                rest.append(c)
                continue
            parts["withs"] = [w for w in parts["withs"] if not (isinstance(w, Phrase) and w.key == "filter.has.piece"
                                                                and w.slots["thing"].name == piece)]
            parts["withs"].append(P("filter.has.yours", thing=Word(piece, "pieces", True)))
        if not rest:
            return None
        out = rest[0]
        for c in rest[1:]:
            out = A.BinOp("and", out, c, span=out.span)
        return out

    @staticmethod
    def owned_piece_on_it(c) -> str | None:
        """'PIECE of yours on it > 0' (or '>= 1'): the piece; else None."""
        if isinstance(c, A.BinOp) and isinstance(c.left, A.Pieces) and c.left.owned and isinstance(c.left.ref, A.It) \
                and isinstance(c.right, A.Num) and (c.op, c.right.value) in ((">", 0), (">=", 1)):
            return c.left.piece
        return None

    def query_parts(self, zs, parts: dict, where=None, plural: bool = True, article: bool = False) -> Phrase:
        """A query from its zones, its filters already divided (`filter_parts`) and its 'where'. Cards of a zone
        the glossary gives a noun ('card in mars': 'space') are called by it, and the zone goes unsaid ('a
        free land space', not 'a free land card in the Mars map')."""
        noun = self.zone_noun(zs)
        zones = None if noun is not None else self.zones(zs)
        head = P("card-noun" + ("" if plural else ".one"), **parts) if noun is None else \
            P("card-noun.zone" + ("" if plural else ".one"), noun=Word(noun, plural=plural), **parts)
        return P("query" + (".indefinite" if article and not plural else ""), head=head,
                 zones=P("in-zones" + (".other" if parts["other"] else ""), zones=zones) if zones else None,
                 withs=P("with-list", items=parts["withs"]) if parts["withs"] else None,
                 where=P("for-which", cond=self.about_it(zs, lambda: self.cond(where))) if where is not None
                 else None)

    def zone_noun(self, zs) -> str | None:
        """The glossary term 'card in ZONE' when the cards are those of one zone the glossary names them for
        (its own zone, no player named), else None."""
        if len(zs) != 1 or not isinstance(zs[0], A.ZoneRef) or zs[0].player is not None:
            return None
        term = f"card in {zs[0].name}"
        return term if self.lex.has(term) else None

    def player(self, ref) -> Phrase:
        if ref is None:
            return P("player.you")
        if ref.kind == "local":
            return P("player.local", name=Word(ref.name, "local:player"))
        return P(f"player.{ref.kind}", kind=ref.kind, name=self.seat(ref))

    # ---------------------------------------------------------------- expressions
    def named(self, name: str) -> Any:
        """A counter as the thing set or counted: 'your soil' for a resource."""
        return P("named.resource", name=Word(name)) if self.lex.is_resource(name) else Word(name)

    def e_MacroValue(self, e: A.MacroValue) -> Any:
        """An expression macro (rules.yaml 'expressions:'): its glossary word, else the value it stands for."""
        if not self.lex.has(e.name):
            return self.value(e.value)
        if self.has_unit(e.value):  # a named count: 'the number of tiles of yours next to it'
            return P("count.named", name=Word(e.name, plural=True))
        return Word(e.name)

    def e_Num(self, e: A.Num) -> str:
        return str(e.value)

    def e_Bool(self, e: A.Bool) -> Phrase:
        return P("bool.true" if e.value else "bool.false")

    def e_VarX(self, e) -> Phrase:
        return P("x")

    def e_Name(self, e: A.Name) -> Any:
        v = self.lex.param(e.name)
        if isinstance(v, int) and not isinstance(v, bool):
            return Word(e.name) if self.named_params else str(v)
        if isinstance(v, list):
            return P("param-list", name=Word(e.name), values=[str(x) for x in v])
        if e.name == "player-count":
            return P("player-count")
        if self.lex.is_resource(e.name):
            return P("value.resource", name=Word(e.name))
        if self.is_local(e.name):  # a number the program named: what the glossary says it is, never its name
            return P("local", name=Word(e.name, "local:number"))
        return Word(e.name)

    def is_local(self, name: str) -> bool:
        """A name in a value that is none of the pack's words (the checker allows only a local name there)."""
        lex = self.lex
        return not (name in lex.kind or name in lex.voc.player_flags or name in BUILTIN_NAMES or name.startswith("$"))

    def e_Param(self, e: A.Param) -> str:
        return f"${e.name}"

    def e_It(self, e) -> Phrase:
        return self.card_ref(e)

    def e_This(self, e) -> Phrase:
        return P("card-ref.this")

    def e_LocalCard(self, e: A.LocalCard) -> Phrase:
        return self.card_ref(e)

    def e_Cond(self, e: A.Cond) -> Phrase:
        return P("value-if", cond=self.cond(e.cond), then=self.value(e.then), otherwise=self.value(e.otherwise))

    def e_Attr(self, e: A.Attr) -> Any:
        ref = e.ref
        if isinstance(ref, A.PlayerRef):
            if ref.kind == "you":
                return P("attr.you", named=self.named(e.name), value=self.e_Name(A.Name(e.name)))
            return P("attr.player", player=self.player(ref), name=Word(e.name))
        owner = self.card_owner(ref)
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
            return P("trait-values", values=[Word(v, f"trait:{a.trait}") for v in a.values])
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
        return P("func.occurrences" + self.yours(args[0]), cards=self.arg(args[0]),
                 symbol=self.trait_values(args[1], True))

    def trait_values(self, a, plural: bool) -> Any:
        """A trait's values counted as symbols: 'science tags' ('the number of science tags you have')."""
        if isinstance(a, A.TraitIs):
            return P("symbols", values=[Word(v, f"trait:{a.trait}") for v in a.values],
                     trait=Word(a.trait, plural=plural))
        return self.arg(a)

    @staticmethod
    def yours(q) -> str:
        """'.yours' for a bare 'card' query (the cards the context implies: the player's own)."""
        return ".yours" if isinstance(q, A.Query) and not q.zones and not q.filters and q.where is None else ""

    def e_Can(self, e: A.Can) -> Phrase:
        return P("can", body=self.stmt(e.stmt))

    def e_CardIs(self, e: A.CardIs) -> Phrase:
        return P("card-is" + (".adjective" if self.adjectival(e.filter) else ""), card=self.card_ref(e.ref),
                 filter=self.filter(e.filter))

    def e_BinOp(self, e: A.BinOp) -> Any:
        if e.op in COMPARISONS or e.op in ("and", "or"):
            return self.cond(e)
        if e.op in ("+", "-"):  # an internal counter added in is the rules' bookkeeping ('oxygen <= 5 + slack')
            if self.internal(e.right):
                return self.value(e.left)
            if self.internal(e.left) and e.op == "+":
                return self.value(e.right)
        c = self.const(e)
        if c is not None:
            return str(c)
        joined = self.joined_count(e)
        if joined is not None:
            return self.value(joined)
        summed = self.summed_terms(e)
        if summed is not None:
            return summed
        if e.op == "/" and not self.named_params and self.mentions_param(e):
            self.named_params = True
            try:
                return self.e_BinOp(e)
            finally:
                self.named_params = False
        return P(f"arith.{_ARITH_NAMES.get(e.op, e.op)}", op=e.op, left=self.operand(e.left),
                 right=self.operand(e.right))

    def mentions_param(self, e) -> bool:
        if self.is_param(e):
            return True
        return isinstance(e, A.BinOp | A.Neg) and any(self.mentions_param(x) for x in
                                                      ((e.left, e.right) if isinstance(e, A.BinOp) else (e.operand,)))

    @staticmethod
    def joined_count(e):
        """'count(cities in Mars) + count(cities in tableau of each player)' as one count over both zones,
        when the two count the same cards (same filters, no 'where')."""
        if not (isinstance(e, A.BinOp) and e.op == "+" and isinstance(e.left, A.Count)
                and isinstance(e.right, A.Count)):
            return None
        a, b = e.left.query, e.right.query
        if a.where is not None or b.where is not None or unparse(A.Count(A.Query((), a.filters))) != \
                unparse(A.Count(A.Query((), b.filters))) or not a.zones or not b.zones:
            return None
        return A.Count(A.Query((*a.zones, *b.zones), a.filters), span=e.span)

    @staticmethod
    def sum_terms(e) -> list:
        """The terms of a sum, left to right ('a + b + c': [a, b, c])."""
        if isinstance(e, A.BinOp) and e.op == "+":
            return PhrasePlanner.sum_terms(e.left) + PhrasePlanner.sum_terms(e.right)
        return [e]

    def like_key(self, t) -> tuple | None:
        """What a term of a sum counts, so that like terms are said once together: pieces on one card, cards
        with one piece (the player's own, or anyone's) in the same zones, or such cards next to one card.
        None: a term said on its own."""
        if isinstance(t, A.Pieces) and not t.owned:
            return ("pieces", unparse(t.ref))
        if isinstance(t, A.Func) and t.name == "neighbours" and len(t.args) == 2 and isinstance(t.args[0], A.Query):
            q, kind = t.args[0], ("neighbours", unparse(t.args[1]))
        elif isinstance(t, A.Count):
            q, kind = t.query, ("count",)
        else:
            return None
        piece = self.single_piece(q)
        return None if piece is None else (*kind, unparse(A.Count(A.Query(q.zones))), piece[1])

    def single_piece(self, q: A.Query) -> tuple[str, bool] | None:
        """(name, yours) for a query of the cards with one thing, anyone's or the player's own ('card in mars
        with city where city of yours on it > 0'); None for any other query."""
        if len(q.filters) != 1 or not isinstance(q.filters[0], A.Has):
            return None
        name = q.filters[0].name
        if q.where is None:
            return name, False
        return (name, True) if self.owned_piece_on_it(q.where) == name else None

    def like_groups(self, e) -> list[list] | None:
        """The terms of a sum gathered by `like_key`, in the order they first come; None when no two are alike."""
        groups: dict = {}
        for i, t in enumerate(self.sum_terms(e)):
            key = self.like_key(t)
            groups.setdefault(key if key is not None else i, []).append(t)
        out = list(groups.values())
        return out if any(len(g) > 1 for g in out) else None

    def summed_terms(self, e) -> Phrase | None:
        """A sum of like terms said once: pieces on one card ('the number of microbes, animals or fighters on
        it'), cards with one piece or another ('the number of spaces with your cities, greeneries or special
        tiles'), or such cards next to one card ('the number of spaces with cities, greeneries or oceans next
        to it'); other terms are added to them as they are."""
        groups = self.like_groups(e)
        if groups is None:
            return None
        said = [self.like_group(g) for g in groups]
        out = said[0]
        for part in said[1:]:
            out = P("arith.plus", op="+", left=P("operand", value=out), right=P("operand", value=part))
        return out

    def like_group(self, terms: list, unit: bool = False, plural: bool = True) -> Any:
        """Like terms (`like_groups`) as one value, or as one unit of what they count (`unit`)."""
        t = terms[0]
        if len(terms) == 1:
            return self.unit(t, plural) if unit else self.value(t)
        if isinstance(t, A.Pieces):
            pieces = P("words", names=[Word(x.piece, "pieces", plural or not unit) for x in terms])
            return P("unit.pieces" + ("" if plural else ".one"), piece=pieces, card=self.card_ref(t.ref)) if unit \
                else P("pieces-on", pieces=pieces, card=self.card_ref(t.ref))
        queries = [x.args[0] if isinstance(x, A.Func) else x.query for x in terms]
        names = [self.single_piece(q)[0] for q in queries]
        yours = self.single_piece(queries[0])[1]
        has = P("filter.has-any" + (".yours" if yours else ""),
                things=[Word(n, "pieces", True) if self.lex.is_piece(n) else Word(n) for n in names])
        parts = {"other": [], "traits": [], "types": [], "withs": [has]}
        cards = self.query_parts(queries[0].zones, parts, plural=plural or not unit)
        if isinstance(t, A.Count):
            return P("unit.count" + ("" if plural else ".one"), cards=cards) if unit else P("count", cards=cards)
        card = self.value(t.args[1])
        if unit:
            return P("unit.neighbours" + ("" if plural else ".one"), cards=cards, card=card,
                     one=None if plural else cards)
        return P("func.neighbours", cards=cards, card=card)

    def summed_unit(self, e) -> list | None:
        """The like terms of a sum that is all one count (`like_groups` makes one group of it), else None."""
        groups = self.like_groups(e) if isinstance(e, A.BinOp) and e.op == "+" else None
        return groups[0] if groups is not None and len(groups) == 1 else None

    def shown(self, e):
        """An expression without the internal counters added to it (what a player is told)."""
        if isinstance(e, A.BinOp) and e.op in ("+", "-"):
            if self.internal(e.right):
                return self.shown(e.left)
            if self.internal(e.left) and e.op == "+":
                return self.shown(e.right)
        return e

    def internal(self, e) -> bool:
        """An internal counter, or a number times one ('2 * slack')."""
        if isinstance(e, A.BinOp) and e.op == "*":
            return (self.const(e.left) is not None and self.internal(e.right)) or \
                (self.const(e.right) is not None and self.internal(e.left))
        return isinstance(e, A.Name) and self.lex.is_internal(e.name)

    def operand(self, e) -> Phrase:
        compound = isinstance(e, A.BinOp) and self.const(e) is None  # a sum of constants reads as its number
        return P("operand" + (".compound" if compound else ""), value=self.value(e))

    def e_Not(self, e: A.Not) -> Phrase:
        return self.cond(e)

    def e_Neg(self, e: A.Neg) -> Any:
        c = self.const(e)
        return str(c) if c is not None else P("negative", value=self.operand(e.operand))

    # ---------------------------------------------------------------- units: what a count counts
    def has_unit(self, e) -> bool:
        if isinstance(e, A.MacroValue):  # a named count is counted by its glossary word ('tile of yours next to it')
            return self.has_unit(e.value)
        if self.joined_count(e) is not None or self.summed_unit(e) is not None:
            return True
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
        if isinstance(e, A.MacroValue):
            if self.lex.has(e.name):
                return P("unit.named" + one, name=Word(e.name, plural=plural))
            e = e.value
        e = self.joined_count(e) or e
        like = self.summed_unit(e)
        if like is not None:
            return self.like_group(like, unit=True, plural=plural)
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
                slots["symbol"] = self.trait_values(a[1], plural)
                return P(f"unit.occurrences{self.yours(a[0])}{one}", **slots)
            return P(f"unit.{e.name}{one}", **slots)
        return P("unit.value", value=self.value(e))

    # ---------------------------------------------------------------- conditions
    def compare_phrase(self, op: str, rhs) -> Phrase:
        """A comparison with its left side said elsewhere ('cost 3 or more')."""
        c = self.const(rhs)
        return P(f"compare-with.{OP_NAMES[op]}" + (".n" if c is not None else ""), n=self.number(rhs))

    def cond(self, e) -> Any:
        if isinstance(e, A.BinOp) and e.op == "and":
            held = self.held_together(e)
            if held is not None:
                return held
        if isinstance(e, A.BinOp) and e.op in ("and", "or"):
            return P(f"cond.{e.op}", left=self.cond(e.left), right=self.cond(e.right))
        if isinstance(e, A.Not):
            inner = e.operand
            if isinstance(inner, A.BinOp) and inner.op in COMPARISONS:
                return self.cond(A.BinOp(_NEGATED[inner.op], inner.left, inner.right))
            if self.is_player_flag(inner):
                return P("cond.player-flag.not", flag=Word(inner.name))
            return P("cond.not", cond=self.cond(inner))
        if self.is_player_flag(e):  # 'if passed': the current player's mark
            return P("cond.player-flag", flag=Word(e.name))
        if isinstance(e, A.BinOp) and e.op in COMPARISONS:
            return self.compare(e)
        if isinstance(e, A.Bool):
            return P("cond.true" if e.value else "cond.false")
        if isinstance(e, A.Attr | A.CardIs | A.Can | A.HasRank):
            return self.value(e)
        if isinstance(e, A.MacroValue) and self.is_bool(e.value):  # a named condition ('every player has passed')
            return P("cond.named", name=Word(e.name)) if self.lex.has(e.name) else self.cond(e.value)
        return P("cond.nonzero", value=self.value(e))

    def held_together(self, e: A.BinOp) -> Phrase | None:
        """'you have at least 1 plant tag and you have at least 1 microbe tag' said once: 'you have at least 1
        plant tag and 1 microbe tag'."""
        conds: list = []

        def split(x) -> None:
            if isinstance(x, A.BinOp) and x.op == "and":
                split(x.left)
                split(x.right)
            else:
                conds.append(x)

        split(e)
        said = [self.cond(c) for c in conds]
        if not all(isinstance(p, Phrase) and p.key == "compare.resource.ge" for p in said):
            return None
        return P("compare.resource.ge.many", items=[P("have-item", n=p.slots["n"], what=p.slots["what"])
                                                   for p in said])

    def is_player_flag(self, e) -> bool:
        return isinstance(e, A.Name) and e.name in self.lex.voc.player_flags

    def compare(self, e: A.BinOp) -> Phrase:
        left, op, right = self.shown(e.left), e.op, self.shown(e.right)
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
        if isinstance(left, A.Func) and left.name == "occurrences" and self.yours(left.args[0]) and c is not None:
            return P(f"compare.resource.{name}{none}", n=r, count=c, what=self.trait_values(left.args[1], c != 1))
        if isinstance(left, A.Count) and c is not None:  # '.one': 'there is a card ...' (at least 1)
            one = ".one" if (op, c) == (">=", 1) else ""
            return P(f"compare.count.{name}{none}{one}", n=r, count=c, cards=self.query(left.query, plural=c != 1,
                                                                                         article=bool(one)))
        if isinstance(left, A.Name) and self.lex.is_resource(left.name) and c is not None:
            return P(f"compare.resource.{name}{none}", n=r, count=c, what=Word(left.name, plural=c != 1))
        if self.has_unit(left) and not isinstance(left, A.Name) and c is not None:
            one = ".one" if (op, c) == (">=", 1) else ""  # 'there is a tile of yours next to it'
            return P(f"compare.unit.{name}{none}{one}", n=r, count=c, unit=self.unit(left, plural=c != 1))
        return P(f"compare.value.{name}", n=r, value=self.value(left))
