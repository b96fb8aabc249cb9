"""Invariants over many random games of every built-in pack.

Each game is checked after every decision (runtime/invariants.py): every card is in exactly one
zone, the number of cards never changes, each card records the zone and cell that hold it, counters
stay within their declared `min` (default 0) and `max`, pieces are never negative, and the live
trigger and modifier lists match the cards in play. At the end: the game ended by its rules (not
by the decision cap), nobody scored during play except into the steps the rules declare
`during-play`, each player's total is the sum of the
scoring steps, each step's points are the sum of its `score` events in the log, and a second run of
the same seed gives the same event-log hash (every game is played twice).

Games are made short with rule parameters (SHORT below), so that many fit in a test run; settings
marked long (whole games) are played in the extended mode and by the slow test. A pack without an
entry is played with its own parameters, for at most UNKNOWN_PACK_SECONDS. Games are spread over the
machine's CPUs.

    CARDSMITH_INVARIANT_GAMES=20000 pytest tests/test_invariants.py     # extended mode (games per pack)
    pytest -m slow tests/test_invariants.py                             # whole games, every player count
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import time
import warnings
from collections import Counter

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.compiler.packs import builtin_packs
from cardsmith.runtime.agents import GreedyAgent, RandomAgent
from cardsmith.runtime.game import Game
from cardsmith.runtime.invariants import StateChecker

EXTENDED = "CARDSMITH_INVARIANT_GAMES" in os.environ
GAMES = int(os.environ.get("CARDSMITH_INVARIANT_GAMES", "1000"))
RERUN_EVERY = 1  # every seed is played twice and its log hash compared
UNKNOWN_PACK_SECONDS = 60
LONG = "long"  # a setting played only in the extended mode

# Per pack, settings cycled through game by game: (weight, rule parameters, player counts or None for all
# [, LONG]). Low targets make games short; full-length games keep the real game in the mix.
SHORT: dict[str, list[tuple]] = {
    "earth": [(30, {"tableau-size": 2}, None), (40, {"tableau-size": 3}, None), (29, {"tableau-size": 4}, None),
              (1, {}, None, LONG)],
    # Abundance offers many more decisions per turn (seed tokens): smaller tableaux
    "earth-abundance": [(60, {"tableau-size": 2}, None), (40, {"tableau-size": 3}, None), (1, {}, None, LONG)],
    "living-forest": [(99, {"target": 2}, None), (1, {"target": 3}, None)],
    # Terraforming Mars is short only solo; its multi-player games are whole games, a few of them
    "terraforming-mars": [(198, {"solo-generations": 1}, [1]), (1, {"solo-generations": 3}, [1]), (1, {}, None)],
    "birdscaping": [(99, {"last-round": 1}, None), (1, {}, None, LONG)],
}

# Packs whose games break an invariant today: pack -> the reason (and how to reproduce it).
KNOWN_BUGS = {
}


def short_settings(pack) -> list | None:
    """The SHORT settings of the pack, or of the nearest pack it extends whose parameters it has."""
    for pid in reversed(pack.chain):
        settings = [s for s in SHORT.get(pid, []) if EXTENDED or LONG not in s[3:]]
        if settings and all(k in pack.params for _, params, *_ in settings for k in params):
            lo, hi = pack.players
            return [(w, params, [n for n in players if lo <= n <= hi] if players else None)
                    for w, params, players, *_ in settings if not players or any(lo <= n <= hi for n in players)]
    return None


def _schedule(pack, count: int, settings) -> list[tuple[int, int, dict, bool]]:
    """(seed, players, params, greedy seat?) for each game."""
    lo, hi = pack.players
    table = []
    for weight, params, players in settings:
        table.extend([(params, players or list(range(lo, hi + 1)))] * weight)
    out = []
    for i in range(count):
        params, players = table[i % len(table)]
        n = players[(i // len(table)) % len(players)]
        out.append((i, n, params, i % 250 == 7))  # now and then a greedy agent (it clones the game)
    return out


def _agents(seed: int, n: int, greedy: bool):
    agents = [RandomAgent(seed * 7919 + s) for s in range(n)]
    if greedy:
        agents[0] = GreedyAgent(seed * 7919, max_options=4)
    return agents


def check_game(pack, seed: int, players: int, params: dict, greedy: bool = False, rerun: bool = True) -> list[str]:
    """Play one game, checking after every decision; the problems found (empty when all is well)."""
    where = f"{pack.id} players={players} seed={seed} params={params}{' greedy' if greedy else ''}"
    game = Game(pack, players, seed, _agents(seed, players, greedy), params)
    checker = StateChecker(pack, game.state)
    steps = {s["id"] for s in pack.scoring}
    playing = {s["id"] for s in pack.scoring if s.get("during-play")}  # the steps that take points during play
    while True:
        d = game.advance()
        problems = checker.check(game.state)
        if game.phase in ("new", "play") and any(set(scores) - playing for scores in game.state.scores):
            problems.append(f"points scored during play outside the steps declared during-play: {game.state.scores}")
        if problems:
            return [f"{where}, after decision {len(game.decisions)}: {p}" for p in problems[:5]]
        if d is None:
            break
        game.decide(game.agents[d.seat].choose(game, d))
    result = game.result()
    problems = []
    if result.capped or game.phase != "done":
        problems.append(f"the game did not end by its rules (capped after {len(game.decisions)} decisions)")
    logged = Counter()
    for e in game.events:
        if e[0] == "score":
            logged[(e[1], e[2])] += e[3]
    for seat in range(players):
        scores = game.state.scores[seat]
        if result.totals[seat] != sum(result.steps[seat].values()):
            problems.append(f"player {seat + 1}: total {result.totals[seat]} is not the sum of {result.steps[seat]}")
        if set(scores) - steps:
            problems.append(f"player {seat + 1} scored outside the scoring steps: {scores}")
        for step, points in scores.items():
            if logged[(seat, step)] != points:
                problems.append(f"player {seat + 1}: step {step} has {points} points; its score events add up "
                                f"to {logged[(seat, step)]}")
    again = Game(pack, players, seed, _agents(seed, players, greedy), params).play() if rerun else result
    if again.log_hash != result.log_hash:
        problems.append(f"a second run gives log hash {again.log_hash}, the first {result.log_hash}")
    return [f"{where}: {p}" for p in problems]


# ----------------------------------------------------------------------------- running many games

_PACKS: dict[str, object] = {}  # compiled packs, shared with forked workers


def _run_chunk(pack_id: str, jobs: list, deadline: float | None, rerun_every: int) -> tuple[int, Counter, list[str]]:
    pack = _PACKS.get(pack_id) or compile_pack(pack_id).pack
    played, sizes, failures = 0, Counter(), []
    for seed, n, params, greedy in jobs:
        if deadline is not None and time.monotonic() > deadline:
            break
        try:
            failures.extend(check_game(pack, seed, n, params, greedy, rerun=seed % rerun_every == 0))
        except Exception as e:  # a runtime fault or a crash is a finding too, with its reproduction
            failures.append(f"{pack_id} players={n} seed={seed} params={params}: {type(e).__name__}: {e}")
        played += 1
        sizes[n] += 1
    return played, sizes, failures


def _workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def play_many(pack, jobs: list, seconds: float | None = None,
              rerun_every: int = RERUN_EVERY) -> tuple[int, Counter, list[str]]:
    deadline = time.monotonic() + seconds if seconds else None
    _PACKS[pack.id] = pack
    workers = min(_workers(), 8)
    chunks = [jobs[i::workers * 4] for i in range(workers * 4)]
    played, sizes, failures = 0, Counter(), []
    if workers == 1 or "fork" not in multiprocessing.get_all_start_methods():
        results = [_run_chunk(pack.id, c, deadline, rerun_every) for c in chunks]
    else:
        ctx = multiprocessing.get_context("fork")
        with cf.ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            n = len(chunks)
            results = list(pool.map(_run_chunk, [pack.id] * n, chunks, [deadline] * n, [rerun_every] * n))
    for p, s, f in results:
        played += p
        sizes += s
        failures.extend(f)
    return played, sizes, failures


def _pack_params():
    out = []
    for pid in builtin_packs():
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[pid])] if pid in KNOWN_BUGS else []
        out.append(pytest.param(pid, marks=marks, id=pid))
    return out


@pytest.mark.parametrize("pack_id", _pack_params())
def test_invariants_hold_over_many_games(pack_id):
    res = compile_pack(pack_id)
    assert res.ok, [f"{d.span}: {d.message}" for d in res.diagnostics.errors][:5]
    pack = res.pack
    settings = short_settings(pack)
    jobs = _schedule(pack, GAMES, settings or [(1, {}, None)])
    played, sizes, failures = play_many(pack, jobs, None if settings else UNKNOWN_PACK_SECONDS)
    print(f"{pack_id}: {played} games checked after every decision; players {dict(sorted(sizes.items()))}")
    assert not failures, f"{len(failures)} problem(s), the first:\n" + "\n".join(failures[:10])
    if played < GAMES:
        warnings.warn(f"{pack_id}: only {played} of {GAMES} games in {UNKNOWN_PACK_SECONDS}s; give the pack short-game "
                      "parameters in SHORT in tests/test_invariants.py", stacklevel=1)
    assert played >= min(GAMES, 1) and len(sizes) == len(set(n for _, n, _, _ in jobs))


def test_checker_catches_a_broken_state():
    """The checker itself: a card in two zones, a lost card, a counter out of bounds, a stale live list."""
    pack = compile_pack("earth").pack
    game = Game(pack, 2, seed=1, params={"tableau-size": 2})
    for _ in range(40):
        d = game.advance()
        game.decide(game.agents[d.seat].choose(game, d))
    checker = StateChecker(pack, game.state)
    assert checker.check(game.state) == []
    st = game.state
    hand = st.zones[("hand", 0)]
    cid = hand[0]

    broken = st.clone()
    broken.zones[("discard", -1)].append(cid)
    assert any("in 2 zones" in p for p in checker.check(broken))
    broken = st.clone()
    broken.zones[("hand", 0)].remove(cid)
    assert any("in 0 zones (no zone)" in p for p in checker.check(broken))
    broken = st.clone()
    broken.cards[cid].zone = "discard"
    assert any("records discard" in p for p in checker.check(broken))
    broken = st.clone()
    broken.counters[1]["soil"] = -1
    assert checker.check(broken) == ["player 2: soil is -1, below its minimum 0"]
    broken = st.clone()
    broken.globals["game-over"] = 2
    assert checker.check(broken) == ["shared counters: game-over is 2, above its maximum 1"]
    broken = st.clone()
    broken.cards.append(broken.cards[0].clone())
    assert any("started with" in p for p in checker.check(broken))
    broken = st.clone()
    broken.live_triggers.append(cid)
    assert any("not in play" in p for p in checker.check(broken))
    broken = st.clone()
    broken.cards[cid].pieces["sprout"] = -2
    assert any("holds -2 sprout" in p for p in checker.check(broken))


@pytest.mark.slow
@pytest.mark.parametrize("pack_id", _pack_params())
def test_full_length_games(pack_id):
    """Whole games with the pack's own parameters, every player count (run with -m slow)."""
    pack = compile_pack(pack_id).pack
    # three whole games per player count keep `-m slow` within minutes (CARDSMITH_INVARIANT_GAMES mixes in more)
    jobs = _schedule(pack, 3 * (pack.players[1] - pack.players[0] + 1), [(1, {}, None)])
    played, _, failures = play_many(pack, jobs, rerun_every=1)
    assert not failures, "\n".join(failures[:10])
    assert played == len(jobs)
