"""Earth's Gaia solo mode (pack earth-gaia): the pack compiles, is data only, ships an original
Gaia deck, and whole seeded solo games at each difficulty end by the rules (the Gaia deck running
out a second time, or the player's complete tableau), not by the safety cap; the same seed gives
the same game. Gaia is an automa seat (seat 1): it has its own counters and score and is ranked
with the player, so the player's win rate is a real figure.

Rules: shared/seeds/000_067930325eb8469c.txt, ソロモード. The rule scenarios are data in
cards/earth-gaia/scenarios/ (`cardsmith test cards/earth-gaia`).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import render_text
from cardsmith.runtime import Game
from cardsmith.runtime.agents import make_agent

DIFFICULTIES = [1, 2, 3, 4]  # beginner, medium, hard, expert


@pytest.fixture(scope="module")
def gaia():
    res = compile_pack("earth-gaia")
    assert res.ok, render_text(res.diagnostics.items)
    assert not res.diagnostics.items, render_text(res.diagnostics.items)
    return res.pack


def play(pack, seed, difficulty):
    game = Game(pack, 1, seed, [make_agent("random", seed * 7919)], params={"difficulty": difficulty})
    return game, game.play()


def test_one_player_and_an_original_gaia_deck(gaia):
    assert gaia.players == (1, 1)
    deck = [c for c in gaia.cards if c.type == "gaia"]
    assert len(deck) == 6 and sum(c.copies for c in deck) == 6
    assert all(c.original for c in deck)
    # a bottom effect of its own, or one that mirrors what you gained (the rules do it: trait 'mirrors')
    assert all("gaia-bottom" in c.abilities or c.traits.get("mirrors") for c in deck)
    assert all("gaia-beginner" in c.abilities and "gaia-expert" in c.abilities for c in deck)
    assert sum(1 for c in deck if "gaia-top" in c.abilities) == 5  # the fauna card has no top effect


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_solo_games_end_by_the_rules(gaia, difficulty):
    for seed in range(1, 9):
        game, result = play(gaia, seed, difficulty)
        assert not result.capped, f"seed {seed} hit the safety cap"
        g = game.state.globals
        gaia_counters = game.state.counters[1]
        assert g["game-over"] == 1
        tableau = len(game.vm.zone_cards("tableau", 0))
        if tableau < 16:
            # Gaia's deck ran out twice: 12 Gaia turns, one after each of the player's 12 turns,
            # and Gaia took the bonus for ending the game
            assert g["gaia-reshuffled"] == 1 and gaia_counters["completion-vp"] == 7
            assert result.turns == 12
        else:
            assert gaia_counters["completion-vp"] == 0
        # Gaia is the second seat: scored, ranked, and never a decision-maker
        assert result.automa == ["gaia"] and len(result.totals) == 2
        assert result.totals[1] == sum(result.steps[1].values()) > 0
        assert all(seat == 0 for seat, *_ in game.decisions)


def test_difficulty_changes_what_gaia_gains(gaia):
    """The lower action spaces (hard, expert) give Gaia more than the upper ones (beginner, medium)."""
    def mean_gaia(difficulty):
        return sum(play(gaia, s, difficulty)[1].totals[1] for s in range(1, 13)) / 12

    assert mean_gaia(3) > mean_gaia(2)
    assert mean_gaia(4) > mean_gaia(1)


def test_simulate_json_repeats_identically():
    args = ["simulate", "earth-gaia", "--games", "5", "--players", "1", "--seed", "1", "--param",
            "difficulty=4", "--json", "--no-progress"]
    one = CliRunner().invoke(main, args)
    two = CliRunner().invoke(main, args)
    assert one.exit_code == 0, one.output
    assert one.stdout == two.stdout
    data = json.loads(one.stdout)
    assert data["summary"]["capped"] == 0
    # the player's win rate against Gaia is reported for the player's seat, and Gaia's for its own
    seats = data["summary"]["seats"]
    assert [s.get("automa") for s in seats] == [None, "gaia"]
    assert 0 <= seats[0]["win_rate"] <= 1 and seats[0]["win_rate"] + seats[1]["win_rate"] >= 1
