"""Whole Earth games: they end by the tableau rule, and the same seed gives the same game.

Seed 000 (ゲーム終了と得点計算): the game ends when a player completes a 4x4 tableau, after the
round finishes; the score is the sum of the nine scoring steps.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.runtime import Game
from cardsmith.runtime.simulate import simulate


@pytest.fixture(scope="module")
def earth():
    res = compile_pack("earth")
    assert res.ok, res.diagnostics.items
    return res.pack


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_games_end_by_the_tableau_rule(earth, players):
    results = simulate(earth, games=8, players=players, seed=100, agent_names=["random"])
    for r in results:
        assert not r.capped, f"seed {r.seed} hit the safety cap"
        # every game ends with someone's tableau complete, and all players had equal turns
        assert r.turns % players == 0
        assert sum(r.steps[s].get("completion", 0) for s in range(players)) in (0, 7)
        for s in range(players):
            assert r.totals[s] == sum(r.steps[s].values())


def test_a_completed_tableau_ends_the_game(earth):
    game = Game(earth, 3, seed=11)
    game.play()
    sizes = [len(game.vm.zone_cards("tableau", s)) for s in range(3)]
    assert max(sizes) == 16
    assert game.state.globals["game-over"] == 1


def test_simulate_json_is_byte_identical_across_runs():
    args = ["simulate", "earth", "--games", "5", "--players", "3", "--seed", "7", "--json", "--no-progress"]
    one = CliRunner().invoke(main, args)
    two = CliRunner().invoke(main, args)
    assert one.exit_code == 0, one.output
    assert one.stdout == two.stdout
    data = json.loads(one.stdout)
    assert data["summary"]["games"] == 5 and len(data["games"]) == 5


def test_greedy_agent_plays_a_game(earth):
    res = simulate(earth, games=1, players=2, seed=3, agent_names=["greedy", "random"])
    assert not res[0].capped


def test_played_events_count_as_played_in_statistics(earth):
    # Earth's events pile is `played: true`: an event resolved into it is a card its owner played,
    # though the pile is not in play (its abilities are not live there).
    results = simulate(earth, games=4, players=3, seed=7, agent_names=["random"])
    events = {c.id for c in earth.cards if c.type == "event"}
    played = {cid for r in results for seat in r.played for cid in seat}
    assert played & events, "no event counted as played in 4 games"
    assert not earth.zones["events"].get("in-play")
