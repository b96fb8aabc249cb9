"""The scenario format never passes silently, and says what rule tests need (issue 15).

A `do` line that does not compile and a name in `state` or `expect` the pack does not declare fail the
scenario at their line and column; a malformed state is a located error, never a Python exception. And a
scenario can assert the options a decision offers, set and check the first player, address one copy of a
repeated card, give pieces an owner, and check the state at a checkpoint between steps of `do`. Every
scenario here runs against Orchard, the documentation's example pack.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.scenarios import run_file
from helpers import ROOT

ORCHARD = ROOT / "docs" / "example-pack"


def run(tmp_path: Path, body: str) -> list:
    """The outcomes of one scenario file (`body`: its scenarios, indented under `scenarios:`)."""
    path = tmp_path / "s.yaml"
    path.write_text(f"pack: {ORCHARD}\nscenarios:\n{body}", encoding="utf-8")
    diags = Diagnostics()
    outcomes = run_file(path, diags)
    assert not diags.items, [str(d) for d in diags.items]
    return outcomes


def one(tmp_path: Path, body: str):
    outcomes = run(tmp_path, body)
    assert len(outcomes) == 1
    return outcomes[0]


def located(problems: list[str], line: int, col: int, code: str) -> str:
    """The problem reported at s.yaml:line:col with `code`, or a failed assertion listing them all."""
    for p in problems:
        if re.match(rf".*s\.yaml:{line}:{col}: error\[{code}\]", p):
            return p
    raise AssertionError(f"nothing at {line}:{col} [{code}] in:\n" + "\n".join(problems))


# ---------------------------------------------------------------------------- never passes silently


def test_a_do_line_calling_a_macro_with_wrong_words_fails_at_the_line(tmp_path):
    o = one(tmp_path, '  - name: wrong words\n    do: "draw 1 2"\n')
    assert not o.passed
    assert "does not take these words" in located(o.problems, 4, 10, "E104")


def test_a_do_step_with_an_unknown_name_fails_at_its_line(tmp_path):
    o = one(tmp_path, '  - name: unknown\n    do:\n      - "gain 1 coin"\n      - "gian 1 coin"\n')
    assert not o.passed
    located(o.problems, 6, 10, "E101")


@pytest.mark.parametrize("expect, line, col, message, hint", [
    ("players:\n        - counters: {coim: 4}", 8, 22, "unknown resource 'coim'", "did you mean 'coin'?"),
    ("shared:\n        counters: {rnd: 0}", 8, 20, "unknown shared counter 'rnd'", None),
    ("players:\n        - zones: {hnad: []}", 8, 19, "unknown zone 'hnad'", "did you mean 'hand'?"),
    ("players:\n        - pieces: {red-apple: {friut: 1}}", 8, 32, "unknown piece 'friut'", "did you mean 'fruit'?"),
    ("players:\n        - flags: {red-apple: [rip]}", 8, 31, "unknown flag 'rip'", "did you mean 'ripe'?"),
    ("players:\n        - score-steps: {frut: 1}", 8, 25, "unknown scoring step 'frut'", "did you mean 'fruit'?"),
    ("players:\n        - zones: {orchard: {'1,1': red-aple}}", 8, 36, "no card 'red-aple'", "did you mean"),
])
def test_a_misspelt_name_in_expect_is_an_error_not_a_zero(tmp_path, expect, line, col, message, hint):
    o = one(tmp_path, "  - name: misspelt\n    do: \"nothing\"\n    state: {players: [{zones: {orchard: "
                      "{'1,1': red-apple}}}]}\n    expect:\n      " + expect + "\n")
    assert not o.passed
    p = located(o.problems, line, col, "E101")
    assert message in p and (hint is None or hint in p), p


def test_a_misspelt_name_in_state_is_an_error(tmp_path):
    o = one(tmp_path, "  - name: misspelt\n    do: \"nothing\"\n    state:\n      players:\n"
                      "        - counters: {watr: 2}\n")
    assert "did you mean 'water'?" in located(o.problems, 7, 22, "E101")


def test_a_players_zone_under_shared_is_a_located_error(tmp_path):
    """It was a KeyError ('hand', -1) out of build_state."""
    o = one(tmp_path, "  - name: misplaced\n    do: \"nothing\"\n    state:\n      shared:\n"
                      "        zones: {hand: [red-apple]}\n")
    assert "belongs to each player" in located(o.problems, 7, 17, "E160")


@pytest.mark.parametrize("state, line, col, message", [
    ("players:\n        - zones: {market: [red-apple]}", 7, 19, "shared: describe it under 'shared'"),
    ("players:\n        - zones: {hand: {'1,1': red-apple}}", 7, 25, "list the card ids"),
    ("players:\n        - zones: {orchard: [red-apple]}", 7, 28, "'row,col'"),
    ("players:\n        - zones: {orchard: {'9,9': red-apple}}", 7, 29, "not on the board"),
    ("players:\n        - {}\n        - {}\n        - {}", 9, 11, "describes 3 players"),
    ("players:\n        - zones: {hand: [red-apple]}\n          pieces: {red-apple#2: {fruit: 1}}", 8, 20,
     "1 copy of 'red-apple'"),
    ("shared:\n        zones: {contracts: [apple-order]}\n        pieces: {apple-order: {worker: {owner: 5}}}",
     8, 48, "owner 5 is not a seat"),
])
def test_every_malformed_state_is_a_located_error(tmp_path, state, line, col, message):
    o = one(tmp_path, "  - name: malformed\n    do: \"nothing\"\n    state:\n      " + state + "\n")
    assert not o.passed
    p = next((p for p in o.problems if f"s.yaml:{line}:{col}:" in p), None)
    assert p is not None and message in p, o.problems


def test_a_first_player_that_does_not_exist_is_located(tmp_path):
    o = one(tmp_path, "  - name: first\n    players: 2\n    first: 2\n    do: \"nothing\"\n")
    assert "does not exist with 2 players" in located(o.problems, 5, 12, "E160")


# ---------------------------------------------------------------------------- what the format can say


def test_offered_and_not_offered_options_of_a_decision(tmp_path):
    body = """  - name: which trees can be planted
    do: "plant a tree"
    state:
      players:
        - counters: {coin: 3}
          zones: {hand: [red-apple, old-pear, plum-row]}
    decisions:
      - {answer: "Red Apple", offered: ["Red Apple (red-apple)", "Plum Row"], not-offered: ["Old Pear"]}
      - "row 1, column 1"
    expect:
      players:
        - zones: {hand: [old-pear, plum-row]}
"""
    o = one(tmp_path, body)
    assert o.passed, o.problems
    wrong = body.replace('offered: ["Red Apple (red-apple)", "Plum Row"], not-offered: ["Old Pear"]',
                         'offered: ["Old Pear"], not-offered: ["Plum Row"]')
    o = one(tmp_path, wrong)
    assert not o.passed
    assert "'Old Pear' is not offered" in located_plain(o.problems, 10, 41)
    assert "'Plum Row' is offered" in located_plain(o.problems, 10, 68)


def located_plain(problems: list[str], line: int, col: int) -> str:
    p = next((p for p in problems if f"s.yaml:{line}:{col}:" in p), None)
    assert p is not None, problems
    return p


def test_the_first_player_is_set_and_expected(tmp_path):
    body = """  - name: the marker moves on from its holder
    players: 3
    first: 2
    do: "pass first player to left neighbour"
    expect: {first: 0}
"""
    assert one(tmp_path, body).passed
    o = one(tmp_path, body.replace("first: 0", "first: 1"))
    assert "first player: expected player 1, got player 0" in o.problems


def test_one_copy_of_a_repeated_card_is_addressed_by_its_number(tmp_path):
    """`red-apple#2` is the second red apple the state lists under the player, wherever it goes."""
    body = """  - name: the second copy
    do: "for each card in orchard with ripe: move it to compost"
    state:
      players:
        - zones: {orchard: {'1,1': red-apple, '1,2': red-apple, '1,3': red-apple}}
          pieces: {red-apple#2: {fruit: 1}}
          flags: {red-apple#3: [ripe]}
    expect:
      players:
        - zones: {orchard: {'1,1': red-apple, '1,2': red-apple}, compost: [red-apple]}
          pieces: {red-apple#2: {fruit: 1}, red-apple#1: {fruit: 0}, red-apple#3: {fruit: 0}}
          flags: {red-apple#3: [ripe], red-apple#1: []}
"""
    o = one(tmp_path, body)
    assert o.passed, o.problems
    st = o.game.state
    fruit = [c.pieces.get("fruit", 0) for c in st.cards]
    assert fruit == [0, 1, 0]
    o = one(tmp_path, body.replace("red-apple#2: {fruit: 1}, red-apple#1", "red-apple#1: {fruit: 1}, red-apple#2"))
    assert "player 0 red-apple#1 fruit: expected 1, got 0" in o.problems


def test_pieces_have_owners_in_state_and_in_expect_shared(tmp_path):
    """Seat 1's worker on a shared contract: the contract's reward (worker of yours on this) pays seat 1."""
    body = """  - name: a worker of seat 1 on a shared contract
    do: "each player: activate reward ability of each card in contracts"
    score: false
    state:
      players:
        - {}
        - zones: {orchard: {'1,1': red-apple}}
          pieces: {red-apple: {fruit: 2}}
      shared:
        zones: {contracts: [apple-order]}
        pieces: {apple-order: {worker: {count: 1, owner: 1}}}
    expect:
      shared:
        pieces: {apple-order: {worker: {count: 1, owner: 1}}}
"""
    o = one(tmp_path, body.replace("    score: false\n", ""))
    assert o.passed, o.problems
    assert o.game.state.cards[1].pieces == {"worker": 1, "worker@1": 1}
    o = one(tmp_path, body.replace("    score: false\n", "").replace("count: 1, owner: 1}}}\n\"\"\"", "")
            .replace("expect:\n      shared:\n        pieces: {apple-order: {worker: {count: 1, owner: 1}}}",
                     "expect:\n      shared:\n        pieces: {apple-order: {worker: {count: 1, owner: 0}}}"))
    assert "shared apple-order worker: expected owned by player 0 (1), got player 1 (1)" in o.problems


def test_owned_pieces_score_for_their_owner(tmp_path):
    body = """  - name: the reward of a contract counts for the worker's owner
    do: "nothing"
    score: true
    state:
      players:
        - zones: {orchard: {'1,1': red-apple}}
          pieces: {red-apple: {fruit: 2}}
        - zones: {orchard: {'1,1': red-apple}}
          pieces: {red-apple: {fruit: 2}}
      shared:
        zones: {contracts: [apple-order]}
        pieces: {apple-order: {worker: {owner: 1}}}
    expect:
      players:
        - score-steps: {contracts: 0}
        - score-steps: {contracts: 2}
"""
    o = one(tmp_path, body)
    assert o.passed, o.problems


def test_checkpoints_between_steps_by_index_and_by_name(tmp_path):
    body = """  - name: coins at each step
    do:
      - "gain 1 coin"
      - {name: second, do: "gain 2 coin"}
      - "lose 4 coin"
    checkpoints:
      - {after: 0, expect: {players: [{counters: {coin: 4}}]}}
      - {after: second, expect: {players: [{counters: {coin: 6}}]}}
    expect:
      players:
        - counters: {coin: 2}
"""
    o = one(tmp_path, body)
    assert o.passed, o.problems
    o = one(tmp_path, body.replace("coin: 6", "coin: 7"))
    assert o.problems == ["after step second: player 0 coin: expected 7, got 6"]
    o = one(tmp_path, body.replace("after: second", "after: secnd"))
    assert "did you mean 'second'?" in located(o.problems, 10, 17, "E101")
    o = one(tmp_path, body.replace("after: 0", "after: 3"))
    assert "there is no step 3" in located(o.problems, 9, 17, "E160")
    o = one(tmp_path, body.replace("counters: {coin: 6}", "counters: {coim: 6}"))
    assert "did you mean 'coin'?" in located(o.problems, 10, 56, "E101")


def test_a_checkpoint_decision_count_and_answers_span_the_steps(tmp_path):
    body = """  - name: decisions run across steps
    do:
      - "may gain 1 coin"
      - "may gain 1 water"
    decisions: ["yes", "no"]
    checkpoints:
      - {after: 0, expect: {players: [{counters: {coin: 4, water: 0}}]}}
    expect:
      players:
        - counters: {coin: 4, water: 0}
"""
    o = one(tmp_path, body)
    assert o.passed, o.problems
