"""Agents make every decision of a game. The VM asks; an agent answers with an option index.

Ship: a seeded random agent, a greedy one-step-lookahead agent, and a scripted agent that
replays a list of answers (scenarios, replays, the terminal player's input).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Protocol

from .vm import Decision

if TYPE_CHECKING:
    from .game import Game


class Agent(Protocol):
    name: str

    def choose(self, game: Game, decision: Decision) -> int: ...


class RandomAgent:
    """Uniformly random among the legal options, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, decision: Decision) -> int:
        return self.rng.randrange(len(decision.options))


class GreedyAgent:
    """Tries each option on a copy of the game, plays on to the next decision, and keeps the
    option that leaves its own score (the rules' scoring steps, counted now) highest.
    Ties go to the agent's seeded generator."""

    name = "greedy"

    def __init__(self, seed: int = 0, max_options: int = 12) -> None:
        self.rng = random.Random(seed)
        self.max_options = max_options

    def choose(self, game: Game, decision: Decision) -> int:
        n = len(decision.options)
        candidates = list(range(n))
        if n > self.max_options:
            candidates = sorted(self.rng.sample(candidates, self.max_options))
        best, best_value = [], None
        for i in candidates:
            trial = game.clone(silent=True)
            trial.decide(i)
            trial.advance(limit_decisions=0)
            value = trial.estimate(decision.seat)
            if best_value is None or value > best_value:
                best, best_value = [i], value
            elif value == best_value:
                best.append(i)
        return self.rng.choice(best)


class ScriptedAgent:
    """Answers from a list (by index, or by option label); falls back to another agent."""

    name = "scripted"

    def __init__(self, answers: list[int | str], fallback: Agent | None = None) -> None:
        self.answers = list(answers)
        self.fallback = fallback

    def choose(self, game: Game, decision: Decision) -> int:
        if not self.answers:
            if self.fallback is None:
                raise ScriptExhausted(decision)
            return self.fallback.choose(game, decision)
        a = self.answers.pop(0)
        if isinstance(a, int):
            if not 0 <= a < len(decision.options):
                raise ScriptMismatch(decision, a)
            return a
        matches = [i for i, label in enumerate(decision.labels) if label == a or label.startswith(a)]
        if not matches:
            raise ScriptMismatch(decision, a)
        return matches[0]


class ScriptExhausted(Exception):
    def __init__(self, decision: Decision) -> None:
        super().__init__(f"no scripted answer left for: {decision.prompt} ({', '.join(decision.labels)})")
        self.decision = decision


class ScriptMismatch(Exception):
    def __init__(self, decision: Decision, answer: str | int) -> None:
        super().__init__(f"scripted answer {answer!r} is not an option of '{decision.prompt}': "
                         f"{', '.join(decision.labels)}")
        self.decision = decision


AGENTS = {"random": RandomAgent, "greedy": GreedyAgent}


def make_agent(name: str, seed: int) -> Agent:
    try:
        return AGENTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown agent '{name}'; agents: {', '.join(AGENTS)}") from None
