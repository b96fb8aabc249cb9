"""'each player at once' (docs/language.rst, "Every player at once"): every player chooses on the game as it was
when the statement began, without seeing the others' choices, then all the parts run for real with the answers
given. Birdscaping's setup draft (seeds/004 セットアップ: 裏向きで配る, each keeps a card before passing) and
Bazaar's picks (docs/drafting-pack) are played so; Living Forest's animal phase (seeds/002 全プレイヤー同時進行)
too."""

from __future__ import annotations

from cardsmith.compiler import compile_pack
from cardsmith.runtime.agents import RandomAgent
from cardsmith.runtime.game import Game
from cardsmith.runtime.invariants import StateChecker
from cardsmith.runtime.observation import Observation
from cardsmith.runtime.save import resume, save_text
from cardsmith.scenarios import scenario_game
from helpers import ROOT

BAZAAR = str(ROOT / "docs" / "drafting-pack")
PICK = "each player at once: choose a card in hand as pick: move the pick to stall"


def ids(game, zone: str, seat: int) -> list[str]:
    st = game.state
    return [game.pack.cards[st.cards[c].defn].id for c in st.zones[(zone, seat)] if c is not None]


def bazaar(program: str, *hands: list[str], **more) -> Game:
    return scenario_game(BAZAAR, {"players": len(hands), "do": program,
                                  "state": {"players": [{"zones": {"hand": h}} for h in hands]}, **more})


def test_the_second_player_decides_on_the_table_as_it_was():
    seen = []
    for first in (0, 1):  # player 1 keeps a different card each time
        game = bazaar(PICK, ["ruby", "pepper"], ["saffron", "diamond"])
        d = game.advance()
        assert d.seat == 0
        game.decide(first)
        d = game.advance()
        assert d.seat == 1
        table = Observation(game, 1).table()
        assert table["zones"]["stall@0"]["count"] == 0 and table["zones"]["hand@0"]["count"] == 2
        seen.append({k: v for k, v in table.items() if k != "decisions"})
    assert seen[0] == seen[1]  # what player 1 sees does not depend on player 1's pick


def test_the_picks_are_applied_together_after_everybody_chose():
    game = bazaar(PICK, ["ruby", "pepper"], ["saffron", "diamond"])
    game.decide(game.advance() and 1)
    game.decide(game.advance() and 0)
    assert game.advance() is None
    assert ids(game, "stall", 0) == ["pepper"] and ids(game, "stall", 1) == ["saffron"]
    assert ids(game, "hand", 0) == ["ruby"] and ids(game, "hand", 1) == ["diamond"]
    assert ("at once", [0, 1]) in game.events  # the log says where the choices were revealed
    assert sum(1 for e in game.events if e[0] == "move") == 2  # the unseen pass is not logged


def test_a_choice_no_longer_possible_is_asked_again():
    # both want the only ruby of the shared discard pile: the first in turn gets it, the other chooses again
    game = scenario_game(BAZAAR, {"do": "each player at once: choose a card in discard: move it to stall",
                                  "state": {"shared": {"zones": {"discard": ["pepper", "ruby", "saffron"]}}}})
    asked = []
    while (d := game.advance()) is not None:
        asked.append((d.seat, d.labels))
        game.decide(d.labels.index("Ruby (ruby)") if "Ruby (ruby)" in d.labels else 0)
    assert [s for s, _ in asked] == [0, 1, 1]
    assert "Ruby (ruby)" not in asked[2][1]  # asked again on the table as it now is
    assert ids(game, "stall", 0) == ["ruby"] and len(ids(game, "stall", 1)) == 1


def test_ending_the_game_in_the_unseen_pass_ends_only_that_part():
    game = bazaar("each player at once: choose a card in hand: move it to stall, end game",
                  ["ruby", "pepper"], ["saffron", "diamond"])
    seats = []
    while (d := game.advance()) is not None:
        seats.append(d.seat)
        game.decide(0)
    assert seats == [0, 1]  # player 2 still chose, unseen
    assert game.state.over and ids(game, "stall", 0) == ["ruby"] and ids(game, "stall", 1) == []


def test_points_scored_at_once_count_once():
    game = bazaar("each player at once: choose a card in hand: move it to stall, score 2", ["ruby", "pepper"],
                  ["saffron", "diamond"])
    while game.advance() is not None:
        game.decide(0)
    assert [game.state.scores[s].get("majorities", 0) for s in (0, 1)] == [2, 2]
    assert [e for e in game.events if e[0] == "score"] == [("score", 0, "majorities", 2),
                                                           ("score", 1, "majorities", 2)]


def test_birdscaping_draft_hides_the_opponents_pick():
    """seeds/004 セットアップ: each keeps one of four dealt face down, then passes three. The second player's
    view of the first pick is the same whatever the first player kept."""
    pack = compile_pack("birdscaping").pack
    tables = []
    for first in (0, 3):
        game = Game(pack, 2, 5, [RandomAgent(1), RandomAgent(2)])
        while (d := game.advance()) is not None and not (d.seat == 0 and d.prompt == "choose a card"):
            game.decide(game.ask(d))
        game.decide(first)
        d = game.advance()
        assert d.seat == 1 and d.prompt == "choose a card"
        tables.append({k: v for k, v in Observation(game, 1).table().items() if k != "decisions"})
    assert tables[0] == tables[1]


def _whole_game(pack, seed: int, players: int):
    return Game(pack, players, seed, [RandomAgent(seed * 31 + s) for s in range(players)])


def test_games_with_choices_at_once_are_deterministic_and_consistent():
    for pack_id, players, params in ((BAZAAR, 3, {}), ("birdscaping", 2, {"last-round": 1}),
                                     ("living-forest", 2, {"target": 2})):
        pack = compile_pack(pack_id).pack
        game = Game(pack, players, 4, [RandomAgent(4 * 31 + s) for s in range(players)], params)
        checker = StateChecker(pack, game.state)
        while (d := game.advance()) is not None:
            assert not checker.check(game.state)
            game.decide(game.ask(d))
        again = Game(pack, players, 4, [RandomAgent(4 * 31 + s) for s in range(players)], params).play()
        assert not game.result().capped and again.log_hash == game.result().log_hash


def test_a_copy_or_a_save_in_the_unseen_pass_goes_on_as_the_game_does():
    pack = compile_pack(BAZAAR).pack
    game = _whole_game(pack, 2, 3)
    while (d := game.advance()) is not None and not (d.seat == 1 and game.vm.at_once is not None):
        game.decide(game.ask(d))
    assert game.vm.at_once is not None and game.vm.at_once.phase == "choose"
    copy = game.clone()
    saved = save_text(game)
    resumed = resume(pack, saved)
    for g in (game, copy, resumed):
        while (d := g.advance()) is not None:
            g.decide(d.seat and len(d.options) - 1)  # the same answers in all three
    assert game.result().log_hash == copy.result().log_hash == resumed.result().log_hash


def test_a_sample_in_the_unseen_pass_does_not_carry_the_hidden_cards():
    """A search agent's sample during the unseen pass deals the hidden cards again in the game as it was too, so
    what the seat does not know stays unknown when the parts are run again."""
    import random

    pack = compile_pack("birdscaping").pack
    game = Game(pack, 2, 5, [RandomAgent(1), RandomAgent(2)])
    while (d := game.advance()) is not None and not (d.seat == 1 and game.vm.at_once is not None):
        game.decide(game.ask(d))
    sample = Observation(game, 1).sample(random.Random(3))
    snap, real = sample.vm.at_once.snapshot, game.vm.at_once.snapshot
    hidden = [c for c in real.zones[("hand", 0)] + real.zones[("draft", 0)]]
    assert [snap.cards[c].defn for c in hidden] == [sample.state.cards[c].defn for c in hidden]
    assert sample.vm.at_once.seeds != game.vm.at_once.seeds
