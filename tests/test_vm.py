"""The VM against hand-written Python for the same abilities (byterun style), and its limits."""

from __future__ import annotations

import pytest
from cardsmith.compiler import compile_pack
from cardsmith.runtime.vm import _max_sets
from helpers import VMTEST, run_scenario


def counters(out, seat=0):
    return out.game.state.counters[seat]


def test_gain_respects_floors_and_caps(tmp_path):
    out = run_scenario(tmp_path, {"do": "gain 3 gold, lose 5 gold, lose 9 debt, gain 15 heat", "players": 1})
    assert out.problems == []
    # hand-written: gold floors at 0, debt at its declared min -5, heat caps at its max 10
    gold = max(0 + 3 - 5, 0)
    debt = max(0 - 9, -5)
    assert counters(out)["gold"] == gold == 0
    assert counters(out)["debt"] == debt == -5
    assert out.game.state.globals["heat"] == 10


def test_cost_is_paid_in_full_or_nothing_happens(tmp_path):
    # Earth's negative costs (seed 000, 効果の発動): pay in full, or the reward does not happen.
    poor = run_scenario(tmp_path, {"do": "pay 3 gold: gain 5 vp", "players": 1,
                                   "state": {"players": [{"counters": {"gold": 2}}]}})
    assert counters(poor)["gold"] == 2 and counters(poor)["vp"] == 0
    rich = run_scenario(tmp_path, {"do": "pay 3 gold: gain 5 vp", "players": 1,
                                   "state": {"players": [{"counters": {"gold": 4}}]}})
    assert counters(rich)["gold"] == 1 and counters(rich)["vp"] == 5


def test_per_scaling_matches_python(tmp_path):
    row = ["red-a", "red-b", "blue-a", "red-a", "green-a"]
    out = run_scenario(tmp_path, {"do": "gain 2 wood per 2 card in row with colour red", "players": 1,
                                  "state": {"players": [{"zones": {"row": row}}]}})
    reds = sum(1 for c in row if c.startswith("red"))
    assert counters(out)["wood"] == 2 * (reds // 2)


def test_choice_and_may_follow_the_script(tmp_path):
    out = run_scenario(tmp_path, {"do": "choose one: gain 1 gold | gain 2 wood, may gain 3 vp", "players": 1,
                                  "decisions": ["gain 2 wood", "yes"]})
    assert out.problems == []
    assert counters(out)["wood"] == 2 and counters(out)["vp"] == 3 and counters(out)["gold"] == 0


def test_for_each_and_modifiers(tmp_path):
    # a continuous modifier in play lowers the cost of red cards for its owner only
    out = run_scenario(tmp_path, {
        "do": "for each card in hand: gain cost of it gold", "players": 2,
        "state": {"players": [{"zones": {"hand": ["red-a", "red-b", "blue-a"], "row": ["green-a"]}},
                              {"zones": {"hand": ["red-a"]}}]}})
    assert counters(out, 0)["gold"] == (2 - 1) + (3 - 1) + 1


def test_trigger_runs_when_its_event_happens(tmp_path):
    out = run_scenario(tmp_path, {"do": "gain 2 wood, gain 1 gold", "players": 1,
                                  "state": {"players": [{"zones": {"row": ["green-b"]}}]}})
    assert counters(out)["wood"] == 2 and counters(out)["gold"] == 2


def test_trigger_storm_is_stopped_with_the_cards_named(tmp_path):
    out = run_scenario(tmp_path, {"do": "emit ping", "players": 1,
                                  "state": {"players": [{"zones": {"row": ["ping", "pong"]}}]}})
    assert not out.passed
    assert "triggers set each other off" in out.problems[0]
    assert "ping" in out.problems[0] and "cards.yaml" in out.problems[0]


def test_runaway_loop_is_stopped_by_the_step_budget(tmp_path, monkeypatch):
    import cardsmith.runtime.vm as vm

    monkeypatch.setattr(vm, "STEP_BUDGET", 10_000)
    out = run_scenario(tmp_path, {"do": "repeat while true: gain 1 gold", "players": 1})
    assert not out.passed and "step budget" in out.problems[0]


def test_activation_runs_a_row_from_the_right(tmp_path):
    # Birdscaping-style order declared as data: direction reverse (seed 004, エリアを１つ起動する)
    out = run_scenario(tmp_path, {"do": "activate act abilities", "players": 1,
                                  "state": {"players": [{"zones": {"row": ["red-a", "red-b"]}}]}})
    acts = [e for e in out.game.events if e[0] == "activate"]
    assert [a[2] for a in acts] == ["red-b", "red-a"]
    assert counters(out)["gold"] == 1 and counters(out)["wood"] == 2  # 'any' matches 'act'


def test_pieces_fill_to_capacity_and_run_when_full(tmp_path):
    out = run_scenario(tmp_path, {"do": "place 5 token on each card in row", "players": 1,
                                  "state": {"players": [{"zones": {"row": ["red-a", "red-b"]}}]},
                                  "expect": {"players": [{"pieces": {"red-a": {"token": 2}, "red-b": {"token": 1}},
                                                          "flags": {"red-a": ["full"], "red-b": ["full"]}}]}})
    assert out.problems == []


def test_grid_placement_is_adjacent_after_the_first_card(tmp_path):
    out = run_scenario(tmp_path, {"do": "move 2 card from top of deck to board", "players": 1,
                                  "decisions": ["row 2, column 2", "row 1, column 2"],
                                  "state": {"shared": {"zones": {"deck": ["red-a", "blue-a"]}}},
                                  "expect": {"players": [{"zones": {"board": {"2,2": "red-a", "1,2": "blue-a"}}}]}})
    assert out.problems == []
    # after the first card only its orthogonal neighbours are legal: a far corner is refused
    far = run_scenario(tmp_path, {"do": "move 2 card from top of deck to board", "players": 1,
                                  "decisions": ["row 2, column 2", "row 3, column 3"],
                                  "state": {"shared": {"zones": {"deck": ["red-a", "blue-a"]}}}})
    assert not far.passed and "is not an option" in far.problems[0]


def test_deck_refills_from_discard_when_empty(tmp_path):
    out = run_scenario(tmp_path, {"do": "draw 3", "players": 1,
                                  "state": {"shared": {"zones": {"deck": ["red-a"], "discard": ["red-b", "blue-a"]}}},
                                  "expect": {"players": [{"zones": {"hand": {"count": 3}}}],
                                             "shared": {"zones": {"deck": [], "discard": []}}}})
    assert out.problems == []


def test_condition_and_nth(tmp_path):
    out = run_scenario(tmp_path, {"do": "for each card in row: if goal of it: gain nth(ladder, 1) vp",
                                  "players": 1,
                                  "state": {"players": [{"counters": {"gold": 3}, "zones": {"row": ["goal-a"]}}]}})
    assert counters(out)["vp"] == 6


@pytest.mark.parametrize(("fits", "slots", "want"), [
    ([[0], [1], [0], [1]], 2, 2),
    ([[0, 1], [0], [1]], 2, 1),        # the two-slot card can only be used once
    ([[0, 1, 2], [0], [1], [2]], 3, 1),
    ([[0, 1], [0, 1], [0, 1], [0, 1]], 2, 2),
    ([], 2, 0),
])
def test_sets_count_each_card_once(fits, slots, want):
    assert _max_sets(fits, slots) == want


def test_scoring_steps_sum_to_the_total(tmp_path):
    out = run_scenario(tmp_path, {"do": "gain 4 vp", "players": 1, "score": True,
                                  "state": {"players": [{"zones": {"row": ["blue-b", "blue-a"]}}]},
                                  "expect": {"players": [{"score": 4 + 2 * 2, "score-steps": {"vp": 4, "cards": 4}}]}})
    assert out.problems == []


def test_compiled_pack_round_trips_through_json():
    from cardsmith.compiler.bytecode import CompiledPack, validate_code

    pack = compile_pack(VMTEST).pack
    again = CompiledPack.from_json(pack.to_json())
    assert again.to_json() == pack.to_json()
    for _, code in pack.codes():
        assert validate_code(code) == []
