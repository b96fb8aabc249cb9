"""The strongest agent that fits a time budget, for runs of many games (`cardsmith balance --time`).

The cost of a game with an agent is estimated, not guessed: one game with random agents gives how many
decisions a game of this pack takes, and the first decisions of a game with the agent in every seat give
its seconds per decision. Candidates are tried strongest first (the measured ladder: search, greedy,
random); the first whose estimate for the whole run fits is chosen. The choice depends on the
machine's speed, so a run that must be the same everywhere names its agents instead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from cardsmith.bytecode import CompiledPack

from .agents import make_agent
from .game import Game

# Strongest first. The search budgets are iterations per decision, so a chosen agent plays the same games
# for a seed on any machine; only the choice depends on the machine.
CANDIDATES = ("search:100", "search:24", "greedy", "random")


@dataclass(frozen=True)
class Estimate:
    agent: str
    per_game: float  # seconds
    total: float  # seconds for the whole run

    @property
    def text(self) -> str:
        return f"{self.agent} about {_duration(self.total)}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def decisions_per_game(pack: CompiledPack, players: int, seed: int, params: dict | None) -> int:
    game = Game(pack, players, seed, params=params, log=False)
    return max(game.play().decisions, 1)


def seconds_per_decision(pack: CompiledPack, players: int, agent: str, seed: int, params: dict | None,
                         probe: int) -> float:
    """Wall-clock seconds per decision over the first `probe` decisions of a game with `agent` in every seat."""
    game = Game(pack, players, seed, [make_agent(agent, seed * 7919 + s) for s in range(players)], params,
                log=False)
    t0 = time.perf_counter()
    made = 0
    while made < probe and (d := game.advance()) is not None:
        game.decide(game.ask(d))
        made += 1
    return (time.perf_counter() - t0) / max(made, 1)


def pick_agent(pack: CompiledPack, players: int, games: int, seconds: float, jobs: int = 1, seed: int = 0,
               params: dict | None = None, runs: int = 1, candidates: tuple[str, ...] = CANDIDATES,
               probe: int = 40) -> tuple[str, list[Estimate]]:
    """The strongest candidate whose `runs` runs of `games` games over `jobs` workers fit in `seconds`, and the
    estimates made (strongest first, down to the one chosen). The weakest when none fits."""
    per_game_decisions = decisions_per_game(pack, players, seed, params)
    made = []
    for agent in candidates:
        per_game = seconds_per_decision(pack, players, agent, seed, params, probe) * per_game_decisions
        est = Estimate(agent, per_game, per_game * games * runs / max(jobs, 1))
        made.append(est)
        if est.total <= seconds:
            return agent, made
    return candidates[-1], made
