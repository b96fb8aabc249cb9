"""Effect-language text to AST. Lark stays inside this module.

`parse_program`, `parse_expression` and `parse_signature` take the text and a
`locate(start, end) -> Span` function that maps character offsets in the text to the
YAML file, so every AST node's span points at the card file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast as A
from .diagnostics import Diagnostics, Span
from .parse_players import PlayersToAst, _AsName, _Step

GRAMMAR_PATH = Path(__file__).resolve().parent.parent / "grammar" / "effect.lark"
Locate = Callable[[int, int], Span]


@cache
def parser() -> Lark:
    text = GRAMMAR_PATH.read_text(encoding="utf-8")
    tables = _tables(text)
    if tables is not None:
        return tables
    p = Lark(text, parser="lalr", start=["program", "expression", "signature", "filter_chain"],
             propagate_positions=True, maybe_placeholders=False)
    _keep_tables(text, p)
    return p


def _tables_key(grammar: str) -> str:
    import hashlib

    import lark

    return hashlib.sha256(f"effect tables\0{lark.__version__}\0{grammar}".encode()).hexdigest()


def _tables(grammar: str) -> Lark | None:
    """The grammar's LALR tables as built by an earlier process, kept in the compile cache folder (loading them
    takes a tenth of the time of building them). Lark keeps them as a pickle, which can run code when read, so
    the file is signed like a cache entry (compiler/cache.py) and read only when its signature checks."""
    import io

    from .cache import cache_dir, read_signed

    key = _tables_key(grammar)
    payload = read_signed(cache_dir() / "lark" / f"effect-{key[:24]}.tables", key)
    if payload is None:
        return None
    try:
        return Lark.load(io.BytesIO(payload))
    except Exception:  # signed by us, but from another Lark: built again
        return None


def _keep_tables(grammar: str, p: Lark) -> None:
    import io

    from .cache import cache_dir, write_signed

    key = _tables_key(grammar)
    buf = io.BytesIO()
    try:
        p.save(buf)
    except Exception:  # a Lark that cannot save: nothing kept
        return
    write_signed(cache_dir() / "lark" / f"effect-{key[:24]}.tables", key, buf.getvalue())


@cache
def keywords() -> frozenset[str]:
    """The words that begin a built-in statement (gain, place, each, ...): no macro may start with one."""
    p = parser()
    accepted = p.parse_interactive("", start="program").accepts()
    words = set()
    for name in accepted:
        try:
            pat = p.get_terminal(name).pattern
        except KeyError:
            continue
        if pat.type == "str" and pat.value.isalpha():
            words.add(pat.value)
    return frozenset(words)


def grammar_text() -> str:
    return GRAMMAR_PATH.read_text(encoding="utf-8")


# Friendly names for the terminals Lark reports as expected.
_TOKEN_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "PARAM": "a $parameter", "COLON": "':'", "COMMA": "','",
    "SEMICOLON": "';'", "LPAR": "'('", "RPAR": "')'", "VBAR": "'|'", "CMP": "a comparison",
    "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'", "SLASH": "'/'", "PERCENT": "'%'",
    "$END": "the end of the text", "_PREP": "'from', 'to', 'on', 'in', 'at', 'with'",
}


def _expected_words(expected: set[str], p: Lark) -> list[str]:
    words = []
    for name in sorted(expected):
        if name in _TOKEN_WORDS:
            words.append(_TOKEN_WORDS[name])
            continue
        try:
            term = p.get_terminal(name)
            pat = term.pattern
            words.append(f"'{pat.value}'" if pat.type == "str" else name.lower())
        except KeyError:
            words.append(name.lower())
    return words


class _ToAst(PlayersToAst, Transformer):
    def __init__(self, locate: Locate) -> None:
        super().__init__()
        self.locate = locate

    def _s(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span("<dsl>", 0, 0)
        return self.locate(meta.start_pos, meta.end_pos)

    def _tok(self, t: Token) -> Span:
        return self.locate(t.start_pos or 0, t.end_pos or 0)

    # --- entry points
    @v_args(meta=True)
    def program(self, meta, items):
        return A.Program(tuple(items), span=self._s(meta))

    def filter_chain(self, items):
        return tuple(items)

    @v_args(meta=True)
    def signature(self, meta, items):
        name, *args = items
        return A.Signature(str(name), tuple(args), span=self._s(meta))

    # --- references
    @v_args(meta=True)
    def it(self, meta, _):
        return A.It(span=self._s(meta))

    @v_args(meta=True)
    def this(self, meta, _):
        return A.This(span=self._s(meta))

    @v_args(meta=True)
    def local_card(self, meta, items):
        return A.LocalCard(str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def param(self, meta, items):
        return A.Param(str(items[0])[1:], span=self._s(meta))

    def _pref(kind):
        @v_args(meta=True)
        def f(self, meta, _):
            return A.PlayerRef(kind, span=self._s(meta))

        return f

    @v_args(meta=True)
    def automa_ref(self, meta, items):
        return A.PlayerRef("automa", str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def cond(self, meta, items):
        return A.Cond(items[0], items[1], items[2], span=self._s(meta))

    you = _pref("you")
    active = _pref("active")
    left = _pref("left")
    right = _pref("right")
    first = _pref("first")

    # --- queries
    @v_args(meta=True)
    def zone(self, meta, items):
        return A.ZoneRef(str(items[0]), items[1] if len(items) > 1 else None, span=self._s(meta))

    @v_args(meta=True)
    def zone_of(self, meta, items):
        return A.ZoneOf(items[0], span=self._s(meta))

    def zones(self, items):
        return tuple(items)

    def filters(self, items):
        return tuple(items)

    @v_args(meta=True)
    def query(self, meta, items):
        zones: tuple = ()
        filters: tuple = ()
        where = None
        for it in items:
            if isinstance(it, _Where):
                where = it.expr
            elif it and isinstance(it[0], A.ZoneRef | A.ZoneOf):
                zones = it
            else:
                filters = it
        return A.Query(zones, filters, where, span=self._s(meta))

    def where(self, items):
        return _Where(items[0])

    @v_args(meta=True)
    def trait_is(self, meta, items):
        return A.TraitIs(str(items[0]), tuple(str(v) for v in items[1:]), span=self._s(meta))

    @v_args(meta=True)
    def has(self, meta, items):
        return A.Has(str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def has_no(self, meta, items):
        return A.HasNo(str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def has_ability(self, meta, items):
        return A.HasAbility(str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def stat_cmp(self, meta, items):
        return A.StatCmp(str(items[0]), str(items[1]), items[2], span=self._s(meta))

    @v_args(meta=True)
    def filter_not(self, meta, items):
        return A.FilterNot(items[0], span=self._s(meta))

    @v_args(meta=True)
    def not_this(self, meta, _):
        return A.NotThis(span=self._s(meta))

    @v_args(meta=True)
    def not_card(self, meta, items):
        return A.NotCard(items[0], span=self._s(meta))

    @v_args(meta=True)
    def each_of(self, meta, items):
        return A.EachOf(items[0], span=self._s(meta))

    @v_args(meta=True)
    def any_of(self, meta, items):
        return A.AnyOf(items[0], span=self._s(meta))

    def target(self, items):
        return items[0]

    # --- expressions
    @v_args(meta=True)
    def num(self, meta, items):
        return A.Num(int(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def true(self, meta, _):
        return A.Bool(True, span=self._s(meta))

    @v_args(meta=True)
    def false(self, meta, _):
        return A.Bool(False, span=self._s(meta))

    @v_args(meta=True)
    def var_x(self, meta, _):
        return A.VarX(span=self._s(meta))

    @v_args(meta=True)
    def name(self, meta, items):
        return A.Name(str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def attr(self, meta, items):
        return A.Attr(str(items[0]), items[1], span=self._s(meta))

    @v_args(meta=True)
    def pieces(self, meta, items):
        return A.Pieces(str(items[0]), items[1], span=self._s(meta))

    @v_args(meta=True)
    def own_pieces(self, meta, items):
        return A.Pieces(str(items[0]), items[1], True, span=self._s(meta))

    @v_args(meta=True)
    def count(self, meta, items):
        return A.Count(items[0], span=self._s(meta))

    @v_args(meta=True)
    def sum_of(self, meta, items):
        return A.SumOf(str(items[0]), items[-1], span=self._s(meta))

    def fname(self, items):
        return str(items[0])

    @v_args(meta=True)
    def func(self, meta, items):
        return A.Func(items[0], tuple(items[1:]), span=self._s(meta))

    @v_args(meta=True)
    def card_is(self, meta, items):
        return A.CardIs(items[0], items[1], span=self._s(meta))

    def _bin(op):
        @v_args(meta=True)
        def f(self, meta, items):
            return A.BinOp(op, items[0], items[1], span=self._s(meta))

        return f

    add = _bin("+")
    mod = _bin("%")
    sub = _bin("-")
    mul = _bin("*")
    div = _bin("/")
    or_ = _bin("or")
    and_ = _bin("and")

    @v_args(meta=True)
    def compare(self, meta, items):
        return A.BinOp(str(items[1]), items[0], items[2], span=self._s(meta))

    @v_args(meta=True)
    def not_(self, meta, items):
        return A.Not(items[0], span=self._s(meta))

    @v_args(meta=True)
    def neg(self, meta, items):
        return A.Neg(items[0], span=self._s(meta))

    # --- amounts
    @v_args(meta=True)
    def amount(self, meta, items):
        return A.Amount("exact", items[0], span=self._s(meta))

    @v_args(meta=True)
    def up_to(self, meta, items):
        return A.Amount("up_to", items[0], span=self._s(meta))

    @v_args(meta=True)
    def one(self, meta, _):
        return A.Amount("exact", A.Num(1, span=self._s(meta)), span=self._s(meta))

    @v_args(meta=True)
    def all(self, meta, _):
        return A.Amount("all", None, span=self._s(meta))

    @v_args(meta=True)
    def per(self, meta, items):
        if len(items) == 2:
            return A.Per(int(items[0]), items[1], span=self._s(meta))
        return A.Per(1, items[0], span=self._s(meta))

    # --- statements
    @v_args(meta=True)
    def gain(self, meta, items):
        per = items[2] if len(items) > 2 else None
        return A.Gain(items[0], str(items[1]), per, span=self._s(meta))

    @v_args(meta=True)
    def gain_one(self, meta, items):
        s = self._s(meta)
        return A.Gain(A.Amount("exact", A.Num(1, span=s), span=s), str(items[0]), None, span=s)

    @v_args(meta=True)
    def lose(self, meta, items):
        per = items[2] if len(items) > 2 else None
        return A.Lose(items[0], str(items[1]), per, span=self._s(meta))

    @v_args(meta=True)
    def pay(self, meta, items):
        card = items.pop().card if isinstance(items[-1], _PayFor) else None
        pairs = tuple((items[i], str(items[i + 1])) for i in range(0, len(items), 2))
        return A.Pay(pairs, card, span=self._s(meta))

    def pay_for(self, items):
        return _PayFor(items[0])

    @v_args(meta=True)
    def pay_source(self, meta, items):
        currency, source, *rest = items
        rate = next((r.expr for r in rest if isinstance(r, _Rate)), None)
        target = next((r for r in rest if isinstance(r, tuple)), None)
        counter = source.name if isinstance(source, _Counter) else None
        query = source if isinstance(source, A.Query) else None
        return A.PaySource(str(currency), counter, query, rate, target, None, span=self._s(meta))

    def pay_counter(self, items):
        return _Counter(str(items[0]))

    def pay_rate(self, items):
        return _Rate(items[0])

    def pay_target(self, items):
        return items[-1]  # the filters

    @v_args(meta=True)
    def can(self, meta, items):
        return A.Can(items[0], span=self._s(meta))

    @v_args(meta=True)
    def any_order(self, meta, items):
        return A.InAnyOrder(tuple(items), span=self._s(meta))

    @v_args(meta=True)
    def set(self, meta, items):
        return A.SetCounter(str(items[0]), items[1], span=self._s(meta))

    @v_args(meta=True)
    def score(self, meta, items):
        step = items.pop().name if isinstance(items[-1], _Step) else None
        return A.Score(items[0], items[1] if len(items) > 1 else None, step, span=self._s(meta))

    @v_args(meta=True)
    def may(self, meta, items):
        return A.May(items[0], span=self._s(meta))

    @v_args(meta=True)
    def group(self, meta, items):
        return A.Group(tuple(items), span=self._s(meta))

    @v_args(meta=True)
    def nothing(self, meta, _):
        return A.Nothing(span=self._s(meta))

    @v_args(meta=True)
    def call(self, meta, items):
        return A.Call(str(items[0]), tuple(self._arg(a) for a in items[1:]), span=self._s(meta))

    def _arg(self, a) -> A.CallArg:
        if isinstance(a, A.CallArg):
            return a
        if isinstance(a, A.Num):
            return A.CallArg("num", a.value, span=a.span)
        if isinstance(a, A.Param):
            return A.CallArg("param", a.name, span=a.span)
        if isinstance(a, A.It):
            return A.CallArg("it", None, span=a.span)
        if isinstance(a, A.This):
            return A.CallArg("this", None, span=a.span)
        if isinstance(a, A.VarX):
            return A.CallArg("expr", a, span=a.span)
        return A.CallArg("expr", a, span=getattr(a, "span", Span("<dsl>", 0, 0)))

    @v_args(meta=True)
    def upto_arg(self, meta, items):
        return A.CallArg("upto", items[0], span=self._s(meta))

    @v_args(meta=True)
    def word(self, meta, items):
        return A.CallArg("word", str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def emit(self, meta, items):
        return A.Emit(str(items[0]), str(items[1]) if len(items) > 1 else None, span=self._s(meta))

    @v_args(meta=True)
    def pass_first(self, meta, items):
        return A.PassFirst(items[0], span=self._s(meta))

    @v_args(meta=True)
    def others(self, meta, _):
        return A.PlayerRef("others", span=self._s(meta))

    @v_args(meta=True)
    def everyone(self, meta, _):
        return A.PlayerRef("all", span=self._s(meta))

    def reverse(self, _):
        return _Reverse()

    @v_args(meta=True)
    def end_game(self, meta, _):
        return A.EndGame(span=self._s(meta))

    @v_args(meta=True)
    def shuffle(self, meta, items):
        return A.Shuffle(items[0], span=self._s(meta))

    @v_args(meta=True)
    def modify(self, meta, items):
        return A.Modify(str(items[0]), items[1], items[2], span=self._s(meta))

    @v_args(meta=True)
    def prevent(self, meta, items):
        opponents = bool(items) and items[0] == "opponents"
        names = tuple(str(i) for i in items[1 if opponents else 0:-1])
        return A.Prevent(names, opponents, items[-1], span=self._s(meta))

    def by_opponents(self, _):
        return "opponents"

    def guard_this(self, _):
        return "this"

    def guard_you(self, _):
        return "you"

    @v_args(meta=True)
    def activate_timing(self, meta, items):
        return A.ActivateTiming(str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def activate_copy(self, meta, items):
        return A.ActivateCopy(str(items[0]), items[1], span=self._s(meta))

    @v_args(meta=True)
    def mark(self, meta, items):
        return A.Mark(items[0], str(items[1]), True, span=self._s(meta))

    @v_args(meta=True)
    def mark_on(self, meta, items):
        return A.Mark(items[1], str(items[0]), True, span=self._s(meta))

    @v_args(meta=True)
    def unmark_on(self, meta, items):
        return A.Mark(items[1], str(items[0]), False, span=self._s(meta))

    @v_args(meta=True)
    def unmark(self, meta, items):
        return A.Mark(items[0], str(items[1]), False, span=self._s(meta))

    @v_args(meta=True)
    def flip(self, meta, items):
        return A.Flip(items[0], span=self._s(meta))

    @v_args(meta=True)
    def reveal(self, meta, items):
        return A.Reveal(items[0], items[1], span=self._s(meta))

    @v_args(meta=True)
    def open_window(self, meta, items):
        return A.OpenWindow(str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def as_soon_as(self, meta, items):
        cond, *rest = items
        query = rest.pop(0) if rest and isinstance(rest[0], A.Query) else None
        return A.AsSoonAs(cond, query, tuple(rest), span=self._s(meta))

    @v_args(meta=True)
    def let(self, meta, items):
        return A.Let(str(items[0]), items[1], span=self._s(meta))

    let_card = let

    def as_name(self, items):
        return _AsName(str(items[0]))

    @v_args(meta=True)
    def choose_x(self, meta, items):
        return A.ChooseX(items[0], items[1], span=self._s(meta))

    def top(self, _):
        return "top"

    def bottom(self, _):
        return "bottom"

    def face_down(self, _):
        return "down"

    def face_up(self, _):
        return "up"

    @v_args(meta=True)
    def source(self, meta, items):
        end = None
        zone = None
        filters: tuple = ()
        for it in items:
            if isinstance(it, str):
                end = it
            elif isinstance(it, A.ZoneRef | A.ZoneOf):
                zone = it
            else:
                filters = it
        return A.Source(zone, end, filters, span=self._s(meta))

    @v_args(meta=True)
    def dest(self, meta, items):
        end = items[0] if isinstance(items[0], str) else None
        cell = items[-1] if isinstance(items[-1], A.Cell) else None
        zone = items[-2] if cell is not None else items[-1]
        return A.Dest(zone, end, cell, span=self._s(meta))

    @v_args(meta=True)
    def cell(self, meta, items):
        return A.Cell(items[0], items[1], span=self._s(meta))

    @v_args(meta=True)
    def move(self, meta, items):
        face = items[3] if len(items) > 3 else None
        return A.Move(items[0], items[1], items[2], face, span=self._s(meta))

    @v_args(meta=True)
    def move_card(self, meta, items):
        face = items[2] if len(items) > 2 else None
        return A.MoveCard(items[0], items[1], face, span=self._s(meta))

    def owned(self, _):
        return True

    @v_args(meta=True)
    def place(self, meta, items):
        owned = len(items) == 4
        return A.Place(items[0], str(items[1]), items[-1], owned, span=self._s(meta))

    @v_args(meta=True)
    def remove(self, meta, items):
        return A.Remove(items[0], str(items[1]), items[2], span=self._s(meta))

    # --- headed statements
    @v_args(meta=True)
    def costed(self, meta, items):
        if isinstance(items[0], A.PaySource):  # 'pay egg with card in hand: move it to discard': the spend
            return dataclasses.replace(items[0], spend=tuple(items[1:]), span=self._s(meta))
        return A.Costed(items[0], tuple(items[1:]), span=self._s(meta))

    @v_args(meta=True)
    def if_(self, meta, items):
        # items: cond, then-stmts..., and (after the Lark-discarded 'else') else-stmts.
        # Lark flattens _seq, so we split on the marker the grammar cannot give: use meta of children.
        cond, *rest = items
        then, other = self._split_else(meta, rest)
        return A.If(cond, tuple(then), tuple(other), span=self._s(meta))

    def _split_else(self, meta, rest):
        marker = [i for i, s in enumerate(rest) if isinstance(s, _ElseMark)]
        if not marker:
            return rest, []
        i = marker[0]
        return rest[:i], rest[i + 1 :]

    def else_(self, _):
        return _ElseMark()

    @v_args(meta=True)
    def scoped(self, meta, items):
        return A.Scoped(items[0], tuple(items[1:]), span=self._s(meta))

    @v_args(meta=True)
    def each_player(self, meta, items):
        return A.Players("each", None, items[0] if items else None, span=self._s(meta))

    @v_args(meta=True)
    def each_turn(self, meta, items):
        return A.Players("turns", None, items[0] if items else None, span=self._s(meta))

    @v_args(meta=True)
    def each_other(self, meta, items):
        return A.Players("each_other", None, items[0] if items else None, span=self._s(meta))

    @v_args(meta=True)
    def each_opponent(self, meta, items):
        return A.Players("opponents", None, items[0] if items else None, span=self._s(meta))

    @v_args(meta=True)
    def chosen_player(self, meta, items):
        other, filters, _, _ = self._pick(items)
        return A.Players("chosen", None, None, other=other, filters=filters, span=self._s(meta))

    @v_args(meta=True)
    def players(self, meta, items):
        return A.Players("ref", items[0], None, span=self._s(meta))

    def from_player(self, items):
        return items[0]

    @v_args(meta=True)
    def for_each(self, meta, items):
        query, *rest = items
        rev = bool(rest) and isinstance(rest[0], _Reverse)
        if rev:
            rest = rest[1:]
        name = rest.pop(0).name if rest and isinstance(rest[0], _AsName) else None
        return A.ForEach(query, tuple(rest), rev, name, span=self._s(meta))

    def _rep(kind):
        @v_args(meta=True)
        def f(self, meta, items):
            return A.Repeat(kind, items[0], tuple(items[1:]), span=self._s(meta))

        return f

    repeat_times = _rep("times")
    repeat_until = _rep("until")
    repeat_while = _rep("while")
    up_to_times = _rep("up_to")

    @v_args(meta=True)
    def choose_one(self, meta, items):
        return A.ChooseOne(tuple(items), span=self._s(meta))

    def option(self, items):
        return tuple(items)

    @v_args(meta=True)
    def choose_card(self, meta, items):
        query, *rest = items
        name = rest.pop(0).name if rest and isinstance(rest[0], _AsName) else None
        return A.ChooseCard(query, tuple(rest), name, span=self._s(meta))

    def subj_you(self, _):
        return "you"

    def subj_any(self, _):
        return "any"

    def subj_opponent(self, _):
        return "opponent"

    def trigger_object(self, items):
        it = items[0]
        return it if isinstance(it, A.Query) else str(it)

    @v_args(meta=True)
    def trigger(self, meta, items):
        subject, verb, *rest = items
        obj = None
        if rest and isinstance(rest[0], A.Query | str) and not isinstance(rest[0], Token):
            obj = rest.pop(0)
        return A.Trigger(subject, str(verb), obj, tuple(rest), span=self._s(meta))


class _ElseMark:
    pass


class _PayFor:
    def __init__(self, card) -> None:
        self.card = card


class _Counter:
    def __init__(self, name: str) -> None:
        self.name = name


class _Rate:
    def __init__(self, expr) -> None:
        self.expr = expr


class _Reverse:
    pass


class _Where:
    def __init__(self, expr) -> None:
        self.expr = expr


def _diag_for(e: UnexpectedInput, text: str, locate: Locate, diags: Diagnostics, what: str) -> None:
    pos = getattr(e, "pos_in_stream", None)
    if pos is None:
        pos = len(text)
    span = locate(pos, pos + 1)
    p = parser()
    if isinstance(e, UnexpectedCharacters):
        ch = text[pos] if pos < len(text) else ""
        hint = None
        if ch.isupper():
            hint = "names are lowercase kebab-case, e.g. 'coin' or 'coin-income'"
        diags.error("E100", f"unexpected character {ch!r} in {what}", span, hint=hint)
        return
    if isinstance(e, UnexpectedToken):
        tok = e.token
        exp = _expected_words(set(e.expected), p)
        tail = f"; expected {', '.join(exp[:8])}{' …' if len(exp) > 8 else ''}" if exp else ""
        hint = None
        if tok.type == "$END":
            span = locate(max(len(text.rstrip()) - 1, 0), len(text.rstrip()))
            trailing = text.rstrip()[-1:] in (",", ";")
            diags.error("E100", f"the {what} ends too early{tail}", span,
                        hint="remove the trailing separator" if trailing else None)
            return
        if str(tok) == ":" and "':'" not in exp:
            hint = "a ':' ends a cost, condition, loop or scope; group earlier steps with parentheses"
        elif "\n" in text[:pos][len(text[:pos].rstrip()):] or text[:pos].rstrip().endswith(")"):
            hint = "separate statements with ',' or ';'"
        diags.error("E100", f"unexpected {str(tok)!r} in {what}{tail}", span, hint=hint)
        return
    if isinstance(e, UnexpectedEOF):
        diags.error("E100", f"{what} ends too early", span)
        return
    diags.error("E100", f"cannot parse {what}: {e}", span)  # pragma: no cover


# Input limits, far above what any card needs: they keep hostile text from exhausting time or the stack
# (Lark's tree builder is quadratic in the statements of one text; the later stages recurse).
MAX_TEXT = 20_000  # characters of one effect text
MAX_NESTING = 100  # levels of the parse tree (real abilities use under 20)
MAX_DIGITS = 15  # digits of a number literal


def _limits(tree: Tree, text: str, locate: Locate, diags: Diagnostics, what: str) -> bool:
    """False (with a diagnostic) when the parse tree is nested too deeply or holds a huge number."""
    todo: list[tuple[Tree | Token, int]] = [(tree, 1)]
    while todo:
        node, depth = todo.pop()
        if isinstance(node, Token):
            if node.type == "NUMBER" and len(node) > MAX_DIGITS:
                pos = node.start_pos or 0
                diags.error("E100", f"number too large in {what} ({len(node):,} digits; at most {MAX_DIGITS})",
                            locate(pos, pos + len(node)))
                return False
            continue
        if depth > MAX_NESTING:
            pos = getattr(node.meta, "start_pos", None) or 0
            diags.error("E100", f"{what} nested too deeply (over {MAX_NESTING} levels)", locate(pos, pos + 1),
                        hint="split it with a macro in rules.yaml")
            return False
        todo.extend((c, depth + 1) for c in node.children)
    return True


def _parse(text: str, start: str, locate: Locate, diags: Diagnostics, what: str):
    if len(text) > MAX_TEXT:
        diags.error("E100", f"{what} is {len(text):,} characters long; the limit is {MAX_TEXT:,}", locate(0, 1),
                    hint="name parts of it as macros in rules.yaml")
        return None
    fast = _driver()
    if fast is not None:
        node = fast.parse(text, start, _ToAst(locate), MAX_NESTING, MAX_DIGITS)
        if node is not None:
            return node
    # Lark's own two passes: the reference, and the one that explains what is wrong with a text.
    try:
        tree = parser().parse(text, start=start)
    except UnexpectedInput as e:
        _diag_for(e, text, locate, diags, what)
        return None
    if not _limits(tree, text, locate, diags, what):
        return None
    return _ToAst(locate).transform(tree)


@cache
def _driver():
    """The one-pass driver over Lark's tables (compiler/lalr.py), or None if the grammar needs Lark itself."""
    from .lalr import Driver

    try:
        return Driver(parser(), _ToAst)
    except Exception:  # a feature it does not reproduce, or a Lark whose internals moved: Lark parses alone
        return None


def parse_program(text: str, locate: Locate, diags: Diagnostics) -> A.Program | None:
    return _parse(text, "program", locate, diags, "effect")


def parse_expression(text: str, locate: Locate, diags: Diagnostics):
    return _parse(text, "expression", locate, diags, "expression")


def parse_signature(text: str, locate: Locate, diags: Diagnostics) -> A.Signature | None:
    return _parse(text, "signature", locate, diags, "macro signature")


def parse_filters(text: str, locate: Locate, diags: Diagnostics) -> tuple | None:
    """A filter macro's body: filters joined by 'and' (as after 'with')."""
    return _parse(text, "filter_chain", locate, diags, "filter")


def plain_locate(file: str = "<text>") -> Locate:
    """A locator for text that does not come from a YAML file (tests, the REPL)."""

    def locate(start: int, end: int) -> Span:
        return Span(file, 1, start + 1, 1, end + 1)

    return locate
