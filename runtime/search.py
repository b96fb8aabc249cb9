"""The search agent: information-set Monte Carlo tree search over the VM's decisions.

Each iteration deals a sample of the game from the agent's observation (what its seat knows, the
unseen cards dealt again: observation.py), walks down one tree of decisions — every seat's, the
option of each chosen by UCB from the deciding seat's point of view among the options this sample
offers — adds one new decision, plays on at random to the end of the turn (at most `depth`
decisions) and scores the position there (evaluation.py: the win share at the end of a game, else
the lead by the rules' scoring counted now). The visit counts at the root decide. Options are told
apart across samples by what they are (the card, its zone, the cell, the number), so a card seen
differently in two samples is two branches, and an option counts as tried only in the samples that
offer it (availability).

The tree stops at the end of the turn the decision belongs to: every leaf is judged at the same point
of the turn cycle. Judged at different points, "the score if the game ended now" favours whatever
keeps the turn going (the other seats' turns have not scored yet), which plays worse than judging
at the turn's end; looking past it needs a better judge than the rules' scoring, and budgets well
beyond what a balance run can spend. Within the turn the search sees sequences of its own
decisions and the other seats' replies (followers, windows), which a one-step look-ahead does not.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): one tree for the searching seat, its
opponents' hidden choices treated as moves it samples. The budget is iterations per decision
(deterministic for a seed; at least three per option), or seconds per decision (not deterministic). A
decision whose answer no longer depends on the iterations left (the leader cannot be caught) stops
early, and the tree below the option chosen is kept for the agent's next decision when nothing
happened in between (a turn of several decisions): its visits count towards that decision's budget.
"""

from __future__ import annotations

import math
import random
import time
from typing import TYPE_CHECKING, Any

from .evaluation import values
from .observation import observe

if TYPE_CHECKING:
    from .game import Game
    from .vm import Decision

DEFAULT_ITERATIONS = 200


class Node:
    """A decision reached by a path of options; `total` is the value of arriving here for the seat that chose it."""

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Any, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1


def option_key(game: Game, d: Decision, i: int) -> Any:
    """What option i is, the same in every sample that offers it: a card by its definition and place (not its
    number in this sample), anything else by its value; the prompt tells decisions apart."""
    o = d.options[i]
    if d.kind == "card" and o is not None:
        c = game.state.cards[o]
        return d.prompt, c.defn, c.zone, c.seat
    return d.prompt, o


class SearchAgent:
    """ISMCTS with a budget of `iterations` per decision, or `seconds` per decision when given; random play-outs
    of at most `depth` decisions; exploration constant `c`."""

    name = "search"

    def __init__(self, seed: int = 0, iterations: int = DEFAULT_ITERATIONS, seconds: float | None = None,
                 depth: int = 30, c: float = 0.4) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.depth = depth
        self.c = c
        self.spent = 0  # iterations run over the agent's life (for benchmarks)
        self._kept: tuple | None = None  # (decisions made, seat, node) of the option chosen last

    def choose(self, view: Any, decision: Decision) -> int:
        obs = observe(view, decision)
        n = len(decision.options)
        if n <= 1:
            return 0
        rng = self.rng
        # The tree below the option chosen last time still holds when this decision came right after it, with no
        # decision of anybody in between (a turn of several decisions): its visits count towards the budget.
        kept, self._kept = self._kept, None
        if kept is not None and kept[:2] != (obs.decisions_made, obs.seat):
            kept = None
        root = Node()
        reused = 0
        # every option deserves a few samples: a budget below three per option grows to that
        budget = max(self.iterations, 3 * n) if self.seconds is None else 1_000_000_000
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while done + reused < budget:
            done += 1
            g = obs.sample(rng)
            d = g.pending
            if d is None or len(d.options) != n:
                continue  # the unseen cards change what may be done here: this sample says nothing
            if kept is not None:
                for i in range(n):
                    child = kept[2].children.get(option_key(g, d, i))
                    if child is not None and i not in root.children and child.visits:
                        root.children[i] = child
                        reused += child.visits
                reused = min(reused, budget - max(n, budget // 4))  # always some fresh samples
                kept = None
            self._iterate(g, d, root)
            if deadline is not None:
                if time.perf_counter() > deadline:
                    break
            elif done >= n and _settled(root, budget - done - reused):
                break
        self.spent += done
        if not root.children:
            return rng.randrange(n)
        # the root's options are the same in every sample: its children are the option numbers
        best = min(root.children, key=lambda i: (-root.children[i].visits, -root.children[i].total, i))
        self._kept = (obs.decisions_made + 1, obs.seat, root.children[best])
        return best

    def _iterate(self, g: Game, d: Decision, root: Node) -> None:
        rng = self.rng
        c = self.c
        node = root
        path: list[tuple[Node, int]] = []
        at_root = True
        turn = g.state.turn  # the search looks ahead to the end of this turn: every leaf is judged there
        while d is not None and g.state.turn == turn:
            keys = list(range(len(d.options))) if at_root else [option_key(g, d, i) for i in range(len(d.options))]
            at_root = False
            children = node.children
            untried = []
            for i, k in enumerate(keys):
                child = children.get(k)
                if child is None:
                    untried.append(i)
                else:
                    child.avail += 1
            seat = d.seat
            if untried:
                i = untried[rng.randrange(len(untried))]
                child = children[keys[i]] = Node()
                path.append((child, seat))
                g.decide(i)
                d = g.advance(limit_decisions=0)
                break
            best_i, best_u = 0, -1.0
            for i, k in enumerate(keys):
                child = children[k]
                u = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if u > best_u:
                    best_i, best_u = i, u
            node = children[keys[best_i]]
            path.append((node, seat))
            g.decide(best_i)
            d = g.advance(limit_decisions=0)
        # the play-out: every seat plays on at random to the end of the turn (at most `depth` decisions)
        for _ in range(self.depth):
            if d is None or g.state.turn != turn:
                break
            g.decide(rng.randrange(len(d.options)))
            d = g.advance(limit_decisions=0)
        vals = values(g, in_place=True)
        root.visits += 1
        for node, seat in path:
            node.visits += 1
            node.total += vals[seat]


def _settled(root: Node, left: int) -> bool:
    """Whether the most visited option at the root stays ahead whatever the `left` iterations do."""
    visits = sorted((ch.visits for ch in root.children.values()), reverse=True)
    return len(visits) >= 2 and visits[0] - visits[1] > left
