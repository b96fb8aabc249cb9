"""Mandatory effects, legal targets and effects in any order (`can`, `may-fall-short`, `in any order`).

Terraforming Mars (seed 003 ４）③A: a card is played only when its effects can be done; "any player"
targets only players for whom the effect can happen; the printed effects in the order the player likes)
is the case; tested here on a small game-neutral pack: trials find a way through the decisions, never
change the game, honour the pack's exceptions by kind, name and whose, are bounded, and read an ability's
leading condition and cost from its bytecode.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cardsmith.runtime.vm import trial
from helpers import run_scenario

RULES = {
    "players": {"min": 1, "max": 3},
    "resources": {"gold": {}, "wood": {"max": 5}, "output": {"min": -2}},
    "zones": {"hand": {"owner": "player", "kind": "hand"},
              "row": {"owner": "player", "kind": "row", "in-play": True},
              "yard": {"owner": "shared", "kind": "row"},
              "deck": {"owner": "shared", "kind": "pile"}},
    "card-types": {"unit": {"start": "deck"}},
    "traits": {"kind": ["stone", "wood"]},
    "flags": ["tapped"],
    "timings": {"act": {"kind": "activated"}, "ongoing": {"kind": "ongoing"}},
    "may-fall-short": [{"effect": "gain", "names": ["wood"]}, {"effect": "lose", "whose": "others", "names": ["gold"]}],
    "game": "nothing",
    "scoring": [{"id": "gold", "score": "score gold"}],
}
CARDS = [
    {"id": "drain", "name": "Drain", "type": "unit", "abilities": {"act": "lose 2 gold, gain 1 wood"}},
    {"id": "pile", "name": "Pile", "type": "unit", "abilities": {"act": "gain 9 wood"}},
    {"id": "raid", "name": "Raid", "type": "unit", "abilities": {"act": "each opponent: lose 3 gold"}},
    {"id": "tax", "name": "Tax", "type": "unit", "abilities": {"act": "choose a player: lose 1 output"}},
    {"id": "swap", "name": "Swap", "type": "unit", "abilities": {"act": "in any order: lose 2 gold, gain 2 gold"}},
    {"id": "mason", "name": "Mason", "type": "unit",
     "abilities": {"act": "choose a card in yard with kind stone: mark it tapped"}},
    {"id": "boulder", "name": "Boulder", "type": "unit", "traits": {"kind": "stone"}},
    {"id": "gate", "name": "Gate", "type": "unit", "abilities": {"act": "if wood > 0: lose 1 gold: gain 1 output"}},
    {"id": "echo", "name": "Echo", "type": "unit", "abilities": {"ongoing": "when you lose gold: lose 5 output"}},
]
CAN = "for each card in hand: if can activate act ability of it: gain 1 wood"


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    folder = tmp_path / "duty"
    folder.mkdir()
    (folder / "pack.yaml").write_text(yaml.safe_dump({"id": "duty", "name": "Duty", "version": "0.1.0"}))
    (folder / "rules.yaml").write_text(yaml.safe_dump(RULES))
    (folder / "cards.yaml").write_text(yaml.safe_dump({"cards": CARDS}))
    return folder


def run(tmp_path, pack, do, players=({},), decisions=(), expect=None, shared=None):
    state = {"players": [{"counters": p.get("counters", {}), "zones": p.get("zones", {})} for p in players]}
    if shared:
        state["shared"] = shared
    out = run_scenario(tmp_path, {"players": len(players), "do": do, "decisions": list(decisions),
                                  "state": state, "expect": expect or {}}, pack)
    assert out.passed, out.problems
    return out


def wood_after(tmp_path, pack, card, counters, others=()):
    """How many of the cards `can activate` says yes to (wood starts at 0; each yes gains 1)."""
    players = [{"counters": counters, "zones": {"hand": [card]}}, *others]
    out = run(tmp_path, pack, CAN, players=players)
    return out.game.state.counters[0]["wood"]


def test_an_effect_that_would_fall_short_makes_can_false_and_changes_nothing(tmp_path, pack):
    assert wood_after(tmp_path, pack, "drain", {"gold": 2}) == 1
    out = run(tmp_path, pack, CAN, players=[{"counters": {"gold": 1}, "zones": {"hand": ["drain"]}}],
              expect={"players": [{"counters": {"gold": 1, "wood": 0}}]})
    assert out.game.state.counters[0]["gold"] == 1  # the trial ran on a copy


def test_an_exception_lets_an_effect_fall_short(tmp_path, pack):
    # gain past wood's max 5: excepted by name
    assert wood_after(tmp_path, pack, "pile", {}) == 1


def test_whose_others_excepts_opponents_but_not_yourself(tmp_path, pack):
    # each opponent loses 3 gold: an opponent with 1 may fall short (whose: others)
    assert wood_after(tmp_path, pack, "raid", {}, others=[{"counters": {"gold": 1}}]) == 1
    # your own loss may not: Drain with 1 gold cannot
    assert wood_after(tmp_path, pack, "drain", {"gold": 1}, others=[{"counters": {"gold": 9}}]) == 0


def test_choose_a_player_offers_only_legal_targets(tmp_path, pack):
    # output's minimum is -2: player 2 at -2 is no target; player 1 (you) and 3 are
    players = [{"counters": {"output": 0}, "zones": {"row": ["tax"]}}, {"counters": {"output": -2}},
               {"counters": {"output": 1}}]
    out = run(tmp_path, pack, "activate act ability of each card in row", players=players, decisions=["player 3"],
              expect={"players": [{"counters": {"output": 0}}, {"counters": {"output": -2}},
                                  {"counters": {"output": 0}}]})
    assert out.game is not None
    # with only one legal target nobody is asked
    players[0]["counters"] = {"output": -2}
    run(tmp_path, pack, "activate act ability of each card in row", players=players,
        expect={"players": [{}, {}, {"counters": {"output": 0}}]})


def test_with_no_legal_target_the_effect_cannot_be_done(tmp_path, pack):
    others = [{"counters": {"output": -2}}]
    assert wood_after(tmp_path, pack, "tax", {"output": -2}, others=others) == 0
    assert wood_after(tmp_path, pack, "tax", {"output": -1}, others=others) == 1


def test_in_any_order_offers_only_the_orders_that_can_be_done(tmp_path, pack):
    # with 0 gold only "gain 2 gold, then lose 2 gold" can be done: it is taken without asking
    run(tmp_path, pack, "activate act ability of each card in row",
        players=[{"counters": {"gold": 0}, "zones": {"row": ["swap"]}}],
        expect={"players": [{"counters": {"gold": 0}}]})
    # and can considers every order
    assert wood_after(tmp_path, pack, "swap", {"gold": 0}) == 1
    # with 2 gold both orders can: the player picks one
    run(tmp_path, pack, "activate act ability of each card in row",
        players=[{"counters": {"gold": 2}, "zones": {"row": ["swap"]}}], decisions=["lose 2 gold, then"],
        expect={"players": [{"counters": {"gold": 2}}]})


def test_a_choice_with_nothing_to_choose_falls_short_when_what_it_governs_must_happen(tmp_path, pack):
    assert wood_after(tmp_path, pack, "mason", {}) == 0
    run(tmp_path, pack, CAN, players=[{"zones": {"hand": ["mason"]}}], shared={"zones": {"yard": ["boulder"]}},
        expect={"players": [{"counters": {"wood": 1}}]})


def test_a_leading_condition_and_cost_are_read_from_the_bytecode(tmp_path, pack):
    assert wood_after(tmp_path, pack, "gate", {"gold": 1}) == 0  # wood is 0: the condition fails
    # wood 1 and 0 gold: the cost fails; wood 1 and 1 gold: it can (each yes gains a wood)
    assert wood_after(tmp_path, pack, "gate", {"gold": 0, "wood": 1}) == 1
    assert wood_after(tmp_path, pack, "gate", {"gold": 1, "wood": 1}) == 2


def test_triggers_in_a_trial_are_the_games_reaction_not_the_tried_effects(tmp_path, pack):
    # Echo loses 5 output (floor -2) when you lose gold: a trigger, so its shortfall does not count
    run(tmp_path, pack, CAN, players=[{"counters": {"gold": 2}, "zones": {"hand": ["drain"], "row": ["echo"]}}],
        expect={"players": [{"counters": {"wood": 1, "output": 0}}]})


def test_a_trial_is_bounded(tmp_path, pack, monkeypatch):
    # Swap with 0 gold needs its second order: with one run allowed, it counts as impossible
    monkeypatch.setattr(trial, "MAX_BRANCHES", 1)
    assert wood_after(tmp_path, pack, "swap", {"gold": 0}) == 0
    assert wood_after(tmp_path, pack, "swap", {"gold": 2}) == 1
