"""Birdscaping (seed 004) and its solo mode: the packs compile, whole games end by the rules, the same
seed gives the same game, and the payment search (`can pay`) agrees with a brute-force search.

Rules: shared/seeds/004_167b57179a026a21.txt. The rule scenarios are data in
cards/birdscaping/scenarios/ (`cardsmith test cards/birdscaping`); this file checks what scenarios
cannot: many seeded games, logs, and a property of the payment search over random positions.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import Diagnostics, render_text
from cardsmith.runtime import Game
from cardsmith.runtime.simulate import simulate
from cardsmith.scenarios import run_file, scenario_game

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "cards" / "birdscaping"
SOLO = ROOT / "cards" / "birdscaping-solo"
RICH = ROOT / "tests" / "fixtures" / "packs" / "birdscaping-rich"  # birds worth 2 or 3 as a cost
ROWS = {"tree": "tree-row", "garden": "garden-row", "pond": "pond-row"}


@pytest.fixture(scope="module")
def base():
    res = compile_pack("birdscaping")
    assert res.ok, render_text(res.diagnostics.items)
    assert not res.diagnostics.items, render_text(res.diagnostics.items)
    return res.pack


@pytest.fixture(scope="module")
def rich():
    res = compile_pack(str(RICH))
    assert res.ok, render_text(res.diagnostics.items)
    assert not res.diagnostics.items, render_text(res.diagnostics.items)
    return res.pack


@pytest.fixture(scope="module")
def solo():
    res = compile_pack("birdscaping-solo")
    assert res.ok, render_text(res.diagnostics.items)
    assert not res.diagnostics.items, render_text(res.diagnostics.items)
    return res.pack


def birds(pack):
    return [c for c in pack.cards if c.type == "bird"]


# ------------------------------------------------------------------ the deck


def test_the_deck_is_original_and_covers_every_card_feature(base):
    deck = birds(base)
    assert sum(c.copies for c in deck) >= 60
    assert all(c.original for c in base.cards)
    timings = {t for c in deck for t in (*c.abilities, *(["continuous"] if c.triggers or c.modifiers else []))}
    assert timings >= {"on-activate", "scoring", "continuous"}
    assert any(c.triggers for c in deck) and any(c.modifiers for c in deck)
    habitats = [frozenset(c.traits["habitat"]) for c in deck]
    assert {frozenset([h]) for h in ROWS} <= set(habitats)
    assert any(len(h) == 2 for h in habitats) and any(len(h) == 3 for h in habitats)
    for stat in ("vp", "food-cost", "egg-value", "food-value", "card-value"):
        assert all(stat in c.stats for c in deck), stat


def test_cost_values_above_one_are_data_not_a_deck_rule(rich):
    """No deck rule limits a card's value as a cost (seed 004, コストの払い方: each card's 左端の枠): the test
    fixture's birds worth 2 or 3 eggs or food compile cleanly, and its scenarios show them pay in full."""
    values = {c.stats["egg-value"] for c in birds(rich)} | {c.stats["food-value"] for c in birds(rich)}
    assert {2, 3} <= values
    diags = Diagnostics()
    outcomes = run_file(RICH / "scenarios" / "payment.yaml", diags)
    assert not diags.items, render_text(diags.items)
    failed = [f"{o.name}: {o.problems}" for o in outcomes if not o.passed]
    assert outcomes and not failed, failed


# ------------------------------------------------------------------ the payment search, against brute force


def _payable(hand, tree, garden, eggs, food) -> bool:
    """Brute force: each hand card pays eggs, food or nothing (カードごとに、卵として使うか、餌として使うか、一方
    を選ぶ); tilted tree birds pay eggs and tilted garden birds food (卵なら木エリア、餌なら庭エリアから)."""
    fixed_eggs = sum(c.stats["egg-value"] for c in tree)
    fixed_food = sum(c.stats["food-value"] for c in garden)
    for roles in itertools.product((0, 1, 2), repeat=len(hand)):
        e = fixed_eggs + sum(c.stats["egg-value"] for c, r in zip(hand, roles, strict=True) if r == 1)
        f = fixed_food + sum(c.stats["food-value"] for c, r in zip(hand, roles, strict=True) if r == 2)
        if e >= eggs and f >= food:
            return True
    return False


@pytest.mark.parametrize("seed", range(40))
def test_can_pay_matches_a_brute_force_search(rich, seed):
    """`can pay N egg and M food` (the VM's search over the payment sources of rules.yaml) answers as a
    search over every way to split the hand, with cost values of 0 to 3."""
    rng = random.Random(seed)
    plain = [c for c in birds(rich) if not c.modifiers and not c.triggers]
    hand = rng.sample(plain, rng.randint(0, 6))
    tree = [c for c in rng.sample(plain, rng.randint(0, 3)) if "tree" in c.traits["habitat"]]
    garden = [c for c in rng.sample(plain, rng.randint(0, 3)) if "garden" in c.traits["habitat"]]
    eggs, food = rng.randint(0, 6), rng.randint(0, 5)
    game = scenario_game(str(RICH), {
        "do": f"if can pay {eggs} egg and {food} food: gain 1 round", "players": 2,
        "state": {"players": [{"zones": {"hand": [c.id for c in hand], "tree-row": [c.id for c in tree],
                                         "garden-row": [c.id for c in garden]},
                               "flags": {c.id: ["tilted"] for c in tree + garden}}, {}]}})
    assert game.advance() is None
    want = _payable(hand, tree, garden, eggs, food)
    assert game.state.globals["round"] == 1 + int(want), ([c.id for c in hand], [c.id for c in tree],
                                                          [c.id for c in garden], eggs, food)


# ------------------------------------------------------------------ whole games


def test_two_player_games_end_by_the_rules(base):
    results = simulate(base, games=8, players=2, seed=1, agent_names=["random"])
    for r in results:
        assert not r.capped, f"seed {r.seed} hit the safety cap"
        assert r.turns % 2 == 0  # the last round of turns reaches the second player
        for s in range(2):
            assert r.totals[s] == sum(r.steps[s].values())


def test_a_game_runs_four_rounds_and_every_bird_is_paid_for(base):
    game = Game(base, 2, seed=4)
    game.play()
    assert not game.capped
    g = game.state.globals
    assert (g["round"], g["game-over"]) == (4, 1) or g["round"] == 3
    played = [e for e in game.events if e[0] == "move" and e[2] == "hand" and e[4].endswith("-row")]
    paid = [e for e in game.events if e[0] == "pay"]  # one per card that paid an egg or a food
    assert played and len(paid) >= len(played)  # every bird needs at least one egg (１匹目なら１個)
    for seat in range(2):
        for row in ROWS.values():
            assert len(game.vm.zone_cards(row, seat)) <= 4
        assert len(game.vm.zone_cards("hand", seat)) <= 3


def test_a_scoring_bird_is_announced(base):
    game = Game(base, 2, seed=2)
    game.play()
    played = {e[4] for e in game.events if e[0] == "emit" and e[1] == "play"}
    announced = {e[4] for e in game.events if e[0] == "emit" and e[1] == "announce"}
    scoring = {c.id for c in birds(base) if "scoring" in c.abilities}
    assert announced == played & scoring


@pytest.mark.parametrize(("difficulty", "ai_cards"), [(0, 6), (1, 7), (2, 8)])
def test_solo_games_end_by_the_rules(solo, difficulty, ai_cards):
    for seed in range(3):
        game = Game(solo, 1, seed=seed, params={"difficulty": difficulty})
        result = game.play()
        assert not result.capped
        g = game.state.globals
        ai = 1  # the AI is the automa seat after the one player
        if g["round"] == 4:
            assert len(game.vm.zone_cards("ai-area", ai)) == ai_cards  # ７枚あるはず (Normal)
        # AI のスコアは AI が獲得したカードの勝利点の合計: its score, and it wins with more
        assert result.totals[ai] == sum(solo.cards[game.state.cards[c].defn].stats.get("vp", 0)
                                        for c in game.vm.zone_cards("ai-area", ai))
        assert result.steps[0]["abilities"] == 0  # 🏆 ignored in solo play
        best = max(result.totals)
        assert result.winners == [s for s in (0, ai) if result.totals[s] == best]


# ------------------------------------------------------------------ the rule scenarios


