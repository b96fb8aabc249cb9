"""Many seeded games of one pack, and their statistics.

Game i uses seed `seed + i`, so any game of a run can be replayed on its own, and the
results do not depend on how the games are spread over workers.
"""

from __future__ import annotations

from collections.abc import Callable
from statistics import mean

from cardsmith.compiler.bytecode import CompiledPack

from .agents import make_agent
from .game import Game, GameResult


def play_one(pack: CompiledPack, players: int, seed: int, agent_names: list[str],
             params: dict | None = None, max_decisions: int | None = None) -> GameResult:
    agents = [make_agent(agent_names[i % len(agent_names)], seed * 7919 + i) for i in range(players)]
    kw = {"max_decisions": max_decisions} if max_decisions else {}
    game = Game(pack, players, seed, agents, params, log=True, **kw)
    return game.play()


def simulate(pack: CompiledPack, games: int, players: int, seed: int, agent_names: list[str],
             params: dict | None = None, max_decisions: int | None = None,
             progress: Callable[[int], None] | None = None) -> list[GameResult]:
    results = []
    for i in range(games):
        results.append(play_one(pack, players, seed + i, agent_names, params, max_decisions))
        if progress:
            progress(1)
    return results


def summarize(results: list[GameResult], players: int) -> dict:
    """Win rate and mean score per seat and per agent; ties share the win."""
    seats = []
    for s in range(players):
        wins = sum(1 / len(r.winners) for r in results if s in r.winners)
        seats.append({"seat": s, "win_rate": round(wins / len(results), 4) if results else 0,
                      "mean_score": round(mean(r.totals[s] for r in results), 3) if results else 0})
    agents: dict[str, dict] = {}
    for r in results:
        for s, name in enumerate(r.agents):
            a = agents.setdefault(name, {"seats_played": 0, "wins": 0.0, "score_sum": 0})
            a["seats_played"] += 1
            a["wins"] += 1 / len(r.winners) if s in r.winners else 0
            a["score_sum"] += r.totals[s]
    per_agent = {name: {"seats_played": a["seats_played"], "win_rate": round(a["wins"] / a["seats_played"], 4),
                        "mean_score": round(a["score_sum"] / a["seats_played"], 3)}
                 for name, a in sorted(agents.items())}
    return {
        "games": len(results),
        "capped": sum(1 for r in results if r.capped),
        "mean_turns": round(mean(r.turns for r in results), 2) if results else 0,
        "mean_decisions": round(mean(r.decisions for r in results), 2) if results else 0,
        "seats": seats,
        "agents": per_agent,
    }
