"""Earth: Abundance (pack earth-abundance): the pack compiles, is data only, ships at least 40
original cards, and whole seeded games from 2 to 6 players end by the rules (a complete tableau),
not by the safety cap; the same seed gives the same game.

Rules: shared/seeds/000_067930325eb8469c.txt, アバンダンス拡張. The rule scenarios are data in
cards/earth-abundance/scenarios/ (`cardsmith test cards/earth-abundance`); this file checks what
scenarios cannot: many seeded games, logs, and the pack folder itself.
"""

from __future__ import annotations

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import render_text
from cardsmith.runtime import Game
from cardsmith.runtime.simulate import simulate


@pytest.fixture(scope="module")
def earth():
    res = compile_pack("earth")
    assert res.ok, render_text(res.diagnostics.items)
    return res.pack


@pytest.fixture(scope="module")
def abundance():
    res = compile_pack("earth-abundance")
    assert res.ok, render_text(res.diagnostics.items)
    assert not res.diagnostics.items, render_text(res.diagnostics.items)
    return res.pack


def test_rules_of_the_expansion(abundance):
    assert abundance.players == (2, 6)
    assert abundance.params["completion-bonus"] == 11
    assert list(abundance.params["start-seeds"]) == [2, 1]
    assert "seed" in abundance.resources and "stored-sprouts" in abundance.resources


def test_at_least_40_original_cards(earth, abundance):
    base = {c.id for c in earth.cards}
    new = [c for c in abundance.cards if c.id not in base]
    assert len(new) >= 40
    assert all(c.original for c in new)
    assert {c.type for c in new} == {"flora", "terrain", "event"}
    assert any(c.traits.get("window") == ["end-of-turn"] for c in new)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_games_end_by_the_tableau_rule(abundance, players):
    results = simulate(abundance, games=3, players=players, seed=1, agent_names=["random"])
    for r in results:
        assert not r.capped, f"seed {r.seed} hit the safety cap"
        assert r.turns % players == 0  # the round is played out
        assert sum(r.steps[s].get("completion", 0) for s in range(players)) in (0, 11)
        for s in range(players):
            assert r.totals[s] == sum(r.steps[s].values())


def test_a_completed_tableau_ends_the_game(abundance):
    game = Game(abundance, 6, seed=2)
    result = game.play()
    assert not result.capped
    assert game.state.globals["game-over"] == 1
    assert max(len(game.vm.zone_cards("tableau", s)) for s in range(6)) == 16


@pytest.mark.parametrize("advanced, seeds", [(0, 2), (1, 1)])
def test_seeds_handed_out_at_setup(abundance, advanced, seeds):
    game = Game(abundance, 4, seed=4, params={"advanced": advanced})
    game.play()
    setup = []
    for e in game.events:
        if e[0] == "turn":
            break
        if e[0] == "gain" and e[2] == "seed":
            setup.append((e[1], e[3]))
    assert sorted(setup) == [(seat, seeds) for seat in range(4)]


