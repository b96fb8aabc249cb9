"""The search agent: information-set Monte Carlo tree search over the VM's decisions.

Each iteration deals a sample of the game from the agent's observation (what its seat knows, the
unseen cards dealt again: observation.py), walks down a tree of the seat's decisions, the option at
each chosen by UCB among the options this sample offers, adds one new decision, plays on at random to
the end of the seat's next turn (the other seats playing at random in between; at most `depth`
decisions per turn) and judges the position there (evaluation.py: the seat's lead in points by the
rules' scoring counted now, plus what the pack declares unscored things worth; a finished game adds
the win). UCB compares the options of a decision on their leads scaled to 0..1 between the worst and
the best mean there, so that a lead of two points counts as much in a game of twenty points as in
one of two hundred. The visit counts at the root decide. Options are told apart across samples by
what they are (the card, its zone, the cell, the number), so a card seen differently in two samples
is two branches, and an option counts as tried only in the samples that offer it (availability).

Every leaf is judged at the same point of the turn cycle, the end of one of the seat's turns: judged
at different points, "the score if the game ended now" favours whatever keeps the turn going. The
default looks two of the seat's turns ahead (`turns=2`; the tree goes on over its next turn, open
loop): a move whose points come in the next turn (a card taken now, played next) is seen, which the
greedy agent's look to the end of the current turn misses. Measured against greedy with 24 iterations
per decision (docs/agents.rst): Living Forest 20 of 20 with two turns against 18 of 20 with one,
Birdscaping 11.5 of 16 against 6 of 16. A pack may declare its own (rules.yaml statistics.look-ahead:
1 where a move pays off within the turn). A seat's turn ends when the turn passes or another seat
decides; in a game of shared turns (statistics.shared-turns: every player takes part in the active
player's action, as in Earth) only when the turn passes or the active seat decides, so that the leaf
comes after the action has resolved, not at the other players' first answer to it.

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

from .evaluation import margins
from .observation import observe

if TYPE_CHECKING:
    from .game import Game
    from .vm import Decision

DEFAULT_ITERATIONS = 200
DEFAULT_TURNS = 2


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
                 depth: int = 30, c: float = 0.7, turns: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.depth = depth
        self.c = c
        # how many of its own turns an iteration looks ahead (the other seats play at random); None: what the pack
        # declares (rules.yaml statistics.look-ahead), else DEFAULT_TURNS
        self.turns = turns
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
        node: Node | None = root  # None once the walk has left the tree (the play-out)
        path: list[tuple[Node, int]] = []
        at_root = True
        st = g.state
        me, turn = d.seat, st.turn
        declared = g.pack.statistics
        turns = self.turns or declared.get("look-ahead", DEFAULT_TURNS)
        # shared turns: the others act within the active seat's turn (they take part in its action), so their
        # decisions end the seat's stretch only when the one deciding is the active seat
        shared = declared.get("shared-turns", False)
        ends = 0  # turns of the seat that ended: the walk stops after `turns` of them
        mine = True
        budget = self.depth * (2 * turns + 1)
        while d is not None and budget > 0:
            budget -= 1
            if mine and (st.turn != turn or (d.seat != me and (not shared or d.seat == st.active))):
                mine = False  # another seat decides, or the turn passed: the seat's turn is over
                ends += 1
                if ends >= turns:
                    break
            if d.seat == me:
                if not mine:  # the seat's next turn: the tree goes on over its decisions (open loop)
                    mine, turn = True, st.turn
                if node is None:
                    g.decide(rng.randrange(len(d.options)))
                    d = g.advance(limit_decisions=0)
                    continue
                keys = list(range(len(d.options))) if at_root else \
                    [option_key(g, d, i) for i in range(len(d.options))]
                at_root = False
                children = node.children
                untried = []
                for i, k in enumerate(keys):
                    child = children.get(k)
                    if child is None:
                        untried.append(i)
                    else:
                        child.avail += 1
                if untried:
                    i = untried[rng.randrange(len(untried))]
                    child = children[keys[i]] = Node()
                    path.append((child, me))
                    node = None
                    g.decide(i)
                    d = g.advance(limit_decisions=0)
                    continue
                # leads in points, made 0..1 across the options here (the spread of a decision, not of the game)
                means = [children[k].total / children[k].visits for k in keys]
                lo, hi = min(means), max(means)
                spread = hi - lo or 1.0
                best_i, best_u = 0, -math.inf
                for i, k in enumerate(keys):
                    child = children[k]
                    u = (means[i] - lo) / spread + c * math.sqrt(math.log(child.avail) / child.visits)
                    if u > best_u:
                        best_i, best_u = i, u
                node = children[keys[best_i]]
                path.append((node, me))
                g.decide(best_i)
                d = g.advance(limit_decisions=0)
                continue
            g.decide(rng.randrange(len(d.options)))  # the other seats play at random
            d = g.advance(limit_decisions=0)
        vals = margins(g, in_place=True)
        root.visits += 1
        for n, seat in path:
            n.visits += 1
            n.total += vals[seat]


def _settled(root: Node, left: int) -> bool:
    """Whether the most visited option at the root stays ahead whatever the `left` iterations do."""
    visits = sorted((ch.visits for ch in root.children.values()), reverse=True)
    return len(visits) >= 2 and visits[0] - visits[1] > left
