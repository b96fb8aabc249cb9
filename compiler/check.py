"""Semantic check of expanded programs against the pack's vocabulary.

Unknown names (with a did-you-mean), wrong types, a statement where a cost must be,
`it`/`this` where no card is in scope, `score` outside scoring: each becomes a
diagnostic. The checker never stops at the first problem.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import ast as A
from .check_payments import PaymentChecks
from .check_players import PlayerChecks
from .diagnostics import Diagnostics, SourceCache, Span, did_you_mean
from .unparse import text as text_of
from .vocab import Vocabulary

BUILTIN_WORDS = ("gain", "lose", "pay", "set", "score", "may", "emit", "end", "shuffle", "modify", "activate",
                 "mark", "unmark", "reveal", "choose", "move", "place", "remove", "if", "each", "for", "repeat",
                 "up", "when", "nothing", "in")
MAX_ORDER_PARTS = 5  # 'in any order' offers every order of its parts: 5 parts are 120 orders
FUNCS = {"min": (2, 9), "max": (2, 9), "abs": (1, 1), "nth": (2, 2), "sets": (2, 16), "path": (2, 2),
         "rows": (1, 1), "columns": (1, 1), "neighbours": (2, 2), "distinct": (1, 1), "occurrences": (2, 2),
         "highest": (1, 1), "lowest": (1, 1)}
BUILTIN_NAMES = {"player-count", "total-score"}  # names every pack can use in expressions
CARD_PLACES = {"row", "column", "position"}  # where a card lies: its board row and column, its place in a zone
PLAYER_WORDS = {"you", "active", "left", "right", "first"}
LANGUAGE_EVENTS = ("gain", "lose", "place", "remove")  # events the language emits itself (flags' too: see events())
PLAYER_LOOPS = {"each", "turns", "each_other", "opponents", "at_once"}  # player scopes that run once per player


@dataclass(frozen=True)
class Context:
    """What a program may refer to where it stands."""

    kind: str  # ability | flow | condition | scoring | macro | payment (rules.yaml's payments)
    card_type: str | None = None  # the card whose ability this is, if any
    has_this: bool = False
    has_it: bool = False
    scoring: bool = False
    in_cost: bool = False
    top_level: bool = True  # triggers and modifiers may stand only at the top of an ongoing ability
    allow_live: bool = False  # triggers/modifiers allowed here
    macro: str | None = None
    call_span: Span | None = None
    macro_def: bool = False  # checking a macro body on its own: $parameters stand for any name
    locals: tuple[tuple[str, str], ...] = ()  # local names in scope, with their type (int, bool, card or player)
    at_once: bool = False  # inside 'each player at once'

    def local(self, name: str) -> str | None:
        """The type of a local name in scope, or None."""
        for n, t in reversed(self.locals):
            if n == name:
                return t
        return None

    def bind(self, name: str, kind: str) -> Context:
        return replace(self, locals=(*self.locals, (name, kind)))


class Checker(PlayerChecks, PaymentChecks):
    def __init__(self, voc: Vocabulary, diags: Diagnostics, macro_names: set[str],
                 broken_macros: set[str] | None = None) -> None:
        self.voc = voc
        self.diags = diags
        self.macro_names = macro_names
        self.broken_macros = broken_macros or set()
        self.silenced = 0  # programs that cannot compile for an error reported elsewhere
        self._lines = SourceCache()
        self.paid: set[str] = set()  # every currency some 'pay' or 'can pay' names (W120 for the others)

    def word(self, span: Span, word: str) -> Span:
        """The span of `word` inside a statement's span, so an unknown name is pointed at exactly."""
        line = self._lines.line(span.file, span.line)
        if line is None or span.col <= 0:
            return span
        at = _find_word(line, word, span.col - 1)
        return Span(span.file, span.line, at + 1, span.line, at + 1 + len(word)) if at >= 0 else span

    @staticmethod
    def param(name: str, ctx: Context) -> bool:
        return ctx.macro_def and name.startswith("$")

    # ------------------------------------------------------------ reporting
    def err(self, ctx: Context, code: str, msg: str, span: Span, hint: str | None = None) -> None:
        if ctx.call_span is not None:
            # Inside a macro expansion: point at the user's call, note the macro body.
            self.diags.error(code, f"{msg} (in macro '{ctx.macro}')", ctx.call_span, hint=hint,
                             notes=(("inside the macro body here", span),))
        else:
            self.diags.error(code, msg, span, hint=hint)

    def warn(self, ctx: Context, code: str, msg: str, span: Span, hint: str | None = None) -> None:
        if ctx.call_span is not None:
            self.diags.warning(code, f"{msg} (in macro '{ctx.macro}')", ctx.call_span, hint=hint,
                               notes=(("inside the macro body here", span),))
        else:
            self.diags.warning(code, msg, span, hint=hint)

    def unknown(self, ctx: Context, what: str, name: str, candidates, span: Span) -> None:
        self.err(ctx, "E101", f"unknown {what} '{name}'", span, hint=did_you_mean(name, candidates))

    # ------------------------------------------------------------ programs
    def program(self, prog: A.Program, ctx: Context) -> None:
        self.stmts(prog.body, ctx)

    def stmts(self, body: tuple, ctx: Context) -> None:
        for s in body:
            if isinstance(s, A.Let):
                ctx = self.bind_local(s, ctx)  # the name holds for the rest of this group
            else:
                self.stmt(s, ctx)

    def s_Let(self, s: A.Let, ctx: Context) -> None:
        self.bind_local(s, ctx)  # alone (under 'may', say): nothing follows it that could use the name

    def bind_local(self, s: A.Let, ctx: Context) -> Context:
        named = isinstance(s.value, A.LocalCard) and ctx.local(s.value.name) == "player"
        if isinstance(s.value, A.PlayerRef) or named:
            kind = self.player_value(s.value, ctx)
        elif isinstance(s.value, A.It | A.This | A.LocalCard):
            self.cardref(s.value, ctx)
            kind = "card"
        else:
            kind = self.expr(s.value, ctx) or "int"
        self.local_name(s.name, s.span, ctx)
        return ctx.bind(s.name, kind)

    def local_name(self, name: str, span: Span, ctx: Context) -> None:
        """A local name must be new: a name of the pack's vocabulary or a word of the language would be read
        two ways."""
        from .vocab import RESERVED

        voc = self.voc
        for what, table in (("resource", voc.resources), ("shared counter", voc.counters), ("parameter", voc.params),
                            ("stat", voc.stats), ("piece", voc.pieces), ("zone", voc.zones), ("flag", voc.flags),
                            ("timing", voc.timings), ("card type", voc.card_types), ("trait", voc.traits)):
            if name in table:
                self.err(ctx, "E114", f"'{name}' is already a {what} of this pack: a local name must be new",
                         self.word(span, name), hint=f"call it something else, e.g. '{name}-now'")
                return
        if name in RESERVED or name in BUILTIN_NAMES:
            self.err(ctx, "E114", f"'{name}' is a word of the language: a local name must be new",
                     self.word(span, name))

    def stmt(self, s, ctx: Context) -> None:
        getattr(self, f"s_{type(s).__name__}")(s, ctx)

    def _inner(self, ctx: Context, **kw) -> Context:
        return replace(ctx, top_level=False, **kw)

    def s_Gain(self, s: A.Gain, ctx: Context) -> None:
        self.amount(s.amount, ctx)
        self.counter_name(s.resource, s.span, ctx)
        if s.per:
            self.per(s.per, ctx)

    s_Lose = s_Gain

    def s_InAnyOrder(self, s: A.InAnyOrder, ctx: Context) -> None:
        if not 2 <= len(s.parts) <= MAX_ORDER_PARTS:
            self.err(ctx, "E123", f"'in any order' orders 2 to {MAX_ORDER_PARTS} statements; it has "
                     f"{len(s.parts)}", s.span, hint="the statements after ':' are the parts; group a part's "
                     "steps in parentheses")
        self.stmts(s.parts, self._inner(ctx))

    def s_SetCounter(self, s: A.SetCounter, ctx: Context) -> None:
        self.counter_name(s.name, s.span, ctx)
        self.expect(s.value, "int", ctx)

    def s_May(self, s: A.May, ctx: Context) -> None:
        self.stmt(s.body, self._inner(ctx))

    def s_Group(self, s: A.Group, ctx: Context) -> None:
        if s.macro is not None and ctx.call_span is None:
            ctx = replace(ctx, macro=s.macro, call_span=s.span)
        # a group at the top of an ongoing ability is transparent: its statements are at the top too, so a
        # macro called there may hold triggers and modifiers (Indentured Workers' 'discount the next card 8')
        live = ctx.allow_live and ctx.top_level
        self.stmts(s.body, replace(ctx, allow_live=True) if live else self._inner(ctx, allow_live=False))

    def s_Nothing(self, s, ctx: Context) -> None:
        pass

    def s_Call(self, s: A.Call, ctx: Context) -> None:
        if self.param(s.name, ctx):
            return
        if s.name in self.broken_macros:
            self.silenced += 1  # the macro's definition error is reported; this program cannot compile
            return
        cands = list(self.macro_names) + list(BUILTIN_WORDS)
        self.err(ctx, "E101", f"unknown action '{s.name}'", s.span,
                 hint=self.suggest_action(s.name, cands) or "actions are built-in words or macros defined in "
                 "rules.yaml")

    def suggest_action(self, name: str, cands: list[str]) -> str | None:
        """The closest action, a macro shown by its whole signatures as rules.yaml writes them ('score-the $x for
        $y', not its first word alone)."""
        hint = did_you_mean(name, cands)
        if hint is None:
            return None
        best = hint.split("'")[1]
        sigs = [sig for sig in self.voc.macros if sig.split(" ", 1)[0] == best]
        if not sigs:
            return hint
        shown = [f"'{sig}'" for sig in sigs[:3]]
        return "did you mean " + (" or ".join(shown) if len(sigs) <= 3 else ", ".join(shown) + ", ...") + "?"

    def s_Emit(self, s: A.Emit, ctx: Context) -> None:
        self.event_name(s.event, self.word(s.span, s.event), ctx)

    def events(self) -> list[str]:
        """Every event a program may emit or a trigger answer: the language's own and the pack's declared ones."""
        voc = self.voc
        flags = [*voc.flags, *voc.player_flags]
        return [*LANGUAGE_EVENTS, *flags, *(f"un{f}" for f in flags), *voc.events]

    def event_name(self, name: str, span: Span, ctx: Context) -> None:
        """An event must be declared (rules.yaml `events:`) or be one the language emits: a misspelt one would never
        reach the trigger that waits for it."""
        if self.param(name, ctx) or name in self.voc.events or name in self.events():
            return
        self.err(ctx, "E101", f"unknown event '{name}'", span, hint=did_you_mean(name, self.events()) or
                 f"declare the pack's own events in rules.yaml: 'events: [{name}]'")

    def s_EndGame(self, s, ctx: Context) -> None:
        pass

    def s_PassFirst(self, s: A.PassFirst, ctx: Context) -> None:
        self.player_ref(s.to, ctx)
        if s.to.kind == "automa":
            self.err(ctx, "E102", "the first-player marker goes to a player, not to an automa seat (automa seats "
                     "take no turns)", s.to.span)

    def player_ref(self, r: A.PlayerRef | None, ctx: Context) -> None:
        """An automa seat must be declared in rules.yaml (`automa:`); a player named 'the NAME' bound."""
        if r is not None and r.kind == "local":
            self.local_player(r.name or "", r.span, ctx)
            return
        if r is None or r.kind != "automa":
            return
        if r.name not in self.voc.automa and not self.param(r.name or "", ctx):
            self.unknown(ctx, "automa seat", r.name or "", self.voc.automa, self.word(r.span, r.name or ""))

    def s_Shuffle(self, s: A.Shuffle, ctx: Context) -> None:
        self.zone(s.zone, ctx, single=True)

    def s_Modify(self, s: A.Modify, ctx: Context) -> None:
        if not ctx.allow_live:
            self.err(ctx, "E111", "'modify' is a continuous effect: it belongs at the top of an ongoing ability",
                     s.span)
        if s.stat not in self.voc.stats:
            self.unknown(ctx, "stat", s.stat, self.voc.stats, s.span)
        self.query(s.query, ctx, default_ok=True)
        self.expect(s.by, "int", ctx)
        from .emit import is_const

        # in a macro's body a parameter ('by -$n') is fixed at each call, where the call is checked
        if not is_const(s.by, self.voc) and not (ctx.macro_def and "$" in text_of(s.by)):
            self.err(ctx, "E102", "'modify ... by' takes a fixed number", s.by.span)

    def s_Prevent(self, s: A.Prevent, ctx: Context) -> None:
        if not ctx.allow_live:
            self.err(ctx, "E111", "'prevent' is a continuous effect: it belongs at the top of an ongoing ability",
                     s.span)
        for name in s.names:
            if s.scope == "you" and (name in self.voc.resources or name in self.voc.pieces or self.param(name, ctx)):
                continue
            if s.scope == "this" and (name in self.voc.pieces or self.param(name, ctx)):
                continue
            if s.scope == "this" and name in self.voc.resources:
                self.err(ctx, "E102", f"'{name}' is a counter, not a piece on a card: say 'from you'",
                         self.word(s.span, name))
                continue
            self.unknown(ctx, "piece or resource" if s.scope == "you" else "piece", name,
                         list(self.voc.pieces) + (list(self.voc.resources) if s.scope == "you" else []),
                         self.word(s.span, name))

    def s_ActivateTiming(self, s: A.ActivateTiming, ctx: Context) -> None:
        self.timing_name(s.timing, s.span, ctx)

    def s_OpenWindow(self, s: A.OpenWindow, ctx: Context) -> None:
        if s.name not in self.voc.windows and not self.param(s.name, ctx):
            self.unknown(ctx, "window", s.name, self.voc.windows, self.word(s.span, s.name))

    def s_AsSoonAs(self, s: A.AsSoonAs, ctx: Context) -> None:
        if not ctx.allow_live:
            self.err(ctx, "E111", "'as soon as' sets up a claim: it belongs at the top of an ongoing ability, or in "
                     "rules.yaml under 'as-soon-as'", s.span)
        inner = self._inner(ctx, allow_live=False, has_it=ctx.has_it or s.query is not None)
        if s.query is not None:
            self.query(s.query, ctx)
        self.expect(s.cond, "bool", inner)
        self.stmts(s.body, inner)

    def s_Activation(self, s: A.Activation, ctx: Context) -> None:
        self.timing_name(s.timing, s.span, ctx)
        if s.timing in self.voc.timings and self.voc.timings[s.timing].value["kind"] != "activated":
            self.err(ctx, "E103", f"'activate {s.timing} abilities' runs the activation order, which is for "
                     f"activated timings; '{s.timing}' is {self.voc.timings[s.timing].value['kind']}", s.span,
                     hint=f"say 'activate {s.timing} ability of CARD' to run one card's ability")
        self.stmts(s.body, self._inner(ctx))

    def s_ActivateCopy(self, s: A.ActivateCopy, ctx: Context) -> None:
        self.timing_name(s.timing, s.span, ctx)
        self.target(s.target, ctx)

    def s_Flip(self, s: A.Flip, ctx: Context) -> None:
        self.target(s.target, ctx)

    def s_Reveal(self, s: A.Reveal, ctx: Context) -> None:
        self.amount(s.amount, ctx)
        self.source(s.source, ctx)

    def s_ChooseX(self, s: A.ChooseX, ctx: Context) -> None:
        self.expect(s.low, "int", ctx)
        self.expect(s.high, "int", ctx)
        low, high = _literal(s.low), _literal(s.high)
        if low is not None and high is not None and low > high:
            self.err(ctx, "E151", f"'choose X from {low} to {high}' offers no number: {low} is above {high}",
                     s.span, hint=f"'choose X from {high} to {low}'; bounds that are not numbers may meet this "
                     "when the game runs, and then the rest of the group is skipped")

    def s_Move(self, s: A.Move, ctx: Context) -> None:
        self.amount(s.amount, ctx)
        self.source(s.source, ctx)
        self.dest(s.dest, ctx)

    def s_MoveCard(self, s: A.MoveCard, ctx: Context) -> None:
        self.cardref(s.card, ctx)
        self.dest(s.dest, ctx)

    def dest(self, d: A.Dest, ctx: Context) -> None:
        self.zone(d.zone, ctx, single=True)
        if d.cell is None:
            return
        entry = self.voc.zones.get(d.zone.name)
        kind = entry.value.get("kind") if entry is not None else None
        if kind is not None and kind not in ("grid", "hex"):
            self.err(ctx, "E102", f"'at row ... column ...' names a cell of a board; zone '{d.zone.name}' is a "
                     f"{kind}, not a grid or hex zone", d.cell.span,
                     hint="drop 'at row ... column ...', or move to a grid or hex zone")
        # The cell is worked out as each card moves, with that card as 'it'.
        inner = replace(ctx, has_it=True)
        self.expect(d.cell.row, "int", inner)
        self.expect(d.cell.column, "int", inner)

    def s_Place(self, s: A.Place, ctx: Context) -> None:
        self.amount(s.amount, ctx)
        if s.piece not in self.voc.pieces and not self.param(s.piece, ctx):
            self.unknown(ctx, "piece", s.piece, self.voc.pieces, self.word(s.span, s.piece))
        self.target(s.target, ctx)

    def s_Remove(self, s: A.Remove, ctx: Context) -> None:
        self.amount(s.amount, ctx)
        if s.piece not in self.voc.pieces and not self.param(s.piece, ctx):
            self.unknown(ctx, "piece", s.piece, self.voc.pieces, self.word(s.span, s.piece))
        self.target(s.target, ctx)

    def s_Costed(self, s: A.Costed, ctx: Context) -> None:
        if isinstance(s.cost, A.Reveal):
            # "reveal 1 from deck: ..." names the revealed card 'it' for what follows
            self.stmt(s.cost, ctx)
            self.stmts(s.body, self._inner(ctx, has_it=True))
            return
        self.cost(s.cost, ctx)
        self.stmts(s.body, self._inner(ctx))

    def s_If(self, s: A.If, ctx: Context) -> None:
        self.expect(s.cond, "bool", ctx)
        self.stmts(s.then, self._inner(ctx))
        self.stmts(s.otherwise, self._inner(ctx))

    def s_Scoped(self, s: A.Scoped, ctx: Context) -> None:
        ctx = self.players_scope(s.players, ctx)
        if s.players.kind in PLAYER_LOOPS:
            self.loop_after_statements(s, ctx)
        self.player_ref(s.players.ref, ctx)
        self.player_ref(s.players.start, ctx)
        if s.players.start is not None and s.players.start.kind == "automa":
            self.err(ctx, "E102", "player loops go round the players; an automa seat takes no turns, so a loop "
                     "cannot start with it", s.players.start.span)
        self.stmts(s.body, self._inner(ctx))

    def loop_after_statements(self, s: A.Scoped, ctx: Context) -> None:
        """'each player: A, each player: B' reads as two loops one after the other, but the first ':' governs the
        rest of the group, so B would run once per player of A's loop: refused, with both ways to write it."""
        for inner in s.body[1:]:
            if isinstance(inner, A.Scoped) and inner.players.kind in PLAYER_LOOPS:
                outer, loop = text_of(s.players), text_of(inner.players)
                self.err(ctx, "E150", f"'{loop}: ...' after other statements inside '{outer}: ...' would run once "
                         f"for every player of the outer loop (a ':' governs the rest of its group)", inner.span,
                         hint=f"one loop after the other: '({outer}: ...), {loop}: ...'; one inside the other: "
                         f"'{outer}: (..., {loop}: ...)'")

    def s_ForEach(self, s: A.ForEach, ctx: Context) -> None:
        self.query(s.query, ctx)
        inner = self._inner(ctx, has_it=True)
        if s.name is not None:
            self.local_name(s.name, s.span, ctx)
            inner = inner.bind(s.name, "card")
        self.stmts(s.body, inner)

    def s_Repeat(self, s: A.Repeat, ctx: Context) -> None:
        self.expect(s.value, "bool" if s.kind in ("until", "while") else "int", ctx)
        self.stmts(s.body, self._inner(ctx))

    def s_ChooseOne(self, s: A.ChooseOne, ctx: Context) -> None:
        for opt in s.options:
            self.stmts(opt, self._inner(ctx))

    def s_ChooseCard(self, s: A.ChooseCard, ctx: Context) -> None:
        self.query(s.query, ctx)
        inner = self._inner(ctx, has_it=True)
        if s.name is not None:
            self.local_name(s.name, s.span, ctx)
            inner = inner.bind(s.name, "card")
        self.stmts(s.body, inner)

    def s_Trigger(self, s: A.Trigger, ctx: Context) -> None:
        if not ctx.allow_live:
            self.err(ctx, "E111", "'when' sets up a trigger: it belongs at the top of an ongoing ability", s.span)
        from .pipeline import _base_verb  # the compiler's reading of a trigger's verb ('plays' is 'play')

        self.event_name(_base_verb(s.verb), self.word(s.span, s.verb), ctx)
        if isinstance(s.object, A.Query):
            self.query(s.object, ctx, default_ok=True)
        has_it = isinstance(s.object, A.Query)
        self.stmts(s.body, self._inner(ctx, has_it=has_it or ctx.has_it, allow_live=False))

    # ------------------------------------------------------------ pieces of statements
    def amount(self, a: A.Amount, ctx: Context) -> None:
        if a.value is not None:
            self.expect(a.value, "int", ctx)

    def per(self, p: A.Per, ctx: Context) -> None:
        if p.divisor <= 0:
            self.err(ctx, "E102", "'per' needs a positive number", p.span)
        if isinstance(p.of, A.Query):
            self.query(p.of, ctx)
        else:
            self.expect(p.of, "int", ctx)

    def counter_name(self, name: str, span: Span, ctx: Context) -> None:
        if name in self.voc.resources or name in self.voc.counters or self.param(name, ctx):
            return
        span = self.word(span, name)
        cands = list(self.voc.resources) + list(self.voc.counters) + list(self.voc.currencies)
        what = "resource"
        if name in self.voc.pieces:
            self.err(ctx, "E102", f"'{name}' is a piece that sits on cards; use 'place' or 'remove'", span)
            return
        if name in self.voc.currencies:
            self.err(ctx, "E122", f"'{name}' is a currency only payment sources pay: it has no counter to gain, "
                     "lose or set", span, hint=f"pay it: 'pay 1 {name}'")
            return
        self.unknown(ctx, what, name, cands, span)

    def timing_name(self, name: str, span: Span, ctx: Context) -> None:
        if name not in self.voc.timings and not self.param(name, ctx):
            self.unknown(ctx, "timing", name, self.voc.timings, self.word(span, name))

    def zone(self, z: A.ZoneRef | A.ZoneOf, ctx: Context, single: bool = False) -> None:
        if isinstance(z, A.ZoneRef) and z.player is not None and z.player.kind == "local":
            self.player_ref(z.player, ctx)
        if isinstance(z, A.ZoneOf):
            self.cardref(z.card, ctx)
            if single:
                self.err(ctx, "E102", "'the zone of a card' is for looking in ('card in the zone of it'); a move "
                         "names its zone", z.span)
            return
        entry = self.voc.zones.get(z.name)
        if entry is None:
            if not self.param(z.name, ctx):
                self.unknown(ctx, "zone", z.name, self.voc.zones, z.span)
            return
        self.player_ref(z.player, ctx)
        if single and z.player is not None and z.player.kind in ("others", "all"):
            self.err(ctx, "E102", f"cards move to or from one zone: name one player's {z.name}", z.span)
        if z.player is not None and entry.value.get("owner", "player") == "shared":
            self.err(ctx, "E102", f"zone '{z.name}' is shared; it has no owner to name", z.span)

    def source(self, src: A.Source, ctx: Context) -> None:
        self.zone(src.zone, ctx, single=True)
        for f in src.filters:
            self.filter(f, ctx)

    def query(self, q: A.Query, ctx: Context, default_ok: bool = True) -> None:
        for z in q.zones:
            self.zone(z, ctx)
        for f in q.filters:
            self.filter(f, ctx)
        if q.where is not None:
            self.expect(q.where, "bool", replace(ctx, has_it=True))

    def filter(self, f, ctx: Context) -> None:
        voc = self.voc
        if isinstance(f, A.MacroFilter):
            return self.macro_filter(f, ctx)
        if isinstance(f, A.TraitIs) and f.trait == "type":
            for v in f.values:
                if v not in voc.card_types:
                    self.unknown(ctx, "card type", v, voc.card_types, f.span)
            return
        if isinstance(f, A.TraitIs) and f.trait == "zone":
            for v in f.values:
                if v not in voc.zones:
                    self.unknown(ctx, "zone", v, voc.zones, f.span)
            return
        if isinstance(f, A.TraitIs) and (self.param(f.trait, ctx) or any(self.param(v, ctx) for v in f.values)):
            return
        if isinstance(f, A.TraitIs):
            if f.trait not in voc.traits:
                if f.trait in voc.stats or f.trait in voc.pieces:
                    self.err(ctx, "E102", f"'{f.trait}' is a number: compare it, e.g. '{f.trait} >= 2'", f.span)
                    return
                self.unknown(ctx, "card trait", f.trait, voc.traits, f.span)
                return
            allowed = voc.traits[f.trait].value
            for v in f.values:
                if v not in allowed:
                    self.err(ctx, "E101", f"'{v}' is not a value of trait '{f.trait}'", f.span,
                             hint=did_you_mean(v, allowed) or f"values: {', '.join(allowed)}")
        elif isinstance(f, A.Has | A.HasNo):
            n = f.name
            if self.param(n, ctx):
                return
            if n in self.broken_macros and not (n in voc.card_types or n in voc.flags or n in voc.pieces):
                self.silenced += 1  # a filter macro whose body did not parse: that error is the one to read
                return
            if not (n in voc.card_types or n in voc.flags or n in voc.pieces or n in voc.trait_values):
                cands = list(voc.card_types) + list(voc.flags) + list(voc.pieces) + list(voc.trait_values)
                self.unknown(ctx, "card type, flag, piece or trait value", n, cands, f.span)
            elif n in voc.trait_values and len(voc.trait_values[n]) > 1:
                self.err(ctx, "E102", f"'{n}' is a value of several traits ({', '.join(voc.trait_values[n])}); "
                         "name the trait", f.span)
        elif isinstance(f, A.HasAbility):
            self.timing_name(f.timing, f.span, ctx)
        elif isinstance(f, A.StatCmp):
            if f.stat not in voc.stats and f.stat not in voc.pieces:
                self.unknown(ctx, "stat", f.stat, list(voc.stats) + list(voc.pieces), f.span)
            self.expect(f.value, "int", ctx)
        elif isinstance(f, A.FilterNot):
            self.filter(f.inner, ctx)
        elif isinstance(f, A.NotThis) and not ctx.has_this:
            self.err(ctx, "E112", "'other than this' needs a card: it works in a card's ability", f.span)
        elif isinstance(f, A.NotCard):
            self.cardref(f.card, ctx)

    def target(self, t, ctx: Context) -> None:
        if isinstance(t, A.EachOf | A.AnyOf):
            self.query(t.query, ctx)
        else:
            self.cardref(t, ctx)

    def cardref(self, r, ctx: Context) -> None:
        if isinstance(r, A.LocalCard):
            kind = ctx.local(r.name)
            if kind == "player":
                self.err(ctx, "E102", f"'{r.name}' is a player, not a card", self.word(r.span, r.name),
                         hint=f"a player's cards: 'card in hand of the {r.name}'")
                return
            if kind is None:
                cards = [n for n, t in ctx.locals if t == "card"]
                self.err(ctx, "E101", f"no card is named '{r.name}' here", self.word(r.span, r.name),
                         hint=did_you_mean(r.name, cards) or "name a card first: 'choose a card in ZONE as NAME: "
                         "...', 'for each card in ZONE as NAME: ...' or 'let NAME = it'")
            elif kind != "card":
                self.err(ctx, "E102", f"'{r.name}' is a {'number' if kind == 'int' else 'condition'}, not a card: "
                         f"say '{r.name}' without 'the'", self.word(r.span, r.name))
            return
        if isinstance(r, A.It) and not ctx.has_it:
            self.err(ctx, "E112", "'it' refers to no card here: use it inside 'for each', 'choose a card', or a "
                     "trigger about a card", r.span)
        elif isinstance(r, A.This) and not ctx.has_this:
            self.err(ctx, "E112", "'this' refers to no card here: it works in a card's ability", r.span)

    # ------------------------------------------------------------ expressions
    def expect(self, e, want: str, ctx: Context) -> None:
        got = self.expr(e, ctx)
        if got is not None and got != want:
            words = {"int": "a number", "bool": "a condition", "card": "a card"}
            self.err(ctx, "E102", f"expected {words[want]} here, found {words[got]}", e.span,
                     hint="compare it, e.g. 'count(card in hand) >= 2'" if want == "bool" else None)

    def expr(self, e, ctx: Context) -> str | None:
        return getattr(self, f"e_{type(e).__name__}")(e, ctx)

    def e_Num(self, e, ctx):
        return "int"

    def e_Bool(self, e, ctx):
        return "bool"

    def e_VarX(self, e, ctx):
        return "int"

    def e_It(self, e, ctx):
        self.cardref(e, ctx)
        return "card"

    e_This = e_It

    def e_LocalCard(self, e, ctx):
        self.cardref(e, ctx)
        return "card"

    def e_Name(self, e: A.Name, ctx):
        voc = self.voc
        if e.name in voc.resources or e.name in voc.counters:
            return "int"
        if e.name in voc.player_flags or e.name in voc.filters:
            return self.flag_or_filter_name(e, ctx)
        kind = ctx.local(e.name)
        if kind is None and e.name in self.broken_macros:
            self.silenced += 1  # an expression macro whose body did not parse: that error is the one to read
            return None
        if kind in ("card", "player"):
            self.err(ctx, "E102", f"'{e.name}' names a {kind}: say 'the {e.name}' (a {kind} is not a number)", e.span)
            return None
        if kind is not None:
            return kind
        if e.name in voc.params:
            if isinstance(voc.params[e.name].value, list):
                self.err(ctx, "E102", f"'{e.name}' is a list: pick one number with nth({e.name}, ...)", e.span)
                return None
            return "int"
        if e.name in BUILTIN_NAMES or self.param(e.name, ctx):
            return "int"
        if e.name.startswith("$"):
            self.err(ctx, "E104", f"macro parameter '{e.name}' was not given a value", e.span)
            return None
        cands = list(voc.resources) + list(voc.counters) + list(voc.params) + [n for n, _ in ctx.locals]
        hint = did_you_mean(e.name, cands)
        if e.name in voc.stats:
            hint = f"'{e.name}' is a card stat: say '{e.name} of it' or '{e.name} of this'"
        self.err(ctx, "E101", f"unknown name '{e.name}'", e.span, hint=hint)
        return None

    def e_Attr(self, e: A.Attr, ctx):
        voc = self.voc
        if isinstance(e.ref, A.PlayerRef) or (isinstance(e.ref, A.LocalCard) and ctx.local(e.ref.name) == "player"):
            return self.player_attr(e, ctx)
        self.cardref(e.ref, ctx)
        if e.name in voc.stats or e.name in voc.pieces or e.name in CARD_PLACES:
            return "int"
        if e.name in voc.timings and voc.timings[e.name].value["kind"] == "condition":
            return "bool"
        if e.name in voc.timings and voc.timings[e.name].value["kind"] == "value":
            return "int"
        if e.name == "requires":
            return "bool"
        conditions = [t for t, v in voc.timings.items() if v.value["kind"] in ("condition", "value")]
        cands = list(voc.stats) + list(voc.pieces) + conditions
        self.unknown(ctx, "card stat", e.name, cands, e.span)
        return None

    def e_Pieces(self, e: A.Pieces, ctx):
        self.cardref(e.ref, ctx)
        if e.piece not in self.voc.pieces:
            self.unknown(ctx, "piece", e.piece, self.voc.pieces, e.span)
        return "int"

    def e_Count(self, e: A.Count, ctx):
        self.query(e.query, ctx)
        return "int"

    def e_CountPlayers(self, e: A.CountPlayers, ctx):
        self.player_filters(e.filters, ctx)
        return "int"

    def e_SumOf(self, e: A.SumOf, ctx):
        if e.name not in self.voc.stats and e.name not in self.voc.pieces:
            self.unknown(ctx, "stat or piece", e.name, list(self.voc.stats) + list(self.voc.pieces), e.span)
        self.query(e.query, ctx)
        return "int"

    def e_Func(self, e: A.Func, ctx):
        lo, hi = FUNCS[e.name]
        if not lo <= len(e.args) <= hi:
            self.err(ctx, "E104", f"{e.name}() takes {lo}{'' if lo == hi else f' to {hi}'} arguments, "
                     f"not {len(e.args)}", e.span)
            return "int"
        if e.name == "sets":
            if not isinstance(e.args[0], A.Query):
                self.err(ctx, "E102", "sets() takes a set of cards first, e.g. sets(card in orchard, fruit apple, "
                         "fruit pear)", e.span)
            else:
                self.query(e.args[0], ctx)
            for a in e.args[1:]:
                f = a if isinstance(a, A.TraitIs) else (A.Has(a.name, span=a.span) if isinstance(a, A.Name) else None)
                if f is None:
                    self.err(ctx, "E102", "each set slot is a card property, e.g. 'fruit apple'", a.span)
                else:
                    self.filter(f, ctx)
            return "int"
        if e.name in ("path", "neighbours"):
            if not isinstance(e.args[0], A.Query):
                self.err(ctx, "E102", f"{e.name}() takes a set of cards in a grid first", e.span)
            else:
                self.query(e.args[0], ctx)
                self._grid_query(e.args[0], ctx, e.name)
            self.expect(e.args[1], "card", ctx)
            return "int"
        if e.name in ("rows", "columns"):
            if not isinstance(e.args[0], A.Query):
                self.err(ctx, "E102", f"{e.name}() takes a set of cards in a grid", e.span)
            else:
                self.query(e.args[0], ctx)
                self._grid_query(e.args[0], ctx, e.name)
            return "int"
        if e.name == "distinct":
            if not isinstance(e.args[0], A.Query):
                self.err(ctx, "E102", "distinct() counts the different cards of a set, e.g. distinct(card in shed)",
                         e.span)
            else:
                self.query(e.args[0], ctx)
            return "int"
        if e.name == "occurrences":
            # a set of cards, or one card (it, this): a card may list a value twice (two science tags)
            one_card = isinstance(e.args[0], A.It | A.This | A.LocalCard | A.Param)
            if not (isinstance(e.args[0], A.Query) or one_card) or not isinstance(e.args[1], A.TraitIs):
                self.err(ctx, "E102", "occurrences() takes a set of cards (or one card: it, this) and a trait "
                         "value, e.g. occurrences(card in orchard, fruit apple)", e.span)
            else:
                if one_card:
                    self.expect(e.args[0], "card", ctx)
                else:
                    self.query(e.args[0], ctx)
                self.filter(e.args[1], ctx)
            return "int"
        if e.name in ("highest", "lowest"):  # the greatest (least) value among the players
            self.expect(e.args[0], "int", ctx)
            return "int"
        if e.name == "nth":
            lst = e.args[0]
            if not (isinstance(lst, A.Name) and isinstance(self.voc.params.get(lst.name, None) and
                                                           self.voc.params[lst.name].value, list)):
                self.err(ctx, "E102", "nth() takes a list param from rules.yaml first", lst.span)
            self.expect(e.args[1], "int", ctx)
            return "int"
        for a in e.args:
            self.expect(a, "int", ctx)
        return "int"

    def _grid_query(self, q: A.Query, ctx, fn: str) -> None:
        if len(q.zones) != 1 or isinstance(q.zones[0], A.ZoneOf) or self.voc.zones.get(q.zones[0].name) is None:
            self.err(ctx, "E102", f"{fn}() works on exactly one grid zone", q.span)
            return
        kind = self.voc.zones[q.zones[0].name].value["kind"]
        if kind not in ("grid", "hex") or (fn == "columns" and kind == "hex"):
            self.err(ctx, "E102", f"{fn}() needs a {'grid' if fn == 'columns' else 'grid or hex'} zone; "
                     f"'{q.zones[0].name}' is a {kind}", q.span)

    def e_Can(self, e: A.Can, ctx):
        st = e.stmt
        if isinstance(st, A.ActivateCopy) and not isinstance(st.target, A.It | A.This | A.LocalCard | A.Param):
            self.err(ctx, "E102", "'can activate' asks about one card: 'can activate TIMING ability of it' (or "
                     "this, the NAME)", st.span)
        self.stmt(st, self._inner(ctx, allow_live=False))
        return "bool"

    def e_CardIs(self, e: A.CardIs, ctx):
        self.cardref(e.ref, ctx)
        self.filter(e.filter, ctx)
        return "bool"

    def e_BinOp(self, e: A.BinOp, ctx):
        if e.op in ("and", "or"):
            self.expect(e.left, "bool", ctx)
            self.expect(e.right, "bool", ctx)
            return "bool"
        self.expect(e.left, "int", ctx)
        self.expect(e.right, "int", ctx)
        return "int" if e.op in "+-*/%" else "bool"

    def e_Not(self, e: A.Not, ctx):
        self.expect(e.operand, "bool", ctx)
        return "bool"

    def e_Neg(self, e: A.Neg, ctx):
        self.expect(e.operand, "int", ctx)
        return "int"

    def e_Cond(self, e: A.Cond, ctx):
        self.expect(e.cond, "bool", ctx)
        a, b = self.expr(e.then, ctx), self.expr(e.otherwise, ctx)
        if a is not None and b is not None and a != b:
            words = {"int": "a number", "bool": "a condition", "card": "a card"}
            self.err(ctx, "E102", f"both branches must give the same kind of value: {words[a]} after 'then', "
                     f"{words[b]} after 'else'", e.span)
        return a or b

    def e_Query(self, e: A.Query, ctx):
        self.err(ctx, "E102", "a set of cards cannot stand here; count it with count(...)", e.span)
        return None

    def e_TraitIs(self, e: A.TraitIs, ctx):
        self.err(ctx, "E102", "a card property cannot stand here", e.span)
        return None


def _literal(e) -> int | None:
    """The value of a number written out (2, -1), or None."""
    if isinstance(e, A.Num):
        return e.value
    if isinstance(e, A.Neg) and isinstance(e.operand, A.Num):
        return -e.operand.value
    return None


def _find_word(line: str, word: str, start: int) -> int:
    """Index of `word` as a whole word in `line` at or after `start`, or -1."""
    import re

    m = re.compile(r"(?<![\w$-])" + re.escape(word) + r"(?![\w-])").search(line, start)
    return m.start() if m else -1


