"""Planning the text of players as values, rankings, choices made at once and swapped zones (Language 2, part 2).

A mixin of the planner (text_plan.py): each method returns the phrase or clause of one construct, in the keys
the language files (present/lang/) give templates for.

Decided here, once for every language: a chosen player is 'another player' when the chooser is left out, and
what the player must be follows as a relative clause ('who is not veiled', 'who has 2 coins or more'); a scope
of a named player says who makes its choices when that is not the player ('(you choose)'); a ranking measured
by a count says the cards ('the most silk cards in their stall'), a counter its name ('the most coins'), any
other value 'the highest ...'; a tie's way is said after it ('tied players split it').
"""

from __future__ import annotations

from cardsmith.compiler import ast as A

from .text_ir import Body, Clause, P, Phrase, Word

_ORDINAL = {1: "", 2: ".second", 3: ".third"}


class PlayerPhrases:
    """Methods of the planner for the constructs of players, rankings and whole zones (see the module)."""

    # ---------------------------------------------------------------- choosing and naming players
    def player_pick(self, other: bool, filters: tuple, choose: bool = False) -> Phrase:
        """'a player of your choice', 'another player of your choice who is not veiled and has 2 coins or more'
        ('another player who ...' after 'choose')."""
        return P("player-pick" + (".other" if other else "") + (".choose" if choose else ""),
                 conditions=self.player_conditions(filters))

    def player_conditions(self, filters: tuple, plural: bool = False) -> Phrase | None:
        """' who is not veiled and has 2 coins or more' (' who are ...', ' who have ...' of several players)."""
        items = [self.player_condition(f) for f in filters]
        if plural:
            items = [P(x.key + ".plural", **x.slots) for x in items]
        return P("player-conditions", items=items) if filters else None

    def e_CountPlayers(self, e: A.CountPlayers) -> Phrase:
        """'the number of players who have passed' (players only, as 'each player')."""
        return P("count-players" + (".other" if e.other else ""), conditions=self.player_conditions(e.filters, True))

    def player_condition(self, f, negated: bool = False) -> Phrase:
        if isinstance(f, A.PlayerNot):
            return self.player_condition(f.inner, not negated)
        if isinstance(f, A.PlayerCmp):
            op = f.op if not negated else {">=": "<", "<=": ">", ">": "<=", "<": ">=", "=": "!=", "!=": "="}[f.op]
            return P("player-has", what=Word(f.name, plural=True), compare=self.compare_phrase(op, f.value))
        has = isinstance(f, A.PlayerFlag) != negated
        if f.name in self.lex.voc.player_flags:
            return P("player-is" if has else "player-is-not", flag=Word(f.name))
        return P("player-has-some" if has else "player-has-none", what=Word(f.name, plural=True))

    def e_PlayerRef(self, e: A.PlayerRef) -> Phrase:
        """A player as a value ('let jumped = you')."""
        return self.player(e)

    def named_player(self, name: str) -> Phrase:
        return P("player.local", name=Word(name, "local:player"))

    def s_ChoosePlayer(self, s: A.ChoosePlayer) -> Clause:
        return self.clause(P("choose-player", who=self.player_pick(s.other, s.filters, choose=True),
                             named=P("as-name", name=Word(s.name, "local:player")), body=self.body(s.body)), False)

    def scoped_players(self, s: A.Scoped) -> Clause:
        """A scope over a chosen player, a named one, or every player at once."""
        p = s.players
        inner = self.clauses(s.body)
        simple = ".simple" if all(c.joins for c in inner) else ""
        if p.kind == "at_once":
            start = P("starting-with", player=self.player(p.start)) if p.start is not None else None
            return self.clause(P("scoped.at-once", start=start, body=Body(inner)), False)
        if p.kind == "named":
            # a named player is acted upon: their choices are the chooser's, unless the text says they choose
            chooser = "" if p.chooses or not self.has_choice(s.body) else ".you-choose"
            return self.clause(P("scoped.named" + simple + chooser, who=self.named_player(p.name or ""),
                                 body=Body(inner)), False)
        return self.clause(P("scoped.chosen" + simple + (".you-choose" if self.has_choice(s.body) else ""),
                             who=self.player_pick(p.other, p.filters), body=Body(inner)), False)

    def has_choice(self, body) -> bool:
        """Whether statements ask a player something (so it matters who answers)."""
        for s in body if isinstance(body, tuple) else (body,):
            if isinstance(s, A.ChooseCard | A.ChooseOne | A.ChooseX | A.May | A.ChoosePlayer | A.InAnyOrder
                          | A.OpenWindow | A.Activation):
                return True
            if isinstance(s, A.Move) and (s.amount.kind == "up_to" or s.source.filters
                                          or self.chosen_from(s.source.zone.name)):
                return True
            if isinstance(s, A.Place | A.Remove) and (isinstance(s.target, A.AnyOf) or s.amount.kind == "up_to"):
                return True
            if isinstance(s, A.Gain | A.Lose | A.Score) and s.amount.kind == "up_to":
                return True
            for name in ("body", "then", "otherwise", "parts"):
                inner = getattr(s, name, None)
                if isinstance(inner, tuple) and self.has_choice(inner):
                    return True
            if isinstance(s, A.Costed) and self.has_choice((s.cost,)):
                return True
        return False

    def chosen_from(self, zone: str) -> bool:
        """Whether a card taken from the zone is the player's choice (anything but a pile's top)."""
        entry = self.lex.voc.zones.get(zone)
        return entry is not None and entry.value.get("kind") != "pile"

    def mark_player(self, s: A.Mark) -> Clause:
        who = self.named_player(s.target.name) if isinstance(s.target, A.LocalCard) else self.player(s.target)
        you = isinstance(s.target, A.PlayerRef) and s.target.kind == "you"
        return self.clause(P(f"{'mark' if s.on else 'unmark'}-player" + (".you" if you else ""), player=who,
                             flag=Word(s.flag)))

    # ---------------------------------------------------------------- rankings
    def ranked(self, rank: A.Rank, measure) -> Phrase:
        """'the most silk cards in your stall', 'the second highest TR', 'the fewest coins'."""
        way = "fewest" if rank.fewest else "most"
        place = _ORDINAL.get(rank.place, ".nth")
        if isinstance(measure, A.Count):
            return P(f"rank.{way}.count{place}", n=str(rank.place), cards=self.query(measure.query))
        if isinstance(measure, A.Name) and (self.lex.is_resource(measure.name) or self.lex.is_counter(measure.name)):
            return P(f"rank.{way}.name{place}", n=str(rank.place), name=Word(measure.name, plural=True))
        if isinstance(measure, A.Attr) and not isinstance(measure.ref, A.PlayerRef) \
                and self.lex.timing_kind(measure.name) == "value":  # a card's value ability: 'measure for it'
            measure_phrase = P("value-of-card", timing=Word(measure.name), card=self.card_ref(measure.ref))
            return P(f"rank.{way}.value{place}", n=str(rank.place), value=measure_phrase)
        return P(f"rank.{way}.value{place}", n=str(rank.place), value=self.value(measure))

    def ties(self, rank: A.Rank) -> Phrase | None:
        return P(f"ties.{rank.ties}") if rank.ties and rank.ties != "share" else None

    def s_ForRanked(self, s: A.ForRanked) -> Clause:
        inner = self.clauses(s.body)
        simple = ".simple" if all(c.joins for c in inner) else ""
        return self.clause(P("for-ranked" + simple, rank=self.ranked(s.rank, s.measure), ties=self.ties(s.rank),
                             body=Body(inner)), False)

    def e_HasRank(self, e: A.HasRank) -> Phrase:
        return P("has-rank", rank=self.ranked(e.rank, e.measure), ties=self.ties(e.rank))

    def f_highest(self, args) -> Phrase:
        return self.best("highest", args[0])

    def f_lowest(self, args) -> Phrase:
        return self.best("lowest", args[0])

    def best(self, which: str, e) -> Phrase:
        """'the most coins a player has', else 'the highest VALUE among the players'."""
        if isinstance(e, A.Name) and (self.lex.is_resource(e.name)):
            return P(f"func.{which}.name", name=Word(e.name, plural=True))
        return P(f"func.{which}", value=self.value(e))

    # ---------------------------------------------------------------- whole zones
    def s_Swap(self, s: A.Swap) -> Clause:
        return self.clause(P("swap", first=self.zone(s.first), second=self.zone(s.second)))


__all__ = ["PlayerPhrases"]
