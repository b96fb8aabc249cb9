"""How good a game position is for each seat, for agents that look ahead: generic, read from the rules.

`score_now` runs the rules' scoring steps as if the game ended here (every seat, step by step, as
the real end does), on a copy unless the caller's game is a throwaway; `worth` adds what the pack
declares points still to come are worth (rules.yaml statistics.worth: production that pays later,
cards in hand), since a judge that counts only points scored prefers a point now to an engine.
`margins` gives each seat's lead in points over the best other seat (a finished game adds WIN for
its winners); `values` squashes a lead into [0, 1] (the win share at the end of a game, ties
sharing; the declared worth left out on request) so that a lead of a few points matters and a lead
of a hundred does not swamp everything else. Nothing here knows a game.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .state import scored_seats
from .vm import VM

if TYPE_CHECKING:
    from .game import Game


def score_now(game: Game, in_place: bool = False) -> list[int]:
    """Each seat's total if the game were scored now. A game already scored keeps its scores. With
    `in_place` the game's own state takes the scoring (for a copy about to be thrown away)."""
    if game.phase == "done":
        return game.totals()
    st = game.state if in_place else game.state.fork()  # scoring changes only what it scores
    vm = VM(game.pack, st, game.vm.linker, None)
    for step in game.pack.scoring:
        lc = vm.linker.link(step["code"])
        for seat in scored_seats(step, st):
            vm.eval_sync(lc, seat, step=step["id"])
    return [sum(s.values()) for s in st.scores]


def worth(game: Game, scores: list[int]) -> list[float]:
    """The scores plus what the pack declares points not yet scored are worth (rules.yaml statistics.worth):
    per unit of a player's counter, per card in one of the player's zones."""
    declared = game.pack.statistics.get("worth")
    if not declared:
        return scores
    st = game.state
    out = []
    for seat, score in enumerate(scores):
        counters = st.counters[seat]
        extra = 0.0
        for name, w in declared.items():
            zone = st.zones.get((name, seat))
            extra += w * (counters.get(name, 0) if zone is None else sum(1 for c in zone if c is not None))
        out.append(score + extra)
    return out


def margin_value(scores: list[float], seat: int) -> float:
    """A score lead squashed into (0, 1): 0.5 level with the best other seat, towards 1 ahead."""
    others = [s for i, s in enumerate(scores) if i != seat]
    if not others:
        return 0.5 + 0.5 * math.tanh(scores[seat] / 50)
    best = max(others)
    scale = 5 + 0.1 * (abs(scores[seat]) + abs(best)) / 2  # a lead counts relative to the scores' size
    return 0.5 + 0.5 * math.tanh((scores[seat] - best) / scale)


WIN = 1000.0  # what winning adds to a finished game's margin: more than any lead in points


def margins(game: Game, in_place: bool = False) -> list[float]:
    """Per seat, its lead in points over the best other seat (negative behind): by the rules' scoring counted
    now plus the declared worth, or, when the game is over, by its final score plus WIN times its win share."""
    if game.phase == "done":
        r = game.result()
        share = 1 / len(r.winners) if r.winners else 0.0
        scores = [t + (WIN * share if s in r.winners else 0.0) for s, t in enumerate(r.totals)]
    else:
        scores = worth(game, score_now(game, in_place))
    out = []
    for seat, mine in enumerate(scores):
        others = [x for i, x in enumerate(scores) if i != seat]
        out.append(mine - max(others) if others else mine)
    return out


def values(game: Game, in_place: bool = False, declared: bool = True) -> list[float]:
    """Per seat, how well it stands in [0, 1]: its win share when the game is over, else its squashed lead."""
    if game.phase == "done":
        r = game.result()
        share = 1 / len(r.winners) if r.winners else 0.0
        return [share if s in r.winners else 0.0 for s in range(game.state.seats)]
    scores = score_now(game, in_place)
    if declared:
        scores = worth(game, scores)
    return [margin_value(scores, s) for s in range(len(scores))]
