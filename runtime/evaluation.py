"""How good a game position is for each seat, for agents that look ahead: generic, read from the rules.

`score_now` runs the rules' scoring steps as if the game ended here (every seat, step by step, as
the real end does), on a copy unless the caller's game is a throwaway. `values` turns scores into a
number in [0, 1] per seat: the win share at the end of a game (ties share), and before the end a
margin against the best other seat, squashed so that a lead of a few points matters and a lead
of a hundred does not swamp everything else. Nothing here knows a game.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .vm import VM

if TYPE_CHECKING:
    from .game import Game


def score_now(game: Game, in_place: bool = False) -> list[int]:
    """Each seat's total if the game were scored now. A game already scored keeps its scores. With
    `in_place` the game's own state takes the scoring (for a copy about to be thrown away)."""
    if game.phase == "done":
        return game.totals()
    st = game.state if in_place else game.state.clone()
    vm = VM(game.pack, st, game.vm.linker, None)
    seats = range(st.seats)
    for step in game.pack.scoring:
        lc = vm.linker.link(step["code"])
        for seat in seats:
            vm.eval_sync(lc, seat, step=step["id"])
    return [sum(s.values()) for s in st.scores]


def margin_value(scores: list[int], seat: int) -> float:
    """A score lead squashed into (0, 1): 0.5 level with the best other seat, towards 1 ahead."""
    others = [s for i, s in enumerate(scores) if i != seat]
    if not others:
        return 0.5 + 0.5 * math.tanh(scores[seat] / 50)
    best = max(others)
    scale = 5 + 0.1 * (abs(scores[seat]) + abs(best)) / 2  # a lead counts relative to the scores' size
    return 0.5 + 0.5 * math.tanh((scores[seat] - best) / scale)


def values(game: Game, in_place: bool = False) -> list[float]:
    """Per seat, how well it stands in [0, 1]: its win share when the game is over, else its squashed lead."""
    if game.phase == "done":
        r = game.result()
        share = 1 / len(r.winners) if r.winners else 0.0
        return [share if s in r.winners else 0.0 for s in range(game.state.seats)]
    scores = score_now(game, in_place)
    return [margin_value(scores, s) for s in range(len(scores))]
