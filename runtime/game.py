"""A game: a compiled pack, a state, a VM and one agent per seat, run to the end.

    game = Game(pack, players=3, seed=7)
    result = game.play()

`advance` runs until the next decision; `decide` answers it; `clone` copies the whole game
(state, frames, pending decision) for search agents. The event log is JSON lines from which
`replay` re-runs the game exactly.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from cardsmith.bytecode import CompiledPack

from .agents import Agent, RandomAgent
from .observation import Observation
from .state import GameState, automa_seats, new_state, scored_seats
from .vm import VM, Decision, Frame, linker_for

LOG_VERSION = 1
_EVENT = json.JSONEncoder(separators=(",", ":")).encode  # one encoder for every event (json.dumps makes one a call)
DEFAULT_MAX_DECISIONS = 50_000


@dataclass
class GameResult:
    seed: int
    players: int
    totals: list[int]
    steps: list[dict[str, int]]
    winners: list[int]
    tiebreaks: list[list[int]]
    capped: bool
    turns: int
    decisions: int
    log_hash: str = ""
    agents: list[str] = field(default_factory=list)
    played: list[list[str]] = field(default_factory=list)  # per seat: cards played (simulate fills it)
    held: list[list[str]] = field(default_factory=list)  # per seat: cards that came to it, played or not (simulate)
    shared_counters: dict[str, int] = field(default_factory=dict)  # at the end: generation, temperature, ...
    places: list[int] = field(default_factory=list)  # per seat: 1 for the winners, then 2, ... (ties share)
    automa: list[str] = field(default_factory=list)  # the automa seats after the players, by id

    def to_json(self) -> dict:
        out = {"seed": self.seed, "players": self.players, "totals": self.totals, "steps": self.steps,
               "winners": self.winners, "places": self.places, "tiebreaks": self.tiebreaks, "capped": self.capped,
               "turns": self.turns, "decisions": self.decisions, "log_hash": self.log_hash,
               "agents": self.agents, "shared_counters": self.shared_counters}
        if self.automa:
            out["automa"] = self.automa
        return out


class Game:
    def __init__(self, pack: CompiledPack, players: int, seed: int = 0, agents: list[Agent] | None = None,
                 params: dict[str, Any] | None = None, log: bool = True,
                 max_decisions: int = DEFAULT_MAX_DECISIONS, state: GameState | None = None) -> None:
        lo, hi = pack.players
        if not lo <= players <= hi:
            raise ValueError(f"{pack.name} is for {lo} to {hi} players, not {players}")
        unknown = [k for k in (params or {}) if k not in pack.params]
        if unknown:
            raise ValueError(f"unknown rule parameter(s) {', '.join(unknown)}; "
                             f"parameters: {', '.join(pack.params) or 'none'}")
        self.pack = pack
        self.n = players
        self.seed = seed
        self.params = dict(params or {})
        self.agents = agents or [RandomAgent(seed * 7919 + i) for i in range(players)]
        self.state = state or new_state(pack, players, seed, params)
        self.events: list | None = [] if log else None
        self.decisions: list[tuple[int, str, int, int]] = []
        self.vm = VM(pack, self.state, linker_for(pack), self.events)
        self.phase = "new"
        self.pending: Decision | None = None
        self.capped = False
        self.max_decisions = max_decisions
        self.tiebreaks: list[list[int]] = []
        self.keys: list[tuple] | None = None  # the declared ranking's values per seat, after scoring

    # ------------------------------------------------------------ running
    def _next_phase(self) -> bool:
        """Push the next phase's frames; False when the game is over."""
        vm = self.vm
        if self.phase == "new":
            if self.pack.game:
                vm.push(self.pack.game, self.state.first)
            if self.pack.setup:
                vm.push(self.pack.setup, self.state.first)
            self.phase = "play"
            return True
        if self.phase == "play":
            self.phase = "scoring"
            self.state.over = True
            for step in reversed(self.pack.scoring):
                for seat in reversed(scored_seats(step, self.state)):  # automa seats score too (unless declared)
                    vm.push(step["code"], seat, step=step["id"])
            return True
        if self.phase == "scoring":
            seats = range(self.state.seats)
            self.tiebreaks = [[self.vm.eval_sync(self.vm.linker.link(code), seat) or 0
                               for code in self.pack.tiebreakers] for seat in seats]
            if self.pack.ranking:  # declared: every key an expression; a condition counts as 1 or 0
                self.keys = [tuple(int(self.vm.eval_sync(self.vm.linker.link(code), seat) or 0)
                                   for code in self.pack.ranking) for seat in seats]
            self.phase = "done"
        return False

    def advance(self, limit_decisions: int | None = None) -> Decision | None:
        """Run until a decision is pending (returned) or the game is over (None).

        With `limit_decisions=0` it stops at the first decision instead of asking agents."""
        while True:
            if self.pending is not None:
                return self.pending
            if not self.vm.frames and not self._next_phase():
                return None
            d = self.vm.run()
            if d is not None:
                if len(self.decisions) >= self.max_decisions and self.phase == "play":
                    self.capped = True
                    self.vm.frames.clear()
                    self.vm.pending = None
                    self.vm.log, self.vm.at_once = self.events, None  # an 'each player at once' stops too
                    continue
                self.pending = d
                return d

    def decide(self, choice: int) -> None:
        d = self.pending
        if d is None:
            raise RuntimeError("no decision is pending")
        if not 0 <= choice < len(d.options):
            raise ValueError(f"choice {choice} is not one of the {len(d.options)} options")
        self.decisions.append((d.seat, d.kind, len(d.options), choice))
        if self.events is not None:
            self.events.append(("decide", d.seat, d.kind, len(d.options), choice))
        self.pending = None
        self.vm.resume(choice)

    def ask(self, d: Decision) -> int:
        """The answer of the agent of `d`'s seat, which sees only what that seat may see (observation.py)."""
        obs = Observation(self, d.seat)
        agent = self.agents[d.seat]
        # a script (a scenario's answers) is the referee's: it reads the decision as the rules word it
        return agent.choose(obs, d if getattr(agent, "omniscient", False) else obs.decision)

    def observe(self, seat: int) -> Observation:
        return Observation(self, seat)

    def play(self) -> GameResult:
        while True:
            d = self.advance()
            if d is None:
                return self.result()
            self.decide(self.ask(d))

    # ------------------------------------------------------------ results
    def totals(self) -> list[int]:
        return [sum(s.values()) for s in self.state.scores]

    def ranking_keys(self) -> list[tuple]:
        """Per seat, what places it: the declared ranking, else its total score, then the tiebreakers."""
        if self.keys is not None:
            return self.keys
        totals = self.totals()
        return [(totals[s], *self.tiebreaks[s]) if self.tiebreaks else (totals[s],) for s in range(self.state.seats)]

    def result(self) -> GameResult:
        totals = self.totals()
        keyed = self.ranking_keys()
        seats = range(self.state.seats)
        places = [1 + sum(1 for other in seats if keyed[other] > keyed[s]) for s in seats]
        winners = [s for s in seats if places[s] == 1]
        steps = [{st["id"]: self.state.scores[s].get(st["id"], 0) for st in self.pack.scoring} for s in seats]
        return GameResult(self.seed, self.n, totals, steps, winners, self.tiebreaks, self.capped,
                          self.state.turn, len(self.decisions), self.log_hash(),
                          [getattr(a, "name", type(a).__name__) for a in self.agents], places=places,
                          automa=[a["id"] for a in automa_seats(self.pack, self.n)])

    # ------------------------------------------------------------ copies and logs
    def clone(self, silent: bool = False, fork: bool = False) -> Game:
        """A copy of the game. With `fork` the copy shares the cards until it changes one (GameState.fork): much
        cheaper for a look-ahead, which must then be done with the copy before this game changes again."""
        g = Game.__new__(Game)
        g.pack, g.n, g.seed, g.params = self.pack, self.n, self.seed, self.params
        g.agents = self.agents
        g.state = self.state.fork() if fork else self.state.clone()
        g.events = None if silent or self.events is None else list(self.events)
        hashed = getattr(self, "_hashed", None)
        g._hashed = None if g.events is None or hashed is None else (hashed[0], hashed[1].copy(), hashed[2])
        g.decisions = list(self.decisions)
        g.vm = VM(self.pack, g.state, self.vm.linker, g.events)
        if self.vm.at_once is not None:  # an 'each player at once' under way (its first pass is not logged)
            g.vm.at_once = self.vm.at_once.copy(g.events)
            if self.vm.log is None:
                g.vm.log = None
        g.vm.frames = [f.clone() for f in self.vm.frames]
        g.vm.answer = self.vm.answer
        g.vm.pending = self.vm.pending
        g.vm.steps = self.vm.steps
        g.phase, g.pending, g.capped = self.phase, self.pending, self.capped
        g.max_decisions, g.tiebreaks, g.keys = self.max_decisions, list(self.tiebreaks), self.keys
        return g

    def header(self) -> dict:
        return {"cardsmith-log": LOG_VERSION, "pack": self.pack.id, "version": self.pack.version,
                "players": self.n, "seed": self.seed, "params": self.params,
                "agents": [getattr(a, "name", type(a).__name__) for a in self.agents]}

    def log_lines(self) -> list[str]:
        """The event log as JSON lines (made only when asked: `log_hash` does not need them)."""
        return [json.dumps(self.header(), sort_keys=True), *map(_EVENT, self.events or ())]

    def log_hash(self) -> str:
        """SHA-256 of the log's lines, each ended by a newline (the first 16 hex digits). Kept up to date as the
        game goes: only the events since the last call are encoded, with one encoder."""
        if self.events is None:
            return hashlib.sha256(json.dumps(self.decisions).encode() + b"\n").hexdigest()[:16]
        head = json.dumps(self.header(), sort_keys=True)
        done = getattr(self, "_hashed", None)
        if done is None or done[0] != head or done[2] > len(self.events):
            done = (head, hashlib.sha256(head.encode() + b"\n"), 0)
        h, events = done[1], self.events
        if len(events) > done[2]:
            h.update(("\n".join(map(_EVENT, events[done[2]:])) + "\n").encode())
        self._hashed = (head, h, len(events))
        return h.hexdigest()[:16]


def frames_of(game: Game) -> list[Frame]:
    return game.vm.frames
