"""The Terraforming Mars pack: its data against the reference, whole games, determinism.

Seed 003 (５）ゲームの終了): the game ends with the generation in which the temperature is +8 °C,
oxygen 14 % and 9 oceans are out; every simulated game must end that way, never by the safety cap,
and the same seed must give the same game. The rule scenarios run in test_pack_scenarios.py.
"""

from __future__ import annotations

import json

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import render_text
from cardsmith.runtime import Game
from cardsmith.runtime.geometry import geometry
from helpers import ROOT

REFERENCE = ROOT.parent / "shared" / "reference" / "terraforming-mars"


@pytest.fixture(scope="module")
def pack():
    res = compile_pack("terraforming-mars")
    assert res.ok, render_text(res.diagnostics.items)
    assert not res.diagnostics.items, render_text(res.diagnostics.items)
    return res.pack


def _of_type(pack, *types):
    return [c for c in pack.cards if c.type in types]


def test_the_pack_holds_the_standard_game(pack):
    projects = _of_type(pack, "automated", "active", "event")
    assert len(projects) == 137
    assert len(_of_type(pack, "corporation")) == 10
    assert [c.copies for c in _of_type(pack, "beginner")] == [5]
    assert len(_of_type(pack, "space")) == 61
    assert len(_of_type(pack, "standard-project")) == 6
    assert len(_of_type(pack, "milestone")) == 5 and len(_of_type(pack, "award")) == 5
    # most project cards do something; the rest are requirements and printed VP only
    with_abilities = [c for c in projects if c.abilities or c.triggers or c.modifiers]
    assert len(with_abilities) >= 130


def test_project_card_facts_match_the_reference(pack):
    ref = REFERENCE / "project_cards.json"
    if not ref.exists():
        pytest.skip("reference data not present")
    cards = {c["number"]: c for c in json.loads(ref.read_text())["cards"] if c["set"] == "base-game"}
    ours = {c.number: c for c in _of_type(pack, "automated", "active", "event")}
    assert set(ours) == set(cards)
    for number, fact in cards.items():
        card = ours[number]
        assert card.name == fact["name"], number
        assert card.type == fact["type"], number
        assert card.stats["cost"] == fact["cost"], number
        tags = sorted({"microbes": "microbe"}.get(t, t) for t in fact["tags"] if t != "event")
        assert sorted(card.traits.get("tag", [])) == tags, number
        if isinstance(fact.get("vp"), int):
            assert card.stats.get("vp") == fact["vp"], number


def test_the_board_matches_tharsis(pack):
    ref = REFERENCE / "tharsis_board.json"
    if not ref.exists():
        pytest.skip("reference data not present")
    data = json.loads(ref.read_text())
    spaces = _of_type(pack, "space")
    assert [c.number for c in spaces] == [s["id"] for s in data["spaces"]]
    for card, space in zip(spaces, data["spaces"], strict=True):
        area = "noctis" if space["id"] == "31" else ("ocean" if space["type"] == "ocean-reserved" else "land")
        assert card.traits["area"] == [area]
        assert ("volcanic" in card.traits.get("terrain", [])) == bool(space.get("volcanic"))
        for bonus in ("steel", "titanium", "plant", "card"):
            assert card.stats.get(f"{bonus}-bonus", 0) == space["bonus"].get(bonus, 0), space["id"]
    assert len(geometry(pack.zones["mars"]).neighbours) == 61


def _finished(game: Game) -> bool:
    g = game.state.globals
    return g["temperature"] == 8 and g["oxygen"] == 14 and g["oceans"] == 9


@pytest.mark.parametrize("players", [2, 3, 4])
def test_games_end_by_the_global_parameters(pack, players):
    for seed in (11, 12):
        game = Game(pack, players, seed)
        result = game.play()
        assert not result.capped, f"seed {seed} hit the safety cap"
        assert _finished(game), f"seed {seed} ended before Mars was terraformed"
        assert game.state.globals["game-over"] == 1
        for s in range(players):
            assert result.totals[s] == sum(result.steps[s].values())
            assert result.steps[s]["tr"] == game.state.counters[s]["tr"]


def test_a_solo_game_ends_after_generation_14(pack):
    game = Game(pack, 1, 5)
    result = game.play()
    assert not result.capped
    assert game.state.globals["generation"] <= 14
    assert game.state.globals["generation"] == 14 or _finished(game)


