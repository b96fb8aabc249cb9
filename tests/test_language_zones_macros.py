"""Whole zones ('pass every ZONE to left neighbour', 'swap ZONE and ZONE'), points scored during play ('score N
[for STEP]' with steps declared during-play), expression and filter macros (rules.yaml 'expressions:' and
'filters:') and several names as one macro argument ('hand or discard'): docs/language.rst."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.runtime.observation import Observation
from cardsmith.scenarios import scenario_game
from helpers import ROOT

BAZAAR = str(ROOT / "docs" / "drafting-pack")
ORCHARD = str(ROOT / "docs" / "example-pack")


def ids(game, zone: str, seat: int) -> list[str]:
    st = game.state
    return [game.pack.cards[st.cards[c].defn].id for c in st.zones[(zone, seat)] if c is not None]


# ------------------------------------------------------------------ whole zones


@pytest.mark.parametrize("to, expected", [("left", [[2], [0], [1]]), ("right", [[1], [2], [0]])])
def test_every_hand_goes_to_the_neighbour_at_once_in_its_order(to, expected):
    hands = [["ruby", "pepper"], ["saffron"], ["diamond", "green-tea", "silk-bolt"]]
    game = scenario_game(BAZAAR, {"players": 3, "do": f"pass every hand to {to} neighbour",
                                  "state": {"players": [{"zones": {"hand": h}} for h in hands]}})
    assert game.advance() is None
    assert [ids(game, "hand", s) for s in range(3)] == [hands[i] for [i] in expected]


def test_the_passer_knows_the_cards_it_passed_and_the_receiver_sees_them():
    game = scenario_game(BAZAAR, {"do": "pass every hand to left neighbour",
                                  "state": {"players": [{"zones": {"hand": ["ruby"]}},
                                                        {"zones": {"hand": ["pepper"]}}]}})
    game.advance()
    assert Observation(game, 0).zone("hand", 1) == {"count": 1, "known": ["ruby"]}
    assert Observation(game, 0).zone("hand", 0)["cards"][0][1] == "pepper"


def test_swap_trades_two_zones_of_two_players():
    game = scenario_game(BAZAAR, {"do": "choose a player other than you as rival: swap hand and hand of the rival",
                                  "state": {"players": [{"zones": {"hand": ["ruby", "pepper"]}},
                                                        {"zones": {"hand": ["saffron"]}}]}})
    assert game.advance() is None
    assert ids(game, "hand", 0) == ["saffron"] and ids(game, "hand", 1) == ["ruby", "pepper"]


def test_swap_trades_two_zones_of_one_player():
    mine = {"zones": {"hand": ["ruby"], "stall": ["pepper", "saffron"]}}
    game = scenario_game(BAZAAR, {"players": 2, "do": "swap hand and stall", "state": {"players": [mine]}})
    assert game.advance() is None
    assert ids(game, "hand", 0) == ["pepper", "saffron"] and ids(game, "stall", 0) == ["ruby"]


# ------------------------------------------------------------------ points during play


def test_orchard_scores_a_contract_when_it_is_met():
    """docs/example-pack: a contract's ladder points are scored during play into the step 'contracts', whose own
    program adds the contracts' rewards at the end; the points stay in that step's total."""
    game = scenario_game(ORCHARD, {"players": 2, "do": "check contracts", "score": True,
                                   "state": {"players": [{"zones": {"orchard": {"1,1": "red-apple", "1,2": "red-apple",
                                                                                "1,3": "red-apple"}}}],
                                             "shared": {"zones": {"contracts": ["apple-order"]}}}})
    while game.advance() is not None:
        game.decide(0)
    result = game.result()
    before = game.state.scores[0]
    assert before["contracts"] >= 6  # the first place on the ladder (contract-ladder: [6, 4, 2])
    assert result.steps[0]["contracts"] == before["contracts"] and result.totals[0] == sum(before.values())


def test_score_for_a_step_names_it():
    game = scenario_game(ORCHARD, {"players": 2, "do": "score 2 for contracts, score 1"})
    assert game.advance() is None
    assert game.state.scores[0] == {"contracts": 3}


# ------------------------------------------------------------------ expression and filter macros, name lists


def test_expression_and_filter_macros_stand_for_what_they_name():
    stall = ["silk-bolt", "pepper", "green-tea", "ruby", "saffron", "diamond"]
    program = "gain caravans coin, gain count(card in stall with precious) coin"
    game = scenario_game(BAZAAR, {"players": 2, "do": program, "state": {"players": [{"zones": {"stall": stall}}]}})
    assert game.advance() is None
    assert game.state.counters[0]["coin"] == 1 + 3  # one caravan; pepper, ruby and diamond are precious


def test_a_list_of_zones_fills_a_query():
    game = scenario_game(BAZAAR, {"players": 2, "do": "clear hand or stall",
                                  "state": {"players": [{"zones": {"hand": ["ruby"], "stall": ["pepper"]}}]}})
    assert game.advance() is None
    assert ids(game, "hand", 0) == [] and ids(game, "stall", 0) == [] and len(ids(game, "discard", -1)) == 2


def _pack_with(tmp_path: Path, edit) -> Path:
    folder = tmp_path / "bazaar"
    shutil.copytree(BAZAAR, folder)
    rules = folder / "rules.yaml"
    rules.write_text(edit(rules.read_text(encoding="utf-8")), encoding="utf-8")
    return folder


def _errors(folder: Path) -> list[tuple[str, str, int]]:
    res = compile_pack(folder)
    return [(d.code, d.message, d.span.line) for d in res.diagnostics.errors]


def test_expression_macros_that_name_each_other_are_refused(tmp_path):
    folder = _pack_with(tmp_path, lambda t: t.replace('  caravans: "sets(', '  loop-a: "loop-b + 1"\n'
                                                      '  loop-b: "loop-a"\n  caravans: "loop-a + sets('))
    assert any(c == "E106" and "expands into itself" in m for c, m, _ in _errors(folder))


def test_a_macro_name_must_be_new(tmp_path):
    folder = _pack_with(tmp_path, lambda t: t.replace('  caravans: "sets(', '  coin: "1"\n  caravans: "sets('))
    assert any(c == "E108" and "'coin' is declared both" in m for c, m, _ in _errors(folder))


def test_a_macro_of_the_wrong_kind_is_refused_where_it_is_used(tmp_path):
    folder = _pack_with(tmp_path, lambda t: t.replace('"clear $zones": "for each card in $zones: move it to discard"',
                                                      '"clear $zones": "for each card in $zones with caravans: move it '
                                                      'to discard, gain precious coin"'))
    codes = [(c, m) for c, m, _ in _errors(folder)]
    assert any(c == "E147" and "'caravans' is an expression macro" in m for c, m in codes), codes
    assert any(c == "E147" and "'precious' is a filter macro" in m for c, m in codes), codes


def test_a_list_of_names_where_one_name_goes_is_refused(tmp_path):
    folder = _pack_with(tmp_path, lambda t: t.replace("clear hand,", "clear hand, give hand or stall,").replace(
        '  "clear $zones": "for', '  "give $zone": "move 1 card from $zone to discard"\n  "clear $zones": "for'))
    codes = [(c, m) for c, m, _ in _errors(folder)]
    assert any(c == "E146" and "'hand or stall' is several names" in m and "stands for one zone" in m
               for c, m in codes), codes


def test_the_documentation_packs_scenarios_pass():
    """Bazaar's and Orchard's scenarios (the docs build runs them too, this is the quick way)."""
    from cardsmith.compiler.diagnostics import Diagnostics
    from cardsmith.scenarios import run_file, scenario_files

    files = scenario_files([ROOT / "docs" / name / "scenarios" for name in ("drafting-pack", "example-pack")])
    assert len(files) >= 2
    for path in files:
        diags = Diagnostics()
        outcomes = run_file(path, diags)
        assert not diags.items and outcomes
        assert all(o.passed for o in outcomes), [(o.name, o.problems) for o in outcomes if not o.passed]
