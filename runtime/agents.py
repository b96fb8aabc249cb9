"""Agents make every decision of a game. The VM asks; an agent answers with an option index.

An agent receives an observation (observation.py): what its seat may see, and the decision as
the seat sees it. It never receives the game state: an agent that looks ahead does so on
`observation.sample(rng)`, a copy of the game dealt again where the seat cannot see.

Ship: a seeded random agent; a greedy agent (each option tried on a sample and played on to the
end of the seat's turn, judged by the rules' scoring); the search agent (search.py: information-set
Monte Carlo tree search); and a scripted agent that replays a list of answers (scenarios,
replays, the terminal player's input). `make_agent("search:200", seed)` makes one from its name,
with a budget after the colon where the agent takes one.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from .evaluation import values
from .observation import Observation, observe
from .rollout import play_on
from .search import SearchAgent
from .vm import Decision


class Agent(Protocol):
    name: str

    def choose(self, view: Observation, decision: Decision) -> int: ...


class RandomAgent:
    """Uniformly random among the legal options, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: Any, decision: Decision) -> int:
        return self.rng.randrange(len(decision.options))


class GreedyAgent:
    """Tries each option on a sample of the game (what its seat knows, dealt again where it cannot see), plays
    on at random to the end of its turn (at most `horizon` more decisions of its own), and keeps the option
    that leaves it best placed by the rules' scoring, counted then (evaluation.py), as a lead over the best
    other seat. Ties go to the agent's seeded generator. `horizon=0` judges the position right after the
    option; `worth=True` counts what the pack declares unscored things are worth, as the search agent does."""

    name = "greedy"

    def __init__(self, seed: int = 0, max_options: int = 12, horizon: int = 8, worth: bool = False) -> None:
        self.rng = random.Random(seed)
        self.max_options = max_options
        self.horizon = horizon
        self.worth = worth  # count the pack's declared worth too (the search agent does; greedy by default not)

    def choose(self, view: Any, decision: Decision) -> int:
        obs = observe(view, decision)
        n = len(decision.options)
        candidates = list(range(n))
        if n > self.max_options:
            candidates = sorted(self.rng.sample(candidates, self.max_options))
        sample = obs.sample(self.rng)
        if sample.pending is None or len(sample.pending.options) != n:
            return self.rng.choice(candidates)  # what it cannot see changes what it may do: it cannot judge
        best, best_value = [], None
        for i in candidates:
            trial = sample.clone(silent=True, fork=True)
            trial.decide(i)
            if self.horizon:
                play_on(trial, obs.seat, self.rng, self.horizon)
            else:
                trial.advance(limit_decisions=0)
            value = values(trial, in_place=True, declared=self.worth)[obs.seat]
            if best_value is None or value > best_value:
                best, best_value = [i], value
            elif value == best_value:
                best.append(i)
        return self.rng.choice(best)


class ScriptedAgent:
    """Answers from a list (by index, or by option label); falls back to another agent.

    A script is written by someone who set the table (a scenario, a test): like a referee, it is given the
    decision as the rules word it, cards named even where its seat could not see them (`omniscient`). It
    decides nothing itself; its fallback agent sees only what the seat may see."""

    name = "scripted"
    omniscient = True

    def __init__(self, answers: list[int | str], fallback: Agent | None = None) -> None:
        self.answers = list(answers)
        self.fallback = fallback

    def choose(self, view: Any, decision: Decision) -> int:
        if not self.answers:
            if self.fallback is None:
                raise ScriptExhausted(decision)
            obs = observe(view, decision)
            return self.fallback.choose(obs, obs.decision)
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


AGENTS: dict[str, Any] = {"random": RandomAgent, "greedy": GreedyAgent, "search": SearchAgent}
STRENGTH = ("random", "greedy", "search")  # weakest first (docs/agents.rst: the measured ladder)


class AgentSpec:
    """An agent's name as written on a command line: `random`, `greedy`, `search`, `search:400` (iterations per
    decision) or `search:0.5s` (seconds per decision)."""

    def __init__(self, text: str) -> None:
        self.text = text.strip()
        base, _, budget = self.text.partition(":")
        if base not in AGENTS:
            raise ValueError(f"unknown agent '{self.text}'; agents: {', '.join(AGENTS)} "
                             "(search takes a budget: search:400 iterations, search:0.5s seconds per decision)")
        self.base = base
        self.kw: dict[str, Any] = {}
        if budget:
            if base != "search":
                raise ValueError(f"agent '{base}' takes no budget ('{self.text}'); only search does, as search:400 "
                                 "or search:0.5s")
            try:
                if budget.endswith("s"):
                    seconds = float(budget[:-1])
                    if not 0 < seconds <= 3600:
                        raise ValueError
                    self.kw["seconds"] = seconds
                else:
                    iterations = int(budget)
                    if not 1 <= iterations <= 1_000_000:
                        raise ValueError
                    self.kw["iterations"] = iterations
            except ValueError:
                raise ValueError(f"'{self.text}': the budget after 'search:' is a number of iterations (1 to "
                                 "1,000,000) or seconds ending in s (e.g. search:0.5s)") from None

    def make(self, seed: int) -> Agent:
        return AGENTS[self.base](seed, **self.kw)


def make_agent(name: str, seed: int) -> Agent:
    """The agent a name stands for (see AgentSpec), seeded."""
    return AgentSpec(name).make(seed)


def agent_problem(name: str) -> str | None:
    """Why `name` names no agent, or None when it does."""
    try:
        AgentSpec(name)
    except ValueError as e:
        return str(e)
    return None
