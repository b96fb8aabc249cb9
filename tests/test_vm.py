"""The VM against hand-written Python for the same abilities (byterun style), and its limits."""

from __future__ import annotations

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.runtime.vm.ops_queries import _max_sets
from helpers import ROOT, VMTEST, run_scenario


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
    import cardsmith.runtime.vm.machine as machine

    monkeypatch.setattr(machine, "STEP_BUDGET", 10_000)
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
    from cardsmith.bytecode import CompiledPack, validate_code

    pack = compile_pack(VMTEST).pack
    again = CompiledPack.from_json(pack.to_json())
    assert again.to_json() == pack.to_json()
    for _, code in pack.codes():
        assert validate_code(code) == []


def test_hex_neighbours_and_where(tmp_path):
    # map rows 2,3,2: cells 0 1 / 2 3 4 / 5 6; the centre (3) touches all six others
    spaces = {"1,1": "s1", "1,2": "s2", "2,1": "s3", "2,2": "s4", "2,3": "s5", "3,1": "s6", "3,2": "s7"}
    out = run_scenario(tmp_path, {
        "do": "for each card in map where neighbours(card in map, it) = 6: gain vp of it gold, "
              "gain count(card in map where column of it = 1) wood",
        "players": 1, "state": {"shared": {"zones": {"map": spaces}}}})
    assert out.problems == []
    assert counters(out)["gold"] == 2  # only s4 has six neighbours
    assert counters(out)["wood"] == 3  # s1, s3, s6 are first in their rows


def test_from_geometry_matches_the_tharsis_board():
    import json

    from cardsmith.runtime.geometry import geometry

    ref = ROOT.parent / "shared" / "reference" / "terraforming-mars" / "tharsis_board.json"
    if not ref.exists():
        pytest.skip("reference data not present")
    data = json.loads(ref.read_text())
    g = geometry({"kind": "hex", "rows": [5, 6, 7, 8, 9, 8, 7, 6, 5]})
    ids = [s["id"] for s in data["spaces"]]
    for i, sid in enumerate(ids):
        assert sorted(g.neighbours[i]) == sorted(ids.index(x) for x in data["adjacency_list"][sid])


def test_occurrences_distinct_and_modulo(tmp_path):
    out = run_scenario(tmp_path, {
        "do": "gain occurrences(card in row, tag science) gold, gain distinct(card in row) wood, gain 7 % 3 vp",
        "players": 1, "state": {"players": [{"zones": {"row": ["lab", "probe", "lab"]}}]}})
    assert counters(out)["gold"] == 5 and counters(out)["wood"] == 2 and counters(out)["vp"] == 1


def test_occurrences_on_one_card_counts_a_repeated_value(tmp_path):
    # TM seed 003: a card with two science tags counts twice (Olympus Conference, Research)
    out = run_scenario(tmp_path, {
        "do": "for each card in row: gain occurrences(it, tag science) gold, "
              "(if occurrences(it, tag science or space) >= 2: gain 1 wood)",
        "players": 1, "state": {"players": [{"zones": {"row": ["lab", "probe", "red-a"]}}]}})
    assert counters(out)["gold"] == 2 + 1 + 0 and counters(out)["wood"] == 2


def test_event_with_an_object_fires_matching_triggers(tmp_path):
    out = run_scenario(tmp_path, {"do": "emit place city, emit place forest", "players": 2,
                                  "state": {"players": [{}, {"zones": {"row": ["announcer"]}}]}})
    assert out.game.state.counters[1]["gold"] == 1


def test_queries_over_every_opponent_and_pass_first(tmp_path):
    out = run_scenario(tmp_path, {
        "do": "gain count(card in row of each opponent) gold, gain count(card in row of all players) wood, "
              "pass first player to left neighbour",
        "players": 3, "state": {"players": [{"zones": {"row": ["lab"]}}, {"zones": {"row": ["lab", "probe"]}},
                                            {"zones": {"row": ["probe"]}}]}})
    assert counters(out)["gold"] == 3 and counters(out)["wood"] == 4
    assert out.game.state.first == 1


def test_reveal_names_the_card(tmp_path):
    out = run_scenario(tmp_path, {"do": "reveal 1 from deck: if it is colour blue: gain 3 gold", "players": 1,
                                  "state": {"shared": {"zones": {"deck": ["blue-a", "red-a"]}}}})
    assert counters(out)["gold"] == 3
    assert [c for c in out.game.vm.zone_cards("deck", -1)]  # revealing moves nothing


def test_for_each_from_right_to_left(tmp_path):
    out = run_scenario(tmp_path, {"do": "for each card in row from right to left: mark it tilted, emit seen",
                                  "players": 1, "state": {"players": [{"zones": {"row": ["red-a", "red-b", "lab"]}}]}})
    seen = [e[4] for e in out.game.events if e[0] == "emit"]
    assert seen == ["lab", "red-b", "red-a"]
