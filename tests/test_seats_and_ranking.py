"""Automa seats and declared rankings (docs/packs.rst, "Automa seats" and "Ranking").

An automa seat (rules.yaml `automa`) is not a decision-maker: it has zones, counters and a score, is an
opponent, and takes part in winners, places and statistics; it takes no turns. A `ranking` places the
seats by an ordered list of expressions instead of the total score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.runtime import Game
from helpers import ROOT, run_scenario

SEATS = ROOT / "tests" / "fixtures" / "packs" / "seats"


@pytest.fixture(scope="module")
def seats_pack():
    res = compile_pack(SEATS)
    assert res.ok, res.diagnostics.items
    return res.pack


def test_an_automa_seat_has_zones_counters_and_a_score(seats_pack):
    game = Game(seats_pack, 1, seed=3)
    result = game.play()
    st = game.state
    assert st.n == 1 and st.seats == 2
    assert st.counters[1]["gold"] == 6  # 'automa bot: gain 2 gold', three rounds
    assert len([c for c in st.zones[("pile", 1)] if c is not None]) == 3
    assert len(result.totals) == 2 and result.totals[1] == sum(result.steps[1].values())
    assert result.automa == ["bot"] and result.players == 1
    assert len(game.decisions) == 3  # the bot decided nothing: only the player's own choices were asked


def test_the_declared_ranking_places_seats(seats_pack):
    game = Game(seats_pack, 1, seed=3)
    game.play()
    # force the keys: the player reaches 5 gems, so it ranks first whatever the gold
    game.state.counters[0]["gem"] = 5
    game.phase = "scoring"
    game._next_phase()
    assert game.result().places == [1, 2] and game.result().winners == [0]


def test_ties_share_a_place(tmp_path):
    out = run_scenario(tmp_path, {"do": "gain 2 gold, automa bot: gain 2 gold", "players": 1, "score": True,
                                  "expect": {"places": [1, 1], "winners": [0, 1]}}, pack=SEATS)
    assert out.passed, out.problems


def test_ranking_reads_conditions_then_numbers(tmp_path):
    # gem >= 5 first; among those, gold; the others by gems (the bot has 3 gems, player 2 none)
    out = run_scenario(tmp_path, {
        "do": "gain 5 gem, gain 1 gold, left neighbour: gain 9 gold, automa bot: (gain 3 gem, gain 20 gold)",
        "players": 2, "score": True, "expect": {"places": [1, 3, 2], "winners": [0]}}, pack=SEATS)
    assert out.passed, out.problems


def test_each_opponent_includes_automa_seats_each_other_player_does_not(tmp_path):
    out = run_scenario(tmp_path, {"do": "(each opponent: gain 1 gem), each other player: gain 1 mark", "players": 2,
                                  "expect": {"players": [{"counters": {"gem": 0, "mark": 0}},
                                                         {"counters": {"gem": 1, "mark": 1}}],
                                             "automa": {"bot": {"counters": {"gem": 1, "mark": 0}}}}}, pack=SEATS)
    assert out.passed, out.problems


def test_a_player_can_target_an_automa_seat(tmp_path):
    out = run_scenario(tmp_path, {"do": "choose a player: gain 3 gem", "players": 1, "decisions": ["The Bot"],
                                  "expect": {"automa": {"bot": {"counters": {"gem": 3}}}}}, pack=SEATS)
    assert out.passed, out.problems
    # the decision is the active player's, and the automa seat is named in its labels
    labels = [e for e in out.game.events if e[0] == "decide"]
    assert labels and labels[0][1] == 0


def test_a_choice_that_comes_up_for_an_automa_seat_is_the_active_players(tmp_path):
    out = run_scenario(tmp_path, {
        "do": "automa bot: choose one: gain 1 gem | gain 2 gem", "players": 2, "active": 1, "decisions": [1],
        "expect": {"automa": {"bot": {"counters": {"gem": 2}}}}}, pack=SEATS)
    assert out.passed, out.problems
    decide = [e for e in out.game.events if e[0] == "decide"]
    assert decide[0][1] == 1  # asked of the active player, seat 1


def test_scenario_states_describe_automa_seats(tmp_path):
    out = run_scenario(tmp_path, {
        "do": "gain count(card in pile of each opponent) gold", "players": 1,
        "state": {"automa": {"bot": {"zones": {"pile": ["penny", "crown"]}}}},
        "expect": {"players": [{"counters": {"gold": 2}}]}}, pack=SEATS)
    assert out.passed, out.problems


def test_simulate_reports_the_automa_seat(tmp_path):
    r = CliRunner().invoke(main, ["simulate", str(SEATS), "-n", "10", "-p", "1", "--json", "--no-progress"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    seats = data["summary"]["seats"]
    assert [s.get("automa") for s in seats] == [None, "bot"]
    assert sum(s["win_rate"] for s in seats) == pytest.approx(1.0)
    assert all(len(g["places"]) == 2 for g in data["games"])


@pytest.mark.parametrize("rules_extra, program, code, words", [
    ({}, "automa robot: gain 1 gold", "E101", "unknown automa seat 'robot'"),
    ({}, "pass first player to automa bot", "E102", "not to an automa seat"),
    ({}, "each player from automa bot: gain 1 gold", "E102", "cannot start with it"),
    ({"ranking": ["gold", "(if gold > 1 then gold else gem > 0)"]}, "nothing", "E102", "same kind of value"),
])
def test_misuse_is_located(tmp_path, rules_extra, program, code, words):
    pack = tmp_path / "seats"
    import shutil

    shutil.copytree(SEATS, pack)
    rules = yaml.safe_load((pack / "rules.yaml").read_text())
    rules.update(rules_extra)
    if program != "nothing":
        rules["setup"] = program
    (pack / "rules.yaml").write_text(yaml.safe_dump(rules), encoding="utf-8")
    r = CliRunner().invoke(main, ["validate", str(pack)])
    assert r.exit_code == 1, r.output
    assert f"error[{code}]" in r.output and words in r.output, r.output
    assert "rules.yaml:" in r.output


def test_a_pack_without_automa_or_ranking_places_by_total_then_tiebreakers():
    pack = compile_pack("earth").pack
    assert pack.automa == [] and pack.ranking == []
    result = Game(pack, 2, seed=4).play()
    keys = [(result.totals[s], *result.tiebreaks[s]) for s in range(2)]
    assert result.winners == [s for s in range(2) if keys[s] == max(keys)]
    assert result.places == [1 if s in result.winners else 2 for s in range(2)]


def test_the_fixture_pack_is_data_only():
    assert not [p for p in Path(SEATS).rglob("*") if p.suffix == ".py"]
