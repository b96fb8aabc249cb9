"""Players as values, player flags and rankings (docs/language.rst: "Players as values", "Player flags",
"Rankings"), on the documentation's drafting pack, Bazaar (docs/drafting-pack), and on Terraforming Mars'
awards (seeds/003 ６）②).

A chosen player is acted upon: the choices inside `the NAME: ...` stay with the player who chose, unless the
text says `the NAME chooses: ...`. A ranking places the players by a value worked out for each, and its tie
mode says who gets a shared place."""

from __future__ import annotations

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.scenarios import scenario_game
from helpers import ROOT

BAZAAR = str(ROOT / "docs" / "drafting-pack")


def ids(game, zone: str, seat: int) -> list[str]:
    st = game.state
    return [game.pack.cards[st.cards[c].defn].id for c in st.zones[(zone, seat)] if c is not None]


def hands(*per_seat: list[str], zone: str = "hand") -> dict:
    return {"players": [{"zones": {zone: cards}} for cards in per_seat]}


def play(game, answer) -> list:
    """Run the game's program to its end; `answer(decision)` gives each answer. The decisions met, in order."""
    met = []
    while (d := game.advance()) is not None:
        met.append(d)
        game.decide(answer(d))
    return met


# ------------------------------------------------------------------ choosing a player


def test_a_named_player_is_chosen_among_those_the_filters_allow():
    game = scenario_game(BAZAAR, {"players": 4, "do": "choose a player other than you with no veiled as rival: "
                                                       "move a card from stall of the rival to stall",
                                  "state": {"players": [{}, {"counters": {"veiled": 1}, "zones": {"stall": ["ruby"]}},
                                                        {"zones": {"stall": ["pepper"]}},
                                                        {"zones": {"stall": ["saffron"]}}]}})
    d = game.advance()
    assert d.kind == "player" and d.seat == 0
    assert d.labels == ["player 3", "player 4"]  # not the chooser, not the veiled player 2
    game.decide(1)
    assert game.advance() is None  # one card in player 4's stall: nothing else to choose
    assert ids(game, "stall", 0) == ["saffron"] and ids(game, "stall", 3) == []


def test_a_counter_filter_reads_the_candidate_and_compares_with_the_chooser():
    game = scenario_game(BAZAAR, {"players": 3, "do": "choose a player with coin > coin as richer: gain 5 coin",
                                  "state": {"players": [{"counters": {"coin": 2}}, {"counters": {"coin": 2}},
                                                        {"counters": {"coin": 3}}]}})
    assert game.advance() is None  # only player 3 has more coins than the chooser: not asked
    assert game.state.counters[0]["coin"] == 7


def test_nobody_to_choose_skips_what_the_choice_governs():
    game = scenario_game(BAZAAR, {"do": "choose a player other than you with coin >= 2 as rival: gain 1 coin",
                                  "state": {"players": [{}, {"counters": {"coin": 1}}]}})
    assert game.advance() is None
    assert game.state.counters[0]["coin"] == 0


def test_choices_in_a_named_players_scope_stay_with_the_chooser():
    # the rival discards a card of their hand, chosen by the player who chose the rival
    game = scenario_game(BAZAAR, {"do": "choose a player other than you as rival: the rival: "
                                        "move a card from hand to discard", **{"state": hands([], ["ruby", "pepper"])}})
    met = play(game, lambda d: 1)
    assert [(d.kind, d.seat) for d in met] == [("card", 0)]
    assert ids(game, "hand", 1) == ["ruby"]


def test_the_named_player_chooses_when_the_text_says_so():
    game = scenario_game(BAZAAR, {"do": "choose a player other than you as rival: the rival chooses: "
                                        "move a card from hand to discard", **{"state": hands([], ["ruby", "pepper"])}})
    met = play(game, lambda d: 0)
    assert [(d.kind, d.seat) for d in met] == [("card", 1)]


def test_a_chosen_players_scope_keeps_the_choices_with_the_chooser():
    game = scenario_game(BAZAAR, {"players": 3, "do": "choose a player other than you: move a card from hand to stall",
                                  "state": hands([], ["ruby", "pepper"], ["diamond", "saffron"])})
    met = play(game, lambda d: 0 if d.kind == "player" else 1)
    assert [(d.kind, d.seat) for d in met] == [("player", 0), ("card", 0)]
    assert ids(game, "stall", 1) == ["pepper"]


def test_each_player_in_a_named_scope_decides_for_themselves():
    game = scenario_game(BAZAAR, {"players": 3, "do": "choose a player other than you as rival: the rival: "
                                                       "each player: move a card from hand to stall",
                                  "state": hands(["ruby", "pepper"], ["ruby", "pepper"], ["ruby", "pepper"])})
    met = play(game, lambda d: 0)
    assert [(d.kind, d.seat) for d in met] == [("player", 0), ("card", 1), ("card", 2), ("card", 0)]


def test_legal_targets_of_a_named_choice_are_those_for_whom_it_can_be_done():
    # a mandatory effect on the rival: only the players who have the card can be chosen
    pack = compile_pack(BAZAAR).pack
    assert pack is not None
    game = scenario_game(BAZAAR, {"players": 3, "do": "choose a player other than you as rival: "
                                                       "move 1 card from stall of the rival with good gem to discard",
                                  "state": {"players": [{}, {"zones": {"stall": ["pepper"]}},
                                                        {"zones": {"stall": ["ruby"]}}]}})
    d = game.advance()
    assert d is None  # only player 3 has a gem: chosen without asking
    assert ids(game, "stall", 2) == []


def test_player_flags_are_marked_read_and_cleared():
    game = scenario_game(BAZAAR, {"players": 3, "do": "mark you veiled, mark left neighbour veiled, "
                                                       "(if veiled and veiled of left neighbour: gain 2 coin), "
                                                       "unmark you veiled, (if not veiled: gain 1 coin)"})
    assert game.advance() is None
    assert game.state.counters[0]["coin"] == 3
    assert game.state.counters[0]["veiled"] == 0 and game.state.counters[1]["veiled"] == 1


# ------------------------------------------------------------------ rankings


@pytest.mark.parametrize("ties, expected", [
    ("share", [6, 6, 0]),    # both tied for the most get it all
    ("split", [3, 3, 0]),    # they split it, rounded down
    ("none", [0, 0, 0]),     # a tied place goes to nobody
    ("friendly", [6, 6, 0]),
])
def test_tie_modes_for_the_most(ties, expected):
    game = scenario_game(BAZAAR, {"players": 3, "do": f"for the players with the most coin (ties {ties}): score 6",
                                  "state": {"players": [{"counters": {"coin": 4}}, {"counters": {"coin": 4}},
                                                        {"counters": {"coin": 1}}]}})
    assert game.advance() is None
    assert [game.state.scores[s].get("majorities", 0) for s in range(3)] == expected


@pytest.mark.parametrize("ties, expected", [
    ("share", [0, 0, 2, 0]),     # places count distinct values: after two tied for first, the next is second
    ("friendly", [0, 0, 0, 0]),  # two tied for first use up first and second: nobody is second
])
def test_second_place_after_a_tie_for_the_most(ties, expected):
    game = scenario_game(BAZAAR, {"players": 4, "do": f"for the players with the second most coin (ties {ties}): "
                                                       "score 2",
                                  "state": {"players": [{"counters": {"coin": 5}}, {"counters": {"coin": 5}},
                                                        {"counters": {"coin": 3}}, {"counters": {"coin": 1}}]}})
    assert game.advance() is None
    assert [game.state.scores[s].get("majorities", 0) for s in range(4)] == expected


def test_friendly_second_place_is_shared_by_those_tied_for_it():
    game = scenario_game(BAZAAR, {"players": 4, "do": "for the players with the second most coin (ties friendly): "
                                                       "score 2",
                                  "state": {"players": [{"counters": {"coin": 5}}, {"counters": {"coin": 3}},
                                                        {"counters": {"coin": 3}}, {"counters": {"coin": 1}}]}})
    assert game.advance() is None
    assert [game.state.scores[s].get("majorities", 0) for s in range(4)] == [0, 2, 2, 0]


def test_fewest_and_the_condition_form():
    game = scenario_game(BAZAAR, {"players": 3, "do": "(for the players with the fewest coin: gain 10 coin), "
                                                       "each player: if you have the most coin: score 1",
                                  "state": {"players": [{"counters": {"coin": 4}}, {"counters": {"coin": 2}},
                                                        {"counters": {"coin": 3}}]}})
    assert game.advance() is None
    assert [game.state.counters[s]["coin"] for s in range(3)] == [4, 12, 3]
    assert [game.state.scores[s].get("majorities", 0) for s in range(3)] == [0, 1, 0]


def test_highest_and_lowest_over_the_players():
    game = scenario_game(BAZAAR, {"players": 3, "do": "gain highest(coin) - lowest(coin) coin",
                                  "state": {"players": [{"counters": {"coin": 4}}, {"counters": {"coin": 9}},
                                                        {"counters": {"coin": 1}}]}})
    assert game.advance() is None
    assert game.state.counters[0]["coin"] == 12


@pytest.mark.parametrize("heat, expected", [
    ([4, 9, 6], [0, 5, 2]),           # ６）② 1位が５VP、２位が２VP
    ([9, 9, 6], [5, 5, 0]),           # １位が複数名いる場合は...それ以外のプレイヤーはVPを受け取ることはできない
    ([9, 6, 6, 1], [5, 2, 2, 0]),     # a tie for second: each gets 2
])
def test_terraforming_mars_awards_are_a_friendly_ranking(heat, expected):
    game = scenario_game("terraforming-mars", {
        "players": len(heat), "score": True, "do": "nothing",
        "state": {"players": [{"counters": {"heat": h}} for h in heat],
                  "shared": {"zones": {"awards": ["thermalist"]}, "pieces": {"thermalist": {"funding": 1}}}}})
    game.play()
    assert [game.state.scores[s].get("awards", 0) for s in range(len(heat))] == expected


def test_ranking_entries_may_rank_the_fewest_first():
    # Bazaar: tied on points, fewer coins wins (rules.yaml ranking: most: total-score, fewest: coin)
    game = scenario_game(BAZAAR, {"score": True, "do": "nothing",
                                  "state": {"players": [{"counters": {"coin": 2}, "zones": {"stall": ["ruby"]}},
                                                        {"counters": {"coin": 1}, "zones": {"stall": ["ruby"]}}]}})
    result = game.play()
    assert result.totals[0] == result.totals[1] and result.winners == [1]


# ------------------------------------------------------------------ misuse


def _check(program: str, pack: str = BAZAAR, kind: str = "program") -> list[tuple[str, str]]:
    res = compile_pack(pack)
    assert res.compiler is not None
    diags = Diagnostics()
    before = len(res.compiler.diags.items)
    from cardsmith.compiler.yamlsrc import load_yaml_text

    doc = load_yaml_text(f'do: "{program}"\n', "<test>", diags)
    res.compiler.snippet(doc, ("do",), "test", scoring=kind == "scoring")
    new = res.compiler.diags.items[before:]
    del res.compiler.diags.items[before:]
    return [(d.code, d.message) for d in new]


@pytest.mark.parametrize("program, code, words", [
    ("choose a player other than you as rival: move the rival to discard", "E102", "is a player, not a card"),
    ("the rival: gain 1 coin", "E101", "no player is named 'rival'"),
    ("choose a card in hand as pick: the pick: gain 1 coin", "E102", "is a card, not a player"),
    ("mark you fresh", "E102", "marks cards, not players"),
    ("mark each card in stall veiled", "E102", "marks players, not cards"),
    ("choose a player with veiled >= 1 as rival: gain 1 coin", "E102", "is a yes/no mark"),
    ("choose a player with good as rival: gain 1 coin", "E102", "about cards"),
    ("for the players with the most coin (ties shared): gain 1 coin", "E144", "unknown way to break a tie"),
    ("if you have the most coin (ties split): gain 1 coin", "E144", "divides a reward"),
])
def test_misuse_is_located_and_explained(program, code, words):
    found = _check(program)
    assert any(c == code and words in m for c, m in found), found


def test_a_ranking_scope_in_a_scoring_step_is_refused():
    found = _check("for the players with the most coin: score 1", kind="scoring")
    assert any(c == "E144" and "scoring step" in m for c, m in found), found


# ------------------------------------------------------------------ counting players


def test_players_are_counted_by_their_flags_and_counters():
    """count(players [other than you] [with FILTERS]): the players (not automa seats) the filters keep, as 'each
    player' goes over them; Terraforming Mars ends its action phase when no player is left who has not passed
    (seeds/003 ４）③)."""
    state = {"players": [{"counters": {"veiled": 1, "coin": 4}}, {"counters": {"coin": 1}},
                         {"counters": {"veiled": 1, "coin": 6}}, {}]}
    game = scenario_game(BAZAAR, {"players": 4, "state": state, "do": (
        "gain count(players with veiled) coin, "                                   # 2: players 1 and 3
        "(left neighbour: gain count(players other than you with coin >= 4) coin), "   # 2: players 1 and 3
        "(right neighbour: gain count(players with no veiled and not coin > 0) coin)")})  # 1: player 4
    assert game.advance() is None
    assert [game.state.counters[s].get("coin", 0) for s in range(4)] == [6, 3, 6, 1]
