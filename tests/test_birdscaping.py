"""Birdscaping (seed 004) and its solo mode: the packs compile, whole games end by the rules, the same
seed gives the same game, and the play action's payability test agrees with a brute-force search.

Rules: shared/seeds/004_167b57179a026a21.txt. The rule scenarios are data in
cards/birdscaping/scenarios/ (`cardsmith test cards/birdscaping`); this file checks what scenarios
cannot: many seeded games, logs, and a property of the payment rule over random positions.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import render_text
from cardsmith.runtime import Game
from cardsmith.runtime.simulate import simulate
from cardsmith.scenarios import scenario_game

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "cards" / "birdscaping"
SOLO = ROOT / "cards" / "birdscaping-solo"
ROWS = {"tree": "tree-row", "garden": "garden-row", "pond": "pond-row"}


@pytest.fixture(scope="module")
def base():
    res = compile_pack("birdscaping")
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


def test_hand_values_are_zero_or_one(base):
    """The play action's payability test is exact only with egg and food values of 0 or 1 in hand
    (cards/birdscaping/GAPS.md, payment-search): no card breaks that, and no ∞ changes them in hand."""
    for c in birds(base):
        assert c.stats["egg-value"] in (0, 1) and c.stats["food-value"] in (0, 1), c.id
        for m in c.modifiers:
            if m.stat in ("egg-value", "food-value"):
                zones = {z for z, _ in m.query["zones"]}
                assert zones and "hand" not in zones, c.id


# ------------------------------------------------------------------ the payment rule, against a search


def _payable(pack, bird, others, row_len, tilted_eggs, tilted_food) -> bool:
    """Brute force: each other hand card pays as eggs, as food or not at all (カードごとに、卵として使うか、
    餌として使うか、一方を選ぶ); tilted tree birds add eggs and tilted garden birds food."""
    need_egg, need_food = row_len + 1, max(0, bird.stats["food-cost"])
    for roles in itertools.product((0, 1, 2), repeat=len(others)):
        eggs = tilted_eggs + sum(o.stats["egg-value"] for o, r in zip(others, roles, strict=True) if r == 1)
        food = tilted_food + sum(o.stats["food-value"] for o, r in zip(others, roles, strict=True) if r == 2)
        if eggs >= need_egg and food >= need_food:
            return True
    return False


@pytest.mark.parametrize("seed", range(40))
def test_fit_counts_match_a_brute_force_search(base, seed):
    rng = random.Random(seed)
    plain = [c for c in birds(base) if not c.modifiers and not c.triggers]
    picked = rng.sample(plain, rng.randint(4, 12))
    hand = picked[: rng.randint(1, min(6, len(picked)))]
    rest = picked[len(hand):]
    rows = {r: [] for r in ROWS.values()}
    for c in rest:
        row = ROWS[rng.choice(c.traits["habitat"])]
        if len(rows[row]) < 4:
            rows[row].append(c)
    tilted = [c for r in rows.values() for c in r if rng.random() < 0.6]
    zones = {"hand": [c.id for c in hand], **{r: [c.id for c in cs] for r, cs in rows.items()}}
    game = scenario_game(str(BASE), {
        "do": "check which birds fit", "players": 2,
        "state": {"players": [{"zones": zones, "flags": {c.id: ["tilted"] for c in tilted}}, {}]}})
    assert game.advance() is None
    tilted_eggs = sum(c.stats["egg-value"] for c in rows["tree-row"] if c in tilted)
    tilted_food = sum(c.stats["food-value"] for c in rows["garden-row"] if c in tilted)
    for kind, row in ROWS.items():
        want = 0
        if len(rows[row]) < 4:
            for i, b in enumerate(hand):
                if kind in b.traits["habitat"]:
                    others = hand[:i] + hand[i + 1:]
                    want += _payable(base, b, others, len(rows[row]), tilted_eggs, tilted_food)
        assert game.state.counters[0][f"fit-{kind}"] == want, (kind, [c.id for c in hand], rows)


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
    moves = [e for e in game.events if e[0] == "move" and e[2] == "nest"]
    assert moves and all(e[4] != "hand" for e in moves)  # a bird offered was always paid for in full
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


