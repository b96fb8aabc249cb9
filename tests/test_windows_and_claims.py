"""Windows ("at any time") and claims ("as soon as"), docs/language.rst "Windows and claims".

A window is declared in rules.yaml and opened where the rules say `open window NAME`: the current player may
do what it offers, as often as they like, until they pass. A claim, `as soon as COND: BODY`, is checked after
every change to something its condition reads; it runs once per player (and card), the moment it holds, and
is kept even if the condition stops holding later."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from cardsmith.cli import main
from helpers import VMTEST, run_scenario


def pack_with(tmp_path: Path, extra: dict, cards: list | None = None) -> Path:
    """vmtest with more rules (and cards)."""
    pack = tmp_path / "vm"
    shutil.copytree(VMTEST, pack)
    rules = yaml.safe_load((pack / "rules.yaml").read_text())
    rules.update(extra)
    (pack / "rules.yaml").write_text(yaml.safe_dump(rules, sort_keys=False), encoding="utf-8")
    if cards:
        data = yaml.safe_load((pack / "cards.yaml").read_text())
        data["cards"] += cards
        (pack / "cards.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return pack


WINDOW = {"windows": {"any-time": {"options": ["if wood >= 2: lose 2 wood, gain 1 gold",
                                               "pay 1 gold: gain 3 vp"]}}}


def test_a_window_offers_what_can_happen_until_the_player_passes(tmp_path):
    pack = pack_with(tmp_path, WINDOW)
    out = run_scenario(tmp_path, {"do": "open window any-time, gain 1 heat", "players": 1,
                                  "state": {"players": [{"counters": {"wood": 4}}]},
                                  "decisions": ["if wood", "if wood", "pay 1 gold", "pass"],
                                  "expect": {"players": [{"counters": {"wood": 0, "gold": 1, "vp": 3}}],
                                             "shared": {"counters": {"heat": 1}}}}, pack=pack)
    assert out.passed, out.problems


def test_a_window_with_nothing_possible_asks_nothing(tmp_path):
    pack = pack_with(tmp_path, WINDOW)
    out = run_scenario(tmp_path, {"do": "open window any-time, gain 1 gold", "players": 1,
                                  "expect": {"players": [{"counters": {"gold": 1}}]}}, pack=pack)
    assert out.passed, out.problems
    assert not [e for e in out.game.events if e[0] == "decide"]


def test_a_window_during_another_players_turn(tmp_path):
    # the rules open it for each player in turn: each may act, the active one first
    pack = pack_with(tmp_path, WINDOW)
    out = run_scenario(tmp_path, {"do": "each player from active player: open window any-time", "players": 2,
                                  "active": 1, "state": {"players": [{"counters": {"gold": 1}}, {}]},
                                  "decisions": ["pay 1 gold"],
                                  "expect": {"players": [{"counters": {"vp": 3}}, {"counters": {"vp": 0}}]}},
                       pack=pack)
    assert out.passed, out.problems
    seats = [e[1] for e in out.game.events if e[0] == "decide"]
    # player 1 (active) had nothing to do and was not asked; player 0 acted, and then could do nothing more
    assert seats == [0]


CLAIM = {"as-soon-as": ["as soon as gold >= 5: gain 1 vp"]}


def test_a_claim_runs_the_moment_its_condition_holds_and_is_kept(tmp_path):
    # gold reaches 5 then drops back at once: the claim was made in between, and stays made
    pack = pack_with(tmp_path, CLAIM)
    out = run_scenario(tmp_path, {"do": "gain 5 gold, lose 3 gold, gain 3 gold", "players": 1,
                                  "expect": {"players": [{"counters": {"gold": 5, "vp": 1}}]}}, pack=pack)
    assert out.passed, out.problems
    assert [e[:2] for e in out.game.events if e[0] == "claim"] == [("claim", 0)]


def test_a_claim_checked_only_at_the_end_would_miss_it(tmp_path):
    pack = pack_with(tmp_path, CLAIM)
    out = run_scenario(tmp_path, {"do": "gain 5 gold, lose 1 gold", "players": 1,
                                  "expect": {"players": [{"counters": {"gold": 4, "vp": 1}}]}}, pack=pack)
    assert out.passed, out.problems


def test_claims_that_come_true_together_run_from_the_active_player(tmp_path):
    # a shared counter read by every player's claim: the active player (seat 1) claims first
    pack = pack_with(tmp_path, {"as-soon-as": ["as soon as heat >= 3: gain 1 vp, gain heat wood"]})
    out = run_scenario(tmp_path, {"do": "gain 3 heat", "players": 3, "active": 1,
                                  "expect": {"players": [{"counters": {"vp": 1}}, {"counters": {"vp": 1}},
                                                         {"counters": {"vp": 1}}]}}, pack=pack)
    assert out.passed, out.problems
    assert [e[1] for e in out.game.events if e[0] == "claim"] == [1, 2, 0]


def test_a_declared_order_from_the_first_player(tmp_path):
    pack = pack_with(tmp_path, {"as-soon-as": ["each player from first player: as soon as heat >= 3: gain 1 vp"]})
    out = run_scenario(tmp_path, {"do": "gain 3 heat", "players": 3, "active": 2}, pack=pack)
    assert [e[1] for e in out.game.events if e[0] == "claim"] == [0, 1, 2]


def test_a_claim_per_card_and_a_move_that_makes_it_true(tmp_path):
    # one claim per card of the query: each red card in the row, once; moves are changes too
    pack = pack_with(tmp_path, {"as-soon-as": ["as soon as count(card in row) >= 2 for each card in row with "
                                               "colour red: gain cost of it gold"]})
    out = run_scenario(tmp_path, {"do": "move 1 card from top of deck to row, move 1 card from top of deck to row,"
                                        " move 1 card from top of deck to row",
                                  "players": 1, "state": {"shared": {"zones": {"deck": ["red-a", "blue-a", "red-b"]}}},
                                  "expect": {"players": [{"counters": {"gold": 2 + 3}}]}}, pack=pack)
    assert out.passed, out.problems


def test_a_cards_own_claim_watches_its_owner(tmp_path):
    pack = pack_with(tmp_path, {}, cards=[{"id": "hoard", "name": "Hoard", "type": "unit",
                                           "abilities": {"ongoing": "as soon as gold >= 3: gain 2 wood"}}])
    out = run_scenario(tmp_path, {"do": "gain 3 gold, left neighbour: gain 3 gold", "players": 2,
                                  "state": {"players": [{"zones": {"row": ["hoard"]}}, {}]},
                                  "expect": {"players": [{"counters": {"wood": 2}}, {"counters": {"wood": 0}}]}},
                       pack=pack)
    assert out.passed, out.problems


@pytest.mark.parametrize("extra, setup, code, words", [
    (WINDOW, "open window anytime", "E101", "unknown window 'anytime'"),
    ({}, "as soon as gold >= 1: gain 1 vp", "E111", "'as soon as' sets up a claim"),
    ({"as-soon-as": ["gain 1 gold"]}, "nothing", "E111", "holds claims"),
    ({"as-soon-as": ["as soon as gold: gain 1 vp"]}, "nothing", "E102", "expected a condition"),
])
def test_misuse_is_located(tmp_path, extra, setup, code, words):
    pack = pack_with(tmp_path, {**extra, "setup": setup})
    r = CliRunner().invoke(main, ["validate", str(pack)])
    assert r.exit_code == 1, r.output
    assert f"error[{code}]" in r.output and words in r.output, r.output
    assert "rules.yaml:" in r.output
