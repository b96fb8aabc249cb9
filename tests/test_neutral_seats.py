"""Neutral seats (docs/packs.rst, "Automa seats"): an automa seat that sits only in games of some player counts
(`players`), one that always has what is taken from it (`bottomless`), and scoring steps for players only or
for automa seats only (`seats`). Terraforming Mars' solo neutral player is all three; its scenarios are in
cards/terraforming-mars*/scenarios/solo.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cardsmith.compiler import compile_pack
from cardsmith.runtime import Game, ScriptedAgent
from cardsmith.runtime.invariants import StateChecker
from cardsmith.runtime.vm import RuntimeFault

RULES = {
    "players": {"min": 1, "max": 3},
    "resources": {"gold": {}, "gem": {}, "grain-production": {}},
    "zones": {"pile": {"owner": "player", "kind": "pile"}},
    "automa": {"neutral": {"name": "The Neutral", "players": {"max": 1}, "bottomless": True}},
    "scoring": [{"id": "gold", "score": "score gold", "seats": "players"},
                {"id": "gems", "score": "score gem"},
                {"id": "debt", "score": "score 0 - gold", "seats": "automa"}],
    # as in Terraforming Mars: taking another player's resources may fall short (they lose what they have)
    "may-fall-short": [{"effect": "lose", "whose": "others", "names": ["gold"]}],
}
# steal up to 2 gold from a player of your choice: X is cut to what the victim really lost
STEAL = ("choose X from 0 to 2, "
         "(choose a player: let had = gold, lose X gold, choose X from had - gold to had - gold), gain X gold")


def pack_with(tmp_path: Path, game: str, **rules):
    folder = tmp_path / "neutral"
    folder.mkdir(exist_ok=True)
    (folder / "pack.yaml").write_text("id: neutral\nname: Neutral\nversion: 0.1.0\n", encoding="utf-8")
    (folder / "rules.yaml").write_text(yaml.safe_dump({**RULES, "game": game, **rules}), encoding="utf-8")
    res = compile_pack(folder)
    return res


def play(tmp_path: Path, game: str, players: int, answers: list | None = None) -> Game:
    res = pack_with(tmp_path, game)
    assert res.ok, res.diagnostics.items
    g = Game(res.pack, players, seed=1, agents=[ScriptedAgent(list(answers or [])) for _ in range(players)])
    g.play()
    return g


def test_a_seat_declared_for_solo_games_sits_only_in_them(tmp_path):
    solo = play(tmp_path, "gain 1 gold", 1)
    assert solo.state.seats == 2 and solo.result().automa == ["neutral"]
    duo = play(tmp_path, "gain 1 gold", 2)
    assert duo.state.seats == 2 and duo.result().automa == [] and len(duo.result().totals) == 2


def test_naming_a_seat_that_does_not_sit_in_the_game_is_a_clear_fault(tmp_path):
    with pytest.raises(RuntimeFault, match="automa seat 'neutral' does not sit in a game of 2 players"):
        play(tmp_path, "automa neutral: gain 1 gem", 2)


def test_a_bottomless_seat_is_a_legal_target_and_loses_in_full(tmp_path):
    # the player has no grain production: only the neutral seat can lose one, so nothing is asked
    g = play(tmp_path, "choose a player: lose 1 grain-production", 1)
    assert g.state.counters[0]["grain-production"] == 0
    assert g.state.counters[1]["grain-production"] == -1  # what was taken from it, below the floor
    assert not g.decisions
    assert StateChecker(g.pack, g.state).check(g.state) == []  # below the minimum is no fault for it


def test_stealing_from_a_bottomless_seat_gains_the_full_amount(tmp_path):
    g = play(tmp_path, STEAL, 1, answers=[2, "The Neutral"])
    assert g.state.counters[0]["gold"] == 2 and g.state.counters[1]["gold"] == -2


def test_stealing_from_a_player_takes_only_what_they_have(tmp_path):
    g = play(tmp_path, f"(left neighbour: gain 1 gold), {STEAL}", 2, answers=[2, "player 2"])
    assert [g.state.counters[s]["gold"] for s in (0, 1)] == [1, 0]


def test_without_the_seat_the_choice_offers_only_the_players(tmp_path):
    res = pack_with(tmp_path, "(left neighbour: gain 1 grain-production), choose a player: lose 1 grain-production")
    g = Game(res.pack, 2, seed=1, agents=[ScriptedAgent([]), ScriptedAgent([])])
    g.play()  # player 2 is the only one with some: nothing is asked, and nobody else sits at the table
    assert [g.state.counters[s]["grain-production"] for s in (0, 1)] == [0, 0] and not g.decisions


def test_scoring_steps_count_the_seats_they_declare(tmp_path):
    g = play(tmp_path, "gain 3 gold, gain 1 gem, automa neutral: (gain 5 gold, gain 2 gem)", 1)
    steps = g.result().steps
    assert steps[0] == {"gold": 3, "gems": 1, "debt": 0}  # 'debt' is for automa seats only
    assert steps[1] == {"gold": 0, "gems": 2, "debt": -5}  # 'gold' is for players only
    assert g.result().winners == [0]


def test_a_seat_that_would_sit_in_no_game_is_refused(tmp_path):
    res = pack_with(tmp_path, "gain 1 gold", automa={"neutral": {"players": {"min": 4}}})
    assert not res.ok
    errors = [d for d in res.diagnostics.items if d.code == "E013"]
    assert errors and "would sit in no game" in errors[0].message and errors[0].span.line > 0


def test_an_ordinary_seat_keeps_its_floor(tmp_path):
    g = play(tmp_path, "automa neutral: lose 3 gold", 1)
    assert g.state.counters[1]["gold"] == -3
    res = pack_with(tmp_path, "automa bot: lose 3 gold", automa={"bot": {"name": "Bot"}})
    assert res.ok, res.diagnostics.items
    g = Game(res.pack, 1, seed=1, agents=[ScriptedAgent([])])
    g.play()
    assert g.state.counters[1]["gold"] == 0


def test_can_sees_x(tmp_path):
    # 'can (...)' tries a part of the program: it sees X as the program has it (a steal cut to what is there)
    g = play(tmp_path, "gain 1 gold, choose X from 0 to 2, (if can (lose X gold): gain 1 gem)", 1, answers=[2])
    assert g.state.counters[0]["gem"] == 0
    g = play(tmp_path, "gain 1 gold, choose X from 0 to 2, (if can (lose X gold): gain 1 gem)", 1, answers=[1])
    assert g.state.counters[0]["gem"] == 1
