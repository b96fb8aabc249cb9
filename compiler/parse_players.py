"""Parse-tree to AST for players as values, rankings, whole zones and name lists (Language 2, part 2): a mixin
of the transformer in parse.py (which gives it `_s`, the span of a node's text)."""

from __future__ import annotations

from lark import v_args

from . import ast as A
from .diagnostics import Span


class _Step:
    def __init__(self, name: str) -> None:
        self.name = name


class _OtherYou:
    pass


class _PlayerFilters:
    def __init__(self, filters: tuple) -> None:
        self.filters = filters


class _Ties:
    def __init__(self, mode: str, span: Span) -> None:
        self.mode = mode
        self.span = span


class _AsName:
    def __init__(self, name: str) -> None:
        self.name = name


class PlayersToAst:
    """Transformer methods for the part-2 constructs (see the module)."""

    def score_step(self, items):
        return _Step(str(items[0]))

    @v_args(meta=True)
    def pass_zones(self, meta, items):
        return A.PassZones(str(items[0]), items[1].kind, span=self._s(meta))

    @v_args(meta=True)
    def swap(self, meta, items):
        return A.Swap(items[0], items[1], span=self._s(meta))

    # --- players as values, rankings

    @v_args(meta=True)
    def mark_player(self, meta, items):
        return A.Mark(items[0], str(items[1]), True, span=self._s(meta))

    @v_args(meta=True)
    def unmark_player(self, meta, items):
        return A.Mark(items[0], str(items[1]), False, span=self._s(meta))

    def other_you(self, _):
        return _OtherYou()

    def player_filters(self, items):
        return _PlayerFilters(tuple(items))

    @v_args(meta=True)
    def p_has(self, meta, items):
        return A.PlayerFlag(str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def p_has_no(self, meta, items):
        return A.PlayerNoFlag(str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def p_not(self, meta, items):
        return A.PlayerNot(items[0], span=self._s(meta))

    @v_args(meta=True)
    def p_cmp(self, meta, items):
        return A.PlayerCmp(str(items[0]), str(items[1]), items[2], span=self._s(meta))

    @staticmethod
    def _pick(items) -> tuple[bool, tuple, str | None, list]:
        """(other than you, filters, 'as NAME', the rest) of a choice of a player."""
        other = any(isinstance(i, _OtherYou) for i in items)
        filters = next((i.filters for i in items if isinstance(i, _PlayerFilters)), ())
        name = next((i.name for i in items if isinstance(i, _AsName)), None)
        rest = [i for i in items if not isinstance(i, _OtherYou | _PlayerFilters | _AsName)]
        return other, filters, name, rest

    @v_args(meta=True)
    def count_players(self, meta, items):
        other, filters, _, _ = self._pick(items)
        return A.CountPlayers(other, filters, span=self._s(meta))

    @v_args(meta=True)
    def choose_player(self, meta, items):
        other, filters, name, rest = self._pick(items)
        return A.ChoosePlayer(name or "", tuple(rest), other, filters, span=self._s(meta))

    @v_args(meta=True)
    def each_at_once(self, meta, items):
        return A.Players("at_once", None, items[0] if items else None, span=self._s(meta))

    @v_args(meta=True)
    def named_player(self, meta, items):
        return A.Players("named", None, None, name=str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def named_chooser(self, meta, items):
        return A.Players("named", None, None, name=str(items[0]), chooses=True, span=self._s(meta))

    @v_args(meta=True)
    def named_owner(self, meta, items):
        return A.PlayerRef("local", str(items[0]), span=self._s(meta))

    @v_args(meta=True)
    def rank(self, meta, items):
        place = items[0] if len(items) == 2 else 1
        return A.Rank(place, items[-1] == "fewest", span=self._s(meta))

    def second(self, _):
        return 2

    def third(self, _):
        return 3

    def most(self, _):
        return "most"

    def fewest(self, _):
        return "fewest"

    @v_args(meta=True)
    def ties(self, meta, items):
        return _Ties(str(items[0]), self._s(meta))

    @staticmethod
    def _ranked(rank: A.Rank, rest: list) -> tuple[A.Rank, list]:
        if rest and isinstance(rest[0], _Ties):
            t = rest.pop(0)
            rank = A.Rank(rank.place, rank.fewest, t.mode, span=t.span)
        return rank, rest

    @v_args(meta=True)
    def for_ranked(self, meta, items):
        rank, measure, *rest = items
        rank, rest = self._ranked(rank, rest)
        return A.ForRanked(rank, measure, tuple(rest), span=self._s(meta))

    @v_args(meta=True)
    def has_rank(self, meta, items):
        rank, measure, *rest = items
        rank, _ = self._ranked(rank, rest)
        return A.HasRank(rank, measure, span=self._s(meta))

    @v_args(meta=True)
    def words(self, meta, items):
        names = (*items[0].value, str(items[1])) if isinstance(items[0], A.CallArg) else tuple(str(i) for i in items)
        return A.CallArg("words", names, span=self._s(meta))

    @v_args(meta=True)
    def let_player(self, meta, items):
        return A.Let(str(items[0]), A.PlayerRef("you", span=self._s(meta)), span=self._s(meta))
