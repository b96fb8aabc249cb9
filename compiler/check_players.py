"""The checks of players as values, rankings and whole zones (Language 2, part 2): a mixin of the checker
(check.py), which gives it `err`, `word`, `unknown`, `expect`, `stmts`, `local_name`, `player_ref` and the rest.

A player is named ('choose a player ... as NAME', 'let NAME = you') and used where a player goes ('the NAME:',
'hand of the NAME'); what a chosen player must be is a player flag or a counter of the candidate; a ranking's
tie mode is one the VM knows, 'split' only where a reward is given, and a ranking scope never in a scoring
step (which counts every player in turn). Whole zones move in their order: never a board, and 'pass every'
only a zone each player has.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from . import ast as A
from .diagnostics import Span, did_you_mean
from .unparse import text as text_of

if TYPE_CHECKING:
    from .check import Context

TIE_MODES = ("share", "split", "none", "friendly")  # what a tie for a place of a ranking does
_KIND_WORDS = {"int": "number", "bool": "condition", "card": "card", "player": "player"}


class PlayerChecks:
    """Checker methods for players as values, rankings and whole zones (see the module)."""

    def s_PassZones(self, s: A.PassZones, ctx: Context) -> None:
        entry = self.voc.zones.get(s.zone)
        if entry is None:
            if not self.param(s.zone, ctx):
                self.unknown(ctx, "zone", s.zone, self.voc.zones, self.word(s.span, s.zone))
            return
        self.whole_zone(s.zone, s.span, ctx, "pass every")

    def s_Swap(self, s: A.Swap, ctx: Context) -> None:
        for z in (s.first, s.second):
            self.zone(z, ctx, single=True)
            if z.name in self.voc.zones:
                self.whole_zone(z.name, z.span, ctx, "swap", owned=False)
        if s.first == s.second:
            self.err(ctx, "E143", f"'swap {text_of(s.first)} and {text_of(s.second)}' swaps a zone with itself",
                     s.span, hint="name two zones, or one zone of two players ('hand and hand of the rival')")

    def whole_zone(self, name: str, span: Span, ctx: Context, verb: str, owned: bool = True) -> None:
        """A zone whose cards move all at once: not a board (its cells would not fit the other's), and for
        'pass every', a zone each player has."""
        z = self.voc.zones[name].value
        if z.get("kind") in ("grid", "hex"):
            self.err(ctx, "E143", f"'{verb}' moves a zone's cards in their order; '{name}' is a board ({z['kind']})",
                     self.word(span, name), hint="move the cards one at a time with 'for each card in ...'")
        elif owned and z.get("owner", "player") == "shared":
            self.err(ctx, "E143", f"'{verb}' gives each player's zone to a neighbour; '{name}' is shared",
                     self.word(span, name), hint="name a zone each player has (owner: player)")

    def s_ChoosePlayer(self, s: A.ChoosePlayer, ctx: Context) -> None:
        self.player_filters(s.filters, ctx)
        self.local_name(s.name, s.span, ctx)
        self.stmts(s.body, self._inner(ctx).bind(s.name, "player"))

    def player_filters(self, filters: tuple, ctx: Context) -> None:
        """What a chosen player must be: a player flag set (or not), at least 1 of a counter, a counter compared."""
        voc = self.voc
        for f in filters:
            while isinstance(f, A.PlayerNot):
                f = f.inner
            if self.param(f.name, ctx):
                continue
            if isinstance(f, A.PlayerCmp):
                if f.name in voc.player_flags:
                    self.err(ctx, "E102", f"'{f.name}' is a yes/no mark: say 'with {f.name}' or 'with no {f.name}'",
                             self.word(f.span, f.name))
                elif f.name not in voc.resources:
                    self.unknown(ctx, "resource", f.name, voc.resources, self.word(f.span, f.name))
                self.expect(f.value, "int", ctx)
                continue
            if f.name in voc.player_flags or f.name in voc.resources:
                continue
            if f.name in voc.flags or f.name in voc.card_types or f.name in voc.pieces:
                self.err(ctx, "E102", f"'{f.name}' is about cards; a player filter reads a player flag or a counter",
                         self.word(f.span, f.name), hint="declare player flags in rules.yaml's player-flags")
                continue
            self.unknown(ctx, "player flag or resource", f.name, [*voc.player_flags, *voc.resources],
                         self.word(f.span, f.name))

    def local_player(self, name: str, span: Span, ctx: Context) -> None:
        """'the NAME' where a player goes: a name bound by 'choose a player ... as NAME'."""
        kind = ctx.local(name)
        if kind == "player" or self.param(name, ctx):
            return
        if kind is None:
            players = [n for n, t in ctx.locals if t == "player"]
            self.err(ctx, "E101", f"no player is named '{name}' here", self.word(span, name),
                     hint=did_you_mean(name, players) or "name a player first: 'choose a player ... as NAME: ...'")
        else:
            self.err(ctx, "E102", f"'{name}' is a {_KIND_WORDS[kind]}, not a player", self.word(span, name))

    def s_ForRanked(self, s: A.ForRanked, ctx: Context) -> None:
        if ctx.scoring and not ctx.macro_def:
            self.err(ctx, "E144", "'for the players with ...' in a scoring step runs again for every player that "
                     "step counts, so the places would score several times", s.span,
                     hint="ask about the player being scored: 'if you have the most ...: score N'")
        self.rank(s.rank, ctx, scope=True)
        self.expect(s.measure, "int", ctx)
        self.stmts(s.body, self._inner(ctx))

    def rank(self, r: A.Rank, ctx: Context, scope: bool) -> None:
        if r.ties is None or self.param(r.ties, ctx):
            return
        if r.ties not in TIE_MODES:
            self.err(ctx, "E144", f"unknown way to break a tie '{r.ties}'", self.word(r.span, r.ties),
                     hint=did_you_mean(r.ties, TIE_MODES) or f"ties {', '.join(TIE_MODES)}")
        elif r.ties == "split" and not scope:
            self.err(ctx, "E144", "'ties split' divides a reward among the tied players, and a condition gives none",
                     r.span, hint="divide it where it is given: 'for the players with the most ... (ties split): "
                     "score N'")

    def e_HasRank(self, e: A.HasRank, ctx):
        self.rank(e.rank, ctx, scope=False)
        self.expect(e.measure, "int", ctx)
        return "bool"
    def s_Score(self, s: A.Score, ctx: Context) -> None:
        voc = self.voc
        if s.step is not None and not self.param(s.step, ctx):
            step = voc.scoring.get(s.step)
            if step is None:
                self.unknown(ctx, "scoring step", s.step, voc.scoring, self.word(s.span, s.step))
            elif not ctx.scoring and not step.value.get("during-play"):
                self.err(ctx, "E140", f"scoring step '{s.step}' counts only at the end of the game, so no points go "
                         "to it during play", self.word(s.span, s.step),
                         hint=f"declare the step with 'during-play: true' in rules.yaml, or score for one that has "
                         f"it{': ' + ', '.join(voc.during_play()) if voc.during_play() else ''}")
        elif not ctx.scoring and not voc.during_play():
            self.err(ctx, "E110", "'score' only counts at the end of the game: use it in a scoring step or an "
                     "end-game ability", s.span,
                     hint="to score during play (each round, a goal reached), declare a scoring step with "
                     "'during-play: true' in rules.yaml")
        self.amount(s.amount, ctx)
        if s.per:
            self.per(s.per, ctx)

    def s_Mark(self, s: A.Mark, ctx: Context) -> None:
        voc = self.voc
        player = isinstance(s.target, A.PlayerRef) or (isinstance(s.target, A.LocalCard)
                                                        and ctx.local(s.target.name) == "player")
        if player:
            if isinstance(s.target, A.PlayerRef):
                self.player_ref(s.target, ctx)
            if s.flag in voc.player_flags or self.param(s.flag, ctx):
                return
            if s.flag in voc.flags:
                self.err(ctx, "E102", f"'{s.flag}' marks cards, not players", self.word(s.span, s.flag),
                         hint="declare it in rules.yaml's player-flags to mark players with it")
                return
            self.unknown(ctx, "player flag", s.flag, voc.player_flags, self.word(s.span, s.flag))
            return
        self.target(s.target, ctx)
        if s.flag in voc.player_flags and s.flag not in voc.flags:
            self.err(ctx, "E102", f"'{s.flag}' marks players, not cards", self.word(s.span, s.flag),
                     hint=f"mark a player: '{'mark' if s.on else 'unmark'} you {s.flag}'")
            return
        if s.flag not in voc.flags and not self.param(s.flag, ctx):
            self.unknown(ctx, "flag", s.flag, voc.flags, self.word(s.span, s.flag))

    def e_MacroValue(self, e: A.MacroValue, ctx):
        inner = ctx if ctx.call_span is not None else replace(ctx, macro=e.name, call_span=e.span)
        return self.expr(e.value, inner)

    def players_scope(self, p: A.Players, ctx: Context) -> Context:
        """The context of a player scope: inside 'each player at once' (never another one), or over a named
        player (who must be bound); a chosen player's filters."""
        if p.kind == "at_once":
            if ctx.at_once:
                self.err(ctx, "E142", "'each player at once' inside another: the players already choose unseen",
                         p.span, hint="drop the inner 'at once'")
            ctx = replace(ctx, at_once=True)
        elif p.kind == "named":
            self.local_player(p.name or "", p.span, ctx)
        self.player_filters(p.filters, ctx)
        return ctx

    def player_attr(self, e: A.Attr, ctx: Context) -> str | None:
        """'NAME of P' (P a player word or a named player): a counter, or a player flag."""
        voc = self.voc
        if isinstance(e.ref, A.PlayerRef):
            self.player_ref(e.ref, ctx)
        if e.name in voc.resources:
            return "int"
        if e.name in voc.player_flags:
            return "bool"
        self.unknown(ctx, "resource or player flag", e.name, [*voc.resources, *voc.player_flags], e.span)
        return None

    def flag_or_filter_name(self, e: A.Name, ctx: Context) -> str | None:
        """A bare name that is a player flag (a condition: the current player's) or a filter macro (misplaced)."""
        if e.name in self.voc.player_flags:
            return "bool"
        self.err(ctx, "E147", f"'{e.name}' is a filter macro: it stands after 'with', not where a value goes",
                 e.span, hint=f"e.g. 'count(card with {e.name})'")
        return None

    def macro_filter(self, f: A.MacroFilter, ctx: Context) -> None:
        """A filter macro's filters, checked where it is used (a mistake is reported at the use)."""
        inner = ctx if ctx.call_span is not None else replace(ctx, macro=f.name, call_span=f.span)
        for g in f.filters:
            self.filter(g, inner)

    def player_value(self, value, ctx: Context) -> str:
        """'let NAME = you' (or a player already named): the name holds a player."""
        if isinstance(value, A.PlayerRef):
            self.player_ref(value, ctx)
        return "player"
