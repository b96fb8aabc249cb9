"""What a search iteration costs, per pack: the search agent's unit of work beside a clone of the game.

One iteration of the search agent (runtime/search.py) deals a sample of the game from the seat's
observation (a clone with the unseen cards dealt again), walks its tree, plays on to the end of the
seat's turn and scores the position. The baseline is `Game.clone` of the same position, measured in
the same run: an iteration costs a clone, a deal and some play. CPU time, best of the repeats.
"""

from __future__ import annotations

import random

from cardsmith.compiler import compile_pack

from .report import Table
from .sections import _best

PACKS = ("earth", "terraforming-mars", "living-forest", "birdscaping")


def position(pack, decisions: int = 150):
    """A two-player game of `pack` with random agents, `decisions` in, standing at a decision."""
    from cardsmith.runtime.game import Game

    game = Game(pack, 2, seed=11, log=False)
    for _ in range(decisions):
        d = game.advance()
        if d is None:
            break
        game.decide(game.ask(d))
    return game if game.advance() is not None else None


def search_rows(table: Table, repeat: int, iterations: int = 60) -> None:
    table.section("search agent: one iteration (sample, tree, play-out, score) against a clone of the game")
    for ref in PACKS:
        res = compile_pack(ref)
        game = position(res.pack) if res.ok else None
        if game is None:
            table.add(f"{ref}: search iteration", "skipped", note="no decision to measure")
            continue
        obs = game.observe(game.pending.seat)
        clone, sample, whole, spent = _measure(game, obs, repeat, iterations)
        per = whole / max(spent, 1)
        table.add(f"{ref}: Observation.sample (deal what the seat cannot see)", f"{sample * 1e3:.2f} ms",
                  f"Game.clone {clone * 1e3:.2f} ms", sample / clone, "report")
        table.add(f"{ref}: one search iteration ({spent} in a decision of {len(obs.decision.options)} options)",
                  f"{per * 1e3:.2f} ms", f"Game.clone {clone * 1e3:.2f} ms", per / clone, "report")


def _measure(game, obs, repeat: int, iterations: int, k: int = 50) -> tuple[float, float, float, int]:
    """(clone, sample, a whole search decision) in seconds, and the iterations that decision ran."""
    from cardsmith.runtime.search import SearchAgent

    rng = random.Random(3)
    clone = _best(lambda: [game.clone(silent=True) for _ in range(k)], repeat) / k
    sample = _best(lambda: [obs.sample(rng) for _ in range(k)], repeat) / k
    spent: list[int] = []

    def run() -> None:
        agent = SearchAgent(5, iterations=iterations)
        agent.choose(obs, obs.decision)
        spent.append(agent.spent)

    return clone, sample, _best(run, repeat), spent[-1]
