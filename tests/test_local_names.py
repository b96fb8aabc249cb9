"""Local names (docs/language.rst, "Local names"): `let NAME = VALUE`, `choose ... as NAME`, `for each ... as
NAME`, `the NAME`, `other than it` and `the zone of CARD`. A program keeps its working values in names that
live as long as the program, never in a resource players could see."""

from __future__ import annotations

import pytest

from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.scenarios import run_file
from helpers import VMTEST, run_scenario


def counters(out, seat: int = 0) -> dict:
    return out.game.state.counters[seat]


def zone_ids(out, zone: str, seat: int = 0) -> list[str]:
    g = out.game
    return [g.pack.cards[g.state.cards[c].defn].id for c in g.state.zones[(zone, seat)] if c is not None]


def test_let_names_a_number_for_the_rest_of_the_group(tmp_path):
    out = run_scenario(tmp_path, {"do": "let n = count(card in hand) + 1, gain n gold, gain n * 2 wood",
                                  "players": 1, "state": {"players": [{"zones": {"hand": ["red-a", "red-b"]}}]}})
    assert out.passed, out.problems
    assert counters(out)["gold"] == 3 and counters(out)["wood"] == 6


def test_a_local_keeps_its_value_when_what_it_measured_changes(tmp_path):
    # the value is taken once, where 'let' stands: a later change of the hand does not change it
    out = run_scenario(tmp_path, {"do": "let before = count(card in hand), move 1 card from top of deck to hand, "
                                        "gain count(card in hand) - before gold", "players": 1,
                                  "state": {"players": [{"zones": {"hand": ["red-a"]}}],
                                            "shared": {"zones": {"deck": ["blue-a"]}}}})
    assert out.passed, out.problems
    assert counters(out)["gold"] == 1


def test_a_chosen_card_keeps_its_name_after_it_moves_on(tmp_path):
    # 'it' is rebound by the loop; 'the pick' still names the chosen card
    out = run_scenario(tmp_path, {
        "do": "choose a card in hand as pick: for each card in row: gain 1 wood, move the pick to row, "
              "gain cost of the pick gold",
        "players": 1, "decisions": [1],
        "state": {"players": [{"zones": {"hand": ["red-a", "red-b"], "row": ["blue-a"]}}]}})
    assert out.passed, out.problems
    assert zone_ids(out, "row") == ["blue-a", "red-b"]
    assert counters(out)["gold"] == 3 and counters(out)["wood"] == 1


def test_for_each_as_name_inside_a_nested_query(tmp_path):
    # 'the outer' is the card of the outer loop inside the inner query: cards cheaper than each card
    out = run_scenario(tmp_path, {
        "do": "for each card in hand as outer: gain count(card in hand with cost < cost of the outer) gold",
        "players": 1, "state": {"players": [{"zones": {"hand": ["blue-a", "red-a", "red-b"]}}]}})
    assert out.passed, out.problems
    assert counters(out)["gold"] == 0 + 1 + 2  # costs 1, 2, 3


def test_other_than_it_is_the_enclosing_candidate(tmp_path):
    # for each card: count the other red cards (not the card itself); inside the query, 'it' is still the
    # loop's card, the candidate being tested is what the filters look at
    out = run_scenario(tmp_path, {
        "do": "for each card in hand: gain count(card in hand with colour red and other than it) gold",
        "players": 1, "state": {"players": [{"zones": {"hand": ["red-a", "red-b", "blue-a"]}}]}})
    assert out.passed, out.problems
    assert counters(out)["gold"] == 1 + 1 + 2  # red-a sees red-b, red-b sees red-a, blue-a sees both


def test_other_than_the_named_card(tmp_path):
    out = run_scenario(tmp_path, {
        "do": "choose a card in hand as keep: for each card in hand with other than the keep: move it to discard",
        "players": 1, "decisions": [1],
        "state": {"players": [{"zones": {"hand": ["red-a", "red-b", "blue-a"]}}]}})
    assert out.passed, out.problems
    assert zone_ids(out, "hand") == ["red-b"]


def test_the_zone_of_a_card(tmp_path):
    # the cards that lie in the same zone as the chosen one, whichever zone that is
    out = run_scenario(tmp_path, {
        "do": "choose a card in hand or row as pick: gain count(card in the zone of the pick) gold",
        "players": 1, "decisions": [2],
        "state": {"players": [{"zones": {"hand": ["red-a"], "row": ["red-b", "blue-a"]}}]}})
    assert out.passed, out.problems
    assert counters(out)["gold"] == 2


def test_a_card_local_by_let(tmp_path):
    out = run_scenario(tmp_path, {
        "do": "for each card in hand with colour blue: let best = it, move the best to row", "players": 1,
        "state": {"players": [{"zones": {"hand": ["red-a", "blue-a"]}}]}})
    assert out.passed, out.problems
    assert zone_ids(out, "row") == ["blue-a"]


def _errors(tmp_path, program: str) -> list:
    f = tmp_path / "s.yaml"
    import yaml

    f.write_text(yaml.safe_dump({"pack": str(VMTEST), "scenarios": [{"name": "t", "do": program, "players": 1}]}),
                 encoding="utf-8")
    diags = Diagnostics()
    outs = run_file(f, diags)
    return [p for o in outs for p in o.problems] + [f"{d.code}: {d.message}" for d in diags.items]


@pytest.mark.parametrize("program, code, words", [
    ("let gold = 2", "E114", "already a resource"),
    ("let bonus = 2", "E114", "already a parameter"),
    ("let it = 2", "E114", "a word of the language"),
    ("gain n gold", "E101", "unknown name 'n'"),
    ("move the pick to row", "E101", "no card is named 'pick'"),
    ("let n = 2, move the n to row", "E102", "'n' is a number, not a card"),
    ("choose a card in hand as pick: gain pick gold", "E102", "say 'the pick'"),
    ("if gold > 0: let n = 1 else: nothing, gain n wood", "E101", "unknown name 'n'"),  # out of scope
    ("move 1 card from the zone of it to hand", "E102", "'the zone of a card' is for looking in"),
])
def test_misused_names_are_located_errors(tmp_path, program, code, words):
    problems = " ".join(_errors(tmp_path, program))
    assert f"error[{code}]" in problems or f"{code}:" in problems, problems
    assert words in problems, problems
