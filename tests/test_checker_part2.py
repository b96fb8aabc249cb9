"""Language defects of issue 15 that gave a wrong game without a word: each a behaviour a reader of the card
expects, run against Orchard (the documentation's example pack) through the scenario runner.

The diagnostics of the checker part of the issue are fixtures under tests/fixtures/invalid/ (E100 of a macro
variant, E101 did-you-mean with whole signatures, E150, E151, ...); these are the fixes that change what
a program does.
"""

from __future__ import annotations

from pathlib import Path

from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.scenarios import run_file
from helpers import ROOT

ORCHARD = ROOT / "docs" / "example-pack"


def scenario(tmp_path: Path, body: str):
    path = tmp_path / "s.yaml"
    path.write_text(f"pack: {ORCHARD}\nscenarios:\n{body}", encoding="utf-8")
    diags = Diagnostics()
    outcomes = run_file(path, diags)
    assert not diags.items, [str(d) for d in diags.items]
    assert len(outcomes) == 1
    return outcomes[0]


HAND = "    state: {players: [{zones: {hand: [red-apple, old-pear, plum-row]}}]}\n"  # costs 2, 4 and 3


def test_a_chosen_x_reads_as_chosen_in_a_card_filter(tmp_path):
    """`count(card in hand with cost = X)` read X as 0 (the filter runs as a code of its own)."""
    o = scenario(tmp_path, '  - name: x in a filter\n    do: "choose X from 1 to 4, gain count(card in hand with '
                           'cost = X) water"\n    decisions: ["3"]\n' + HAND +
                 "    expect: {players: [{counters: {water: 1}}]}\n")
    assert o.passed, o.problems


def test_a_chosen_x_reads_as_chosen_in_a_where_condition(tmp_path):
    o = scenario(tmp_path, '  - name: x in where\n    do: "choose X from 1 to 4, gain count(card in hand where '
                           'cost of it >= X) water"\n    decisions: ["3"]\n' + HAND +
                 "    expect: {players: [{counters: {water: 2}}]}\n")
    assert o.passed, o.problems


def test_the_x_of_an_x_cost_reads_as_paid_in_a_filter(tmp_path):
    o = scenario(tmp_path, '  - name: x cost in a filter\n    do: "pay X coin: move all card from hand with cost = X '
                           'to compost"\n    decisions: ["2"]\n' + HAND +
                 "    expect: {players: [{counters: {coin: 1}, zones: {hand: [old-pear, plum-row], "
                 "compost: [red-apple]}}]}\n")
    assert o.passed, o.problems


def test_choose_x_from_an_empty_range_skips_the_rest_of_the_group(tmp_path):
    """`choose X from 1 to 0` silently gave 1 (here: a free water for an empty hand)."""
    o = scenario(tmp_path, '  - name: empty range\n    do: "(choose X from 1 to count(card in hand), gain X water, '
                           'gain 1 coin), gain 1 water"\n'
                 "    expect: {players: [{counters: {water: 1, coin: 3}}]}\n")
    assert o.passed, o.problems


def test_a_cost_with_x_after_x_is_chosen_pays_that_x(tmp_path):
    """A second cost with X ('spend X' in a macro, say) asked for X again and overwrote the card's own."""
    o = scenario(tmp_path, '  - name: spend X\n    do: "choose X from 0 to 2, pay X water, gain X coin"\n'
                           '    decisions: ["2"]\n'
                 "    state: {players: [{counters: {water: 3}}]}\n"
                 "    expect: {players: [{counters: {water: 1, coin: 5}}]}\n")
    assert o.passed, o.problems
    o = scenario(tmp_path, '  - name: pay X then pay X\n    do: "pay X water: gain X coin, pay X water"\n'
                           '    decisions: ["2"]\n'
                 "    state: {players: [{counters: {water: 5}}]}\n"
                 "    expect: {players: [{counters: {water: 1, coin: 5}}]}\n")
    assert o.passed, o.problems


def test_it_in_a_piece_amount_is_the_card_it_means_before_the_statement(tmp_path):
    """`place occurrences(it, ...) ... on each card ...` counted the card the pieces go on, not the loop's."""
    o = scenario(tmp_path, '  - name: it in an amount\n    do: "for each card in hand: place occurrences(it, fruit '
                           'pear) fruit on each card in orchard"\n'
                 "    state: {players: [{zones: {hand: [old-pear], orchard: {'1,1': red-apple}}}]}\n"
                 "    expect: {players: [{pieces: {red-apple: {fruit: 1}}}]}\n")
    assert o.passed, o.problems


def test_it_in_a_where_of_a_piece_amount_is_still_the_card_looked_at(tmp_path):
    o = scenario(tmp_path, '  - name: where keeps its it\n    do: "place count(card in hand where cost of it >= 3) '
                           'fruit on each card in orchard"\n'
                 "    state: {players: [{zones: {hand: [red-apple, old-pear], orchard: {'1,1': plum-row}}}]}\n"
                 "    expect: {players: [{pieces: {plum-row: {fruit: 1}}}]}\n")
    assert o.passed, o.problems


# ---------------------------------------------------------------------------- cards that never enter a game


FIXTURES = ROOT / "tests" / "fixtures"


def _pack_with(tmp_path: Path, copies: str) -> Path:
    """The minimal pack (2 to 4 players) with the oak's copies given by player count."""
    import shutil

    pack = tmp_path / "mini"
    shutil.copytree(FIXTURES / "valid" / "minimal", pack)
    cards = (pack / "cards.yaml").read_text(encoding="utf-8")
    oak = cards.replace("    stats: {cost: 2}", f"    copies: {copies}\n    stats: {{cost: 2}}", 1)
    (pack / "cards.yaml").write_text(oak, encoding="utf-8")
    return pack


def test_copies_by_player_count_deal_that_many(tmp_path):
    from cardsmith.compiler.pipeline import compile_pack
    from cardsmith.runtime.state import new_state

    res = compile_pack(str(_pack_with(tmp_path, '{"2": 1, "3": 2, "4": 0}')))
    assert res.ok and not list(res.diagnostics), [str(d) for d in res.diagnostics]  # an explicit 0 is said on purpose
    oak = next(i for i, c in enumerate(res.pack.cards) if c.id == "oak")
    assert res.pack.cards[oak].copies == 2  # the box holds the most
    dealt = {n: sum(1 for c in new_state(res.pack, n, 0).cards if c.defn == oak) for n in (2, 3, 4)}
    assert dealt == {2: 1, 3: 2, 4: 0}


def test_copies_silent_for_a_player_count_are_warned_with_the_counts(tmp_path):
    from cardsmith.compiler.pipeline import compile_pack

    res = compile_pack(str(_pack_with(tmp_path, '{"2": 2}')))
    assert res.ok
    (w,) = [d for d in res.diagnostics if d.code == "W152"]
    assert "no copies in a game of 3 or 4 players" in w.message


def test_a_reused_card_id_is_warned_at_both_places(monkeypatch):
    from cardsmith.compiler.pipeline import compile_pack

    case = FIXTURES / "invalid" / "W151_card_id_reused"
    monkeypatch.chdir(case)
    res = compile_pack("mini")
    assert res.ok  # a warning: the pack compiles, and the later card is the one a game uses
    (w,) = [d for d in res.diagnostics if d.code == "W151" and "'oak'" in d.message]
    assert w.span.file.endswith("mini/cards.yaml") and w.span.line == 2
    (note,) = w.notes
    assert note[1].file.endswith("zbase/cards.yaml") and (note[1].line, note[1].col) == (2, 9)
    assert [c.pack for c in res.pack.cards if c.id == "oak"] == ["mini"]
