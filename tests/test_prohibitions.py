"""`prevent ...`: a live prohibition on losing counters or having pieces removed.

Terraforming Mars (seed 003; Protected Habitats, Pets): opponents may not remove your plants, animals
or microbes; animals may never be removed from Pets. A prohibition stops the loss itself, so every card
that takes from other players honours it without repeating a filter.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cardsmith.compiler import compile_pack
from cardsmith.present.describe import describe_card
from helpers import run_scenario

RULES = {
    "players": {"min": 1, "max": 3},
    "resources": {"gold": {}, "wood": {}},
    "zones": {"hand": {"owner": "player", "kind": "hand"},
              "row": {"owner": "player", "kind": "row", "in-play": True},
              "deck": {"owner": "shared", "kind": "pile"}},
    "card-types": {"unit": {"start": "deck"}},
    "pieces": {"token": {}},
    "timings": {"act": {"kind": "activated"}, "ongoing": {"kind": "ongoing"}},
    "game": "nothing",
    "scoring": [{"id": "gold", "score": "score gold"}],
}
CARDS = [
    {"id": "raider", "name": "Raider", "type": "unit",
     "abilities": {"act": "each opponent: lose 2 gold, lose 2 wood"}},
    {"id": "spender", "name": "Spender", "type": "unit", "abilities": {"act": "lose 1 gold"}},
    {"id": "poacher", "name": "Poacher", "type": "unit",
     "abilities": {"act": "remove 1 token from a card in row of all players with token: gain 1 wood"}},
    {"id": "snatcher", "name": "Snatcher", "type": "unit",
     "abilities": {"act": "choose a card in row of all players with token: remove 1 token from it"}},
    {"id": "shield", "name": "Shield", "type": "unit",
     "abilities": {"ongoing": "prevent opponents remove gold or token from you"}},
    {"id": "pen", "name": "Pen", "type": "unit", "abilities": {"ongoing": "prevent remove token from this"}},
    {"id": "nest", "name": "Nest", "type": "unit"},
    {"id": "toll", "name": "Toll", "type": "unit", "abilities": {"act": "each opponent: pay 2 gold: gain 3 wood"}},
]


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    folder = tmp_path / "guarded"
    folder.mkdir()
    (folder / "pack.yaml").write_text(yaml.safe_dump({"id": "guarded", "name": "Guarded", "version": "0.1.0"}))
    (folder / "rules.yaml").write_text(yaml.safe_dump(RULES))
    (folder / "cards.yaml").write_text(yaml.safe_dump({"cards": CARDS}))
    return folder


def _act(tmp_path, pack, rows, gold=5, tokens=None, decisions=()):
    players = []
    for seat, row in enumerate(rows):
        p = {"counters": {"gold": gold, "wood": gold}, "zones": {"row": row}}
        if tokens and seat in tokens:
            p["pieces"] = tokens[seat]
        players.append(p)
    return run_scenario(tmp_path, {"do": "for each card in row: activate act ability of it", "players": len(rows),
                                   "state": {"players": players}, "decisions": list(decisions)}, pack)


def test_opponents_cannot_take_protected_counters(tmp_path, pack):
    out = _act(tmp_path, pack, [["raider"], ["shield"], ["nest"]])
    c = out.game.state.counters
    assert (c[1]["gold"], c[1]["wood"]) == (5, 3)  # gold is protected, wood is not
    assert (c[2]["gold"], c[2]["wood"]) == (3, 3)  # no prohibition: both go


def test_a_stopped_loss_cannot_pay_a_cost(tmp_path, pack):
    out = _act(tmp_path, pack, [["toll"], ["shield"], ["nest"]])
    c = out.game.state.counters
    assert (c[1]["gold"], c[1]["wood"]) == (5, 5)  # the shielded player cannot pay, so gets nothing
    assert (c[2]["gold"], c[2]["wood"]) == (3, 8)


def test_your_own_abilities_still_take_from_you(tmp_path, pack):
    out = _act(tmp_path, pack, [["shield", "spender"]], gold=5)
    assert out.game.state.counters[0]["gold"] == 4


def test_protected_pieces_are_not_offered_and_the_cost_fails(tmp_path, pack):
    # the only tokens belong to a player with the shield: the poacher's cost cannot be paid
    out = _act(tmp_path, pack, [["poacher"], ["shield", "nest"]], tokens={1: {"nest": {"token": 2}}})
    assert out.problems == []
    nest = next(c for c in out.game.state.cards if c.seat == 1 and c.zone == "row" and c.pieces)
    assert nest.pieces["token"] == 2 and out.game.state.counters[0]["wood"] == 5


def test_a_card_that_forbids_removal_keeps_its_pieces_even_from_its_owner(tmp_path, pack):
    out = _act(tmp_path, pack, [["snatcher", "pen", "nest"]], tokens={0: {"pen": {"token": 1}, "nest": {"token": 1}}},
               decisions=["Pen (pen)"])
    pen = next(c for c in out.game.state.cards if c.zone == "row" and c.pieces.get("token") == 1)
    assert out.game.state.cards[pen.id].defn == next(i for i, d in enumerate(out.game.pack.cards) if d.id == "pen")


def test_prevent_only_in_ongoing_abilities_and_described(pack):
    result = compile_pack(pack)
    assert result.ok, result.diagnostics.items
    shield = next(c for c in result.pack.cards if c.id == "shield")
    assert shield.prevents == [{"names": ["gold", "token"], "opponents": True, "scope": "you"}]
    text = " ".join(t.text for t in describe_card(result, "shield"))
    assert "opponents may not take your" in text.lower() and "token" in text
    bad = dict(CARDS[0], abilities={"act": "prevent remove token from this"})
    (pack / "cards.yaml").write_text(yaml.safe_dump({"cards": [bad]}))
    codes = [d.code for d in compile_pack(pack).diagnostics.items]
    assert "E111" in codes
    (pack / "cards.yaml").write_text(yaml.safe_dump(
        {"cards": [dict(CARDS[4], abilities={"ongoing": "prevent remove gold from this"})]}))
    codes = [d.code for d in compile_pack(pack).diagnostics.items]
    assert "E102" in codes  # a counter is not a piece on a card
