"""Payment with substitutes: `pay CURRENCY with SOURCE [at RATE] [for a card with FILTERS] [: SPEND]`.

The construct the games need (seed 003 ４）③A: steel pays 2 M€ toward a building card, titanium 3 M€
toward a space card; seed 004 コストの払い方: each hand card pays eggs or food by its own values, tilted
birds by being untilted), tested here on a small game-neutral pack: exact feasibility, one source asked for
at a time among those that leave the rest payable, nothing asked when one way is left, a card never paying
for itself, live sources of cards in play, the bound of the search, and bytecode unchanged without sources.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import render_text
from cardsmith.runtime.vm import ops_payments
from helpers import run_scenario

RULES = {
    "players": {"min": 1, "max": 2},
    "resources": {"gold": {}, "wood": {}, "silver": {}},
    "zones": {"hand": {"owner": "player", "kind": "hand"},
              "row": {"owner": "player", "kind": "row", "in-play": True},
              "discard": {"owner": "shared", "kind": "pile"},
              "deck": {"owner": "shared", "kind": "pile"}},
    "card-types": {"unit": {"start": "deck"}, "tool": {"start": "deck"}},
    "traits": {"kind": ["stone", "wood"]},
    "stats": {"cost": {}, "gem-value": {}, "pearl-value": {}},
    "timings": {"act": {"kind": "activated"}, "ongoing": {"kind": "ongoing"}},
    "payments": [
        "pay gold with wood at 2 for a card with kind stone",
        "pay gem with card in hand at gem-value of it: move it to discard",
        "pay pearl with card in hand at pearl-value of it: move it to discard",
    ],
    "game": "nothing",
    "scoring": [{"id": "gold", "score": "score gold"}],
}
CARDS = [
    {"id": "rock", "name": "Rock", "type": "unit", "traits": {"kind": "stone"}, "stats": {"cost": 5}},
    {"id": "plank", "name": "Plank", "type": "unit", "traits": {"kind": "wood"}, "stats": {"cost": 5}},
    {"id": "ruby", "name": "Ruby", "type": "unit", "stats": {"gem-value": 2, "pearl-value": 1}},
    {"id": "opal", "name": "Opal", "type": "unit", "stats": {"gem-value": 1, "pearl-value": 1}},
    {"id": "jade", "name": "Jade", "type": "unit", "stats": {"gem-value": 1}},
    {"id": "broker", "name": "Broker", "type": "tool", "abilities": {"ongoing": "pay gold with silver at 3"}},
    {"id": "shrine", "name": "Shrine", "type": "unit", "stats": {"gem-value": 3},
     "abilities": {"act": "pay 2 gem and 1 pearl for this: gain 1 gold"}},
]


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    folder = tmp_path / "market"
    folder.mkdir()
    (folder / "pack.yaml").write_text(yaml.safe_dump({"id": "market", "name": "Market", "version": "0.1.0"}))
    (folder / "rules.yaml").write_text(yaml.safe_dump(RULES))
    (folder / "cards.yaml").write_text(yaml.safe_dump({"cards": CARDS}))
    return folder


def run(tmp_path, pack, do, counters=None, hand=(), row=(), decisions=(), expect=None):
    scenario = {"players": 1, "do": do, "decisions": list(decisions),
                "state": {"players": [{"counters": counters or {}, "zones": {"hand": list(hand), "row": list(row)}}]},
                "expect": expect or {}}
    out = run_scenario(tmp_path, scenario, pack)
    assert out.passed, out.problems
    return out


def test_steel_like_source_applies_only_to_the_cards_it_names(tmp_path, pack):
    # seed 003 ４）③A: steel pays only toward a building card. Wood pays 2 gold toward a stone card:
    # Rock (5) with 1 gold and 2 wood (the player picks wood, then 2; the gold is the one way left)
    run(tmp_path, pack, "choose a card in hand where can pay cost of it gold for it: pay cost of it gold for it",
        counters={"gold": 1, "wood": 3}, hand=["rock", "plank"], decisions=["wood", "2"],
        expect={"players": [{"counters": {"gold": 0, "wood": 1}}]})


def test_a_card_the_source_does_not_name_is_paid_with_the_currency_alone(tmp_path, pack):
    # Plank is no stone card: 1 gold and 3 wood cannot pay its 5, so it is not offered (nothing happens)
    run(tmp_path, pack, "choose a card in hand where can pay cost of it gold for it: pay cost of it gold for it",
        counters={"gold": 1, "wood": 3}, hand=["plank"],
        expect={"players": [{"counters": {"gold": 1, "wood": 3}, "zones": {"hand": ["plank"]}}]})


def test_a_coarse_unit_may_overpay(tmp_path, pack):
    # Rock (5) with 3 wood only: 3 wood pay 6 (the change is lost); the one way, so nothing is asked
    run(tmp_path, pack, "choose a card in hand: pay cost of it gold for it", counters={"wood": 3}, hand=["rock"],
        expect={"players": [{"counters": {"wood": 0}}]})


def test_each_card_pays_once_and_for_one_currency(tmp_path, pack):
    # seed 004 コストの払い方 (カードごとに、卵として使うか、餌として使うか、一方を選ぶ): 2 gems and 1 pearl from Ruby
    # (2 gems or 1 pearl) and Opal (1 gem or 1 pearl): Ruby paying the pearl would leave 1 gem for 2, so
    # the only way is Ruby for the gems and Opal for the pearl (nothing asked)
    run(tmp_path, pack, "pay 2 gem and 1 pearl", hand=["ruby", "opal"],
        expect={"players": [{"zones": {"hand": []}}], "shared": {"zones": {"discard": ["opal", "ruby"]}}})
    # with Jade too there are several ways: Ruby as a pearl is one of them
    run(tmp_path, pack, "pay 2 gem and 1 pearl", hand=["ruby", "opal", "jade"], decisions=["Ruby (ruby) as pearl"],
        expect={"players": [{"zones": {"hand": []}}], "shared": {"zones": {"discard": ["jade", "opal", "ruby"]}}})


def test_the_player_picks_which_card_pays_as_which_currency(tmp_path, pack):
    # 1 gem: Ruby, Opal or Jade; the player picks Opal
    run(tmp_path, pack, "pay 1 gem", hand=["ruby", "opal", "jade"], decisions=["Opal (opal) as gem"],
        expect={"players": [{"zones": {"hand": ["ruby", "jade"]}}], "shared": {"zones": {"discard": ["opal"]}}})


def test_a_price_that_cannot_be_paid_is_not_paid_at_all(tmp_path, pack):
    # 3 gems and a pearl are more than Ruby and Jade can give together (Ruby is one or the other)
    run(tmp_path, pack, "pay 3 gem and 1 pearl", hand=["ruby", "jade"],
        expect={"players": [{"zones": {"hand": ["ruby", "jade"]}}]})


def test_the_card_paid_for_never_pays_for_itself(tmp_path, pack):
    # Shrine (worth 3 gems) pays 2 gems and a pearl for itself: its own value does not count
    run(tmp_path, pack, "activate act ability of each card in row", row=["shrine"], hand=["jade"],
        expect={"players": [{"counters": {"gold": 0}, "zones": {"hand": ["jade"]}}]})
    run(tmp_path, pack, "activate act ability of each card in row", row=["shrine"], hand=["ruby", "opal"],
        expect={"players": [{"counters": {"gold": 1}, "zones": {"hand": []}}]})


def test_a_live_source_pays_for_its_owner_while_in_play(tmp_path, pack):
    # Broker in play: silver pays 3 gold each (a corporation's effect, like Helion's heat)
    run(tmp_path, pack, "pay 3 gold", counters={"silver": 1}, row=["broker"],
        expect={"players": [{"counters": {"silver": 0}}]})
    run(tmp_path, pack, "pay 3 gold", counters={"silver": 1}, hand=["broker"],
        expect={"players": [{"counters": {"silver": 1}}]})


def test_can_pay_is_the_same_test_as_an_expression(tmp_path, pack):
    run(tmp_path, pack, "if can pay 2 gem and 1 pearl: gain 1 gold", hand=["ruby", "opal"],
        expect={"players": [{"counters": {"gold": 1}, "zones": {"hand": ["ruby", "opal"]}}]})
    run(tmp_path, pack, "if can pay 2 gem and 2 pearl: gain 1 gold", hand=["ruby", "opal"],
        expect={"players": [{"counters": {"gold": 0}}]})


def test_without_sources_pay_compiles_as_it_always_did(tmp_path, pack):
    res = compile_pack(pack)
    assert res.ok, render_text(res.diagnostics.items)
    ops = [ins[0] for ins in res.pack.card("shrine").abilities["act"].ops]
    assert "CAN_PAY" in ops and "PAY" in ops
    earth = compile_pack("earth")
    names = {ins[0] for c in earth.pack.cards for code in c.abilities.values() for ins in code.ops}
    assert not names & {"CAN_PAY", "PAY"} and "HAS" in names


def test_the_search_is_bounded_and_fails_with_a_located_fault(tmp_path, pack, monkeypatch):
    monkeypatch.setattr(ops_payments, "MAX_STATES", 2)
    out = run_scenario(tmp_path, {"players": 1, "do": "pay 4 gem and 1 pearl", "expect": {},
                                  "state": {"players": [{"zones": {"hand": ["ruby", "opal", "jade", "jade"]}}]}}, pack)
    assert not out.passed
    fault = " ".join(out.problems)
    assert "R001" in fault and "payment search" in fault and "scenario.yaml" in fault


def test_a_unit_currency_nobody_pays_is_warned_about(tmp_path):
    folder = tmp_path / "typo"
    folder.mkdir()
    (folder / "pack.yaml").write_text(yaml.safe_dump({"id": "typo", "name": "Typo", "version": "0.1.0"}))
    rules = {**RULES, "payments": ["pay gemm with card in hand at gem-value of it: move it to discard"]}
    (folder / "rules.yaml").write_text(yaml.safe_dump(rules))
    (folder / "cards.yaml").write_text(yaml.safe_dump({"cards": CARDS[:2]}))
    res = compile_pack(folder)
    assert res.ok
    assert [d.code for d in res.diagnostics.items] == ["W120"], render_text(res.diagnostics.items)
