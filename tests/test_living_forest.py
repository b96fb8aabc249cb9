"""The Living Forest pack: its data against the seed and the reference, its rule scenarios, whole games.

Seed 002 (ゲームの目的, ゲームの終了): the game ends at the end of an action phase in which a player
has 12 different trees, 12 fires or 12 sacred flowers; every game must end that way, never by the
simulation's safety cap, and the same seed must give the same game.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import render_text
from cardsmith.runtime import Game
from cardsmith.runtime.simulate import simulate
from helpers import ROOT

REFERENCE = ROOT.parent / "shared" / "reference" / "living-forest" / "living_forest_cards.json"
SYMBOLS = {"sun": "sun", "drop": "water", "plant_seed": "seed", "wind_spiral": "wind", "sacred_flower": "flower"}


@pytest.fixture(scope="module")
def pack():
    res = compile_pack("living-forest")
    assert res.ok, render_text(res.diagnostics.items)
    assert not res.diagnostics.items, render_text(res.diagnostics.items)
    return res.pack


def _cards(pack, type_):
    return [c for c in pack.cards if c.type == type_]


def test_the_pack_holds_every_component(pack):
    animals = _cards(pack, "animal")
    levels = Counter(c.stats.get("level", 0) for c in animals)
    # 14 starting animals (4 copies each) and the guardian animals 23 / 16 / 12 (seed: B) アニマルカードの獲得)
    assert levels == {0: 14, 1: 23, 2: 16, 3: 12}
    assert all(c.copies == 4 for c in animals if c.stats.get("level", 0) == 0)
    assert [c.copies for c in _cards(pack, "varan")] == [23]
    assert len(_cards(pack, "protective-tree")) == 12
    assert len(_cards(pack, "stone")) == 12
    assert len(_cards(pack, "forest-space")) == 8
    assert sorted(c.traits["goal"][0] for c in _cards(pack, "victory-tile")) == ["fires", "flowers", "trees"]


def test_the_starting_deck_matches_the_seed_table(pack):
    # 初期デッキ内のアニマルカード: 合計値 5 9 6 9 2 1 (solitary, sun, water, seed, wind, flower)
    starters = [c for c in _cards(pack, "animal") if c.stats.get("level", 0) == 0]
    assert sorted(c.stats["starter"] for c in starters) == list(range(1, 15))
    solitary = sum(1 for c in starters if "solitary" in c.traits.get("nature", ()))
    totals = {s: sum(c.stats.get(s, 0) for c in starters) for s in ("sun", "water", "seed", "wind", "flower")}
    assert solitary == 5
    assert totals == {"sun": 9, "water": 6, "seed": 9, "wind": 2, "flower": 1}


def test_the_guardian_animals_and_trees_match_the_reference(pack):
    if not REFERENCE.exists():
        pytest.skip("reference data not present")
    ref = json.loads(REFERENCE.read_text(encoding="utf-8"))
    by_number = {int(c.number): c for c in _cards(pack, "animal") if c.number not in (None, "")}
    guardians = [a for a in ref["guardian_animals"] if a["level"] in (1, 2, 3)]
    assert len(guardians) == len(by_number) == 51
    for a in guardians:
        card = by_number[a["id"]]
        want = {SYMBOLS[k]: v for k, v in a["elements"].items()}
        got = {s: card.stats[s] for s in SYMBOLS.values() if card.stats.get(s)}
        assert got == want, card.id
        assert card.stats["cost"] == a["cost_sun"] and card.stats["level"] == a["level"], card.id
        nature = "neutral" if not card.traits.get("nature") else card.traits["nature"][0]
        assert nature == a["type"], card.id
    trees = {c.stats["tree-number"]: c for c in _cards(pack, "protective-tree")}
    for i, t in enumerate(ref["protective_trees"], 1):
        c = trees[i]
        assert c.stats["cost"] == t["cost_plant_seed"]
        assert {s: c.stats[s] for s in SYMBOLS.values() if c.stats.get(s)} == \
            {SYMBOLS[k]: v for k, v in t["permanent_elements"].items()}
        per = t["copies_by_player_count"]
        assert c.copies_by_players == {"2": per["2p"], "3": per["3p"], "4": per["4p"]}
        assert c.copies == max(per.values())


@pytest.mark.parametrize("players, per_cost", [(2, (2, 2, 2)), (3, (3, 3, 2)), (4, (4, 3, 2))])
def test_a_game_starts_with_the_protective_trees_of_its_player_count(pack, players, per_cost):
    """seeds/002_172948770584c472.txt ゲームの準備: trees costing 3-5 / 6-8 / 9-11 come in 2/2/2 copies with 2
    players, 3/3/2 with 3, 4/3/2 with 4 (copies by player count; the setup no longer puts extra copies back)."""
    from cardsmith.runtime.state import SHARED, new_state

    st = new_state(pack, players, 0)
    supply = [pack.cards[st.cards[c].defn] for c in st.zones[("tree-supply", SHARED)]]
    by_kind: dict[int, int] = {}
    for c in supply:
        by_kind[c.stats["tree-number"]] = by_kind.get(c.stats["tree-number"], 0) + 1
    assert len(by_kind) == 12
    for c in supply:
        band = 0 if c.stats["cost"] <= 5 else 1 if c.stats["cost"] <= 8 else 2
        assert by_kind[c.stats["tree-number"]] == per_cost[band], c.id


@pytest.mark.parametrize("players", [2, 3, 4])
def test_games_end_by_a_goal_not_by_the_cap(pack, players):
    results = simulate(pack, games=4, players=players, seed=200, agent_names=["random"])
    for r in results:
        assert not r.capped, f"seed {r.seed} hit the safety cap"
        # the score steps are the three counts; someone reached 12 in one of them, and the winners are
        # among those players (a goal reached ranks first, whatever the sums)
        achievers = [s for s in range(players) if max(r.steps[s].values()) >= 12]
        assert achievers and set(r.winners) <= set(achievers)
        for s in range(players):
            assert set(r.steps[s]) == {"trees", "fires", "flowers"}
            assert r.totals[s] == sum(r.steps[s].values())


def test_a_finished_game_has_a_goal_reached_at_the_end_of_an_action_phase(pack):
    game = Game(pack, 3, seed=11)
    result = game.play()
    st = game.state
    target = st.params["target"]
    counts = [(c["trees-count"], c["fires-count"], c["flowers-count"]) for c in st.counters]
    reached = [s for s in range(3) if max(counts[s]) >= target]
    assert reached and set(result.winners) <= set(reached)
    # the game stopped before the end of the turn: the help lines are still out
    assert any(game.vm.zone_cards("help-line", s) for s in range(3))




def test_the_mover_chooses_which_tile_of_the_jumped_player_to_take():
    # seed E)精霊の移動: 飛ばしたプレイヤーが所持している勝利タイルを１枚奪う — the mover (seat 0) picks among the
    # jumped player's tiles only (not the other opponent's), and the jumped player is asked nothing
    from cardsmith.scenarios import scenario_game

    circle = [f"stone-{i}" for i in range(1, 13)]
    game = scenario_game("living-forest", {
        "players": 3, "do": "tally symbols, guide your spirit",
        "state": {"players": [{"counters": {"spirit-at": 2}, "zones": {"help-line": ["hare"]}},
                              {"counters": {"spirit-at": 3}, "zones": {"tiles": ["tree-tile", "fire-tile"]}},
                              {"counters": {"spirit-at": 5}, "zones": {"tiles": ["flower-tile"]}}],
                  "shared": {"zones": {"circle": circle}}}})
    decision = game.advance()
    assert decision.seat == 0
    assert decision.labels == ["Tree victory tile (tree-tile)", "Fire victory tile (fire-tile)"]
