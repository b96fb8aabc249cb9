"""Play-outs: how agents that look ahead play on from a position they try."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .game import Game


def play_on(game: Game, seat: int, rng: random.Random, limit: int) -> None:
    """Play `game` on at random while it is `seat`'s turn: until another seat decides, the turn passes, the game
    ends or `limit` decisions were made. The position then is the one judged (greedy, search)."""
    turn = game.state.turn
    for _ in range(limit):
        d = game.advance(limit_decisions=0)
        if d is None or d.seat != seat or game.state.turn != turn:
            return
        game.decide(rng.randrange(len(d.options)))
    game.advance(limit_decisions=0)
