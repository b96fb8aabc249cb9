"""The Terraforming Mars Corporate Era pack: its data against the reference, its scenarios, whole games.

The seed's setup (shared/seeds/003_…, ３）ゲームの準備（「企業時代」を除く）) is the standard game; the pack
`terraforming-mars-corporate-era` adds the 71 corporate-era project cards and the corporations Saturn
Systems and Teractor, and starts players without production. Games must still end by the three global
parameters (５）ゲームの終了). Also the one VM feature the pack needed: pieces that reserve their card.
"""

from __future__ import annotations

import json
import re

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import render_text
from cardsmith.runtime import Game
from helpers import ROOT, run_scenario

PACK = ROOT / "cards" / "terraforming-mars-corporate-era"
REFERENCE = ROOT.parent / "shared" / "reference" / "terraforming-mars"


@pytest.fixture(scope="module")
def result():
    return compile_pack(str(PACK))


@pytest.fixture(scope="module")
def pack(result):
    assert result.ok, render_text(result.diagnostics.items)
    return result.pack


def _projects(pack):
    return [c for c in pack.cards if c.type in ("automated", "active", "event")]


def _kebab(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower().replace("'", "")).strip("-")


def test_the_pack_validates_without_errors(result):
    assert result.ok
    assert not result.diagnostics.errors, render_text(result.diagnostics.items)
    assert result.pack.chain == ["terraforming-mars", "terraforming-mars-corporate-era"]


def test_every_corporate_era_card_compiles_with_the_reference_facts(pack):
    ref = REFERENCE / "project_cards.json"
    if not ref.exists():
        pytest.skip("reference data not present")
    facts = {c["number"]: c for c in json.loads(ref.read_text())["cards"] if c["set"] == "corporate-era"}
    assert len(facts) == 71
    ours = {c.number: c for c in _projects(pack) if c.pack == "terraforming-mars-corporate-era"}
    assert set(ours) == set(facts)
    for number, fact in facts.items():
        card = ours[number]
        assert card.id == _kebab(fact["name"]), number
        assert card.name == fact["name"], number
        assert card.type == fact["type"], number
        assert card.stats["cost"] == fact["cost"], number
        tags = sorted({"microbes": "microbe"}.get(t, t) for t in fact["tags"] if t != "event")
        assert sorted(card.traits.get("tag", [])) == tags, number
        if isinstance(fact.get("vp"), int):
            assert card.stats.get("vp") == fact["vp"], number


def test_the_deck_holds_both_sets_and_twelve_corporations(pack):
    assert len(_projects(pack)) == 137 + 71
    assert len({c.id for c in _projects(pack)}) == 208
    corporations = {c.id for c in pack.cards if c.type == "corporation"}
    assert len(corporations) == 12
    assert {"saturn-systems", "teractor"} <= corporations


def test_production_starts_at_zero(pack):
    # Corporate Era: no starting production, whatever the standard game's setup gives
    for name in ("megacredit", "steel", "titanium", "plant", "energy", "heat"):
        assert pack.resources[f"{name}-production"].get("start", 0) == 0




def test_games_end_by_the_global_parameters(pack):
    for seed in (3, 4):
        game = Game(pack, 3, seed)
        res = game.play()
        assert not res.capped, f"seed {seed} hit the safety cap"
        g = game.state.globals
        assert (g["temperature"], g["oxygen"], g["oceans"]) == (8, 14, 9), f"seed {seed}"


# ---------------------------------------------------------------- pieces with `reserves: true`

RULES = """
players: {min: 2, max: 2}
resources: {gold: {}}
zones:
  board: {owner: shared, kind: row}
card-types: {spot: {start: board}}
pieces:
  claim: {reserves: true}
  stone: {}
game: "nothing"
"""
CARDS = """
cards:
  - {id: north, name: North, type: spot}
  - {id: south, name: South, type: spot}
"""


@pytest.fixture
def claim_pack(tmp_path):
    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "pack.yaml").write_text("id: claims\nname: Claims\nversion: 0.1.0\n")
    (folder / "rules.yaml").write_text(RULES)
    (folder / "cards.yaml").write_text(CARDS)
    return folder


def _stones(out, card_id: str) -> int:
    game = out.game
    return sum(c.pieces.get("stone", 0) for c in game.state.cards if game.pack.cards[c.defn].id == card_id)


def test_a_reserving_piece_keeps_the_card_from_other_players_choices(tmp_path, claim_pack):
    # the first player claims North; the second player's choice then has South only (no decision asked)
    out = run_scenario(tmp_path, {
        "do": "place 1 claim of yours on each card in board with type spot where position of it = 1, "
              "(left neighbour: choose a card in board: place 1 stone on it), "
              "choose a card in board: place 1 stone on it",
        "state": {"shared": {"zones": {"board": ["north", "south"]}}},
        "decisions": ["North"]}, pack=claim_pack)
    assert out.problems == []
    assert _stones(out, "north") == 1 and _stones(out, "south") == 1


def test_a_reserving_piece_hides_the_card_from_piece_placement_too(tmp_path, claim_pack):
    out = run_scenario(tmp_path, {
        "do": "place 1 claim of yours on each card in board where position of it = 2, "
              "left neighbour: place 2 stone on a card in board",
        "state": {"shared": {"zones": {"board": ["north", "south"]}}}}, pack=claim_pack)
    assert out.problems == []
    assert _stones(out, "north") == 2 and _stones(out, "south") == 0


def test_counts_still_see_a_reserved_card(tmp_path, claim_pack):
    out = run_scenario(tmp_path, {
        "do": "place 1 claim of yours on each card in board, left neighbour: gain count(card in board with claim) gold",
        "state": {"shared": {"zones": {"board": ["north", "south"]}}}}, pack=claim_pack)
    assert out.problems == []
    assert out.game.state.counters[1]["gold"] == 2
