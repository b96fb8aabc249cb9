"""Agents see only what their seat may see (runtime/observation.py, runtime/visibility.py).

For every built-in pack, at decisions along a seeded game: a second game that differs from the first
only in cards hidden from the deciding seat (dealt again among the places they could be) gives that
seat the same observation, the same decision (prompt, labels, number of options, asked again of the
changed cards) and the same answer from every agent seeded alike.
"""

from __future__ import annotations

import random

import pytest
from conftest import BUILTIN_PACKS

from cardsmith.runtime import Game
from cardsmith.runtime.agents import GreedyAgent, RandomAgent
from cardsmith.runtime.observation import Hidden, Observation
from cardsmith.runtime.search import SearchAgent
from cardsmith.runtime.visibility import visibility_for, zone_mode

STOPS = (15, 60, 150)  # decisions into the game at which the seat's view is compared


def reask(game: Game) -> None:
    """Ask the pending decision again, from the game's cards as they are now."""
    game.pending = game.vm.pending = game.vm.answer = None
    if game.vm.frames:
        game.vm.frames[-1].memo = None
    game.advance(limit_decisions=0)


def hidden_swap(game: Game, seat: int, rng: random.Random) -> tuple[Game, int]:
    """A copy of `game` in which the cards `seat` neither sees nor remembers trade places with others of the
    same back (worked out here from the zones' declarations, apart from the sampler under test), and how
    many cards changed."""
    other = game.clone()
    st = other.state
    vis = visibility_for(game.pack)
    groups: dict[tuple, list[int]] = {}
    for cid, card in enumerate(st.cards):
        zone = st.zones[(card.zone, card.seat)]
        mode = vis.modes[card.zone]
        on_top = bool(zone) and zone[-1] == cid
        unseen = (mode in ("count", "nobody") or (mode == "owner" and card.seat != seat)
                  or (mode == "top" and not on_top)
                  or (card.face_down and card.seat != seat and mode == "everyone"))
        if unseen and card.zone not in vis.reveals and not st.known.get(cid, 0) >> seat & 1:
            groups.setdefault(vis.backs[card.defn], []).append(cid)
    changed = 0
    for cids in groups.values():
        defns = [st.cards[c].defn for c in cids]
        rng.shuffle(defns)
        for c, d in zip(cids, defns, strict=True):
            changed += st.cards[c].defn != d
            st.cards[c].defn = d
    reask(other)
    return other, changed


def stops(pack, seed: int = 3):
    """The game at each of STOPS decisions (random agents), as a fresh copy."""
    players = max(pack.players[0], min(2, pack.players[1]))  # two where the pack allows: an opponent to hide from
    game = Game(pack, players, seed)
    made = 0
    for stop in STOPS:
        while made < stop:
            d = game.advance()
            if d is None:
                return
            game.decide(game.ask(d))
            made += 1
        if game.advance() is not None:
            yield game.clone()


@pytest.mark.parametrize("pack", BUILTIN_PACKS)
def test_a_seat_observes_nothing_of_the_cards_it_cannot_see(pack, compiled):
    p = compiled(pack)
    changed_somewhere = 0
    for game in stops(p):
        seat = game.pending.seat
        other, changed = hidden_swap(game, seat, random.Random(11))
        changed_somewhere += changed
        mine, theirs = Observation(game, seat), Observation(other, seat)
        assert mine.table() == theirs.table()
        d, e = mine.decision, theirs.decision
        assert (d.kind, d.prompt, d.labels, len(d.options)) == (e.kind, e.prompt, e.labels, len(e.options))
        for agent in (lambda: RandomAgent(5), lambda: GreedyAgent(5, horizon=3),
                      lambda: SearchAgent(5, iterations=6, depth=3)):
            assert agent().choose(mine, d) == agent().choose(theirs, e)
    if visibility_for(p).hides:
        assert changed_somewhere, "the test changed no hidden card: it checks nothing"


@pytest.mark.parametrize("pack", BUILTIN_PACKS)
def test_a_sample_keeps_everything_the_seat_knows(pack, compiled):
    p = compiled(pack)
    for game in stops(p):
        obs = Observation(game, game.pending.seat)
        sample = obs.sample(random.Random(2))
        assert Observation(sample, obs.seat).table() == obs.table()


def test_a_hidden_card_is_an_option_named_by_its_zone_only(compiled):
    """Earth's 'take a card from the deck' (draw, optional) offers the top card: the seat sees 'a card from the
    deck', never the card (the issue's 'Draw 1 card' leak)."""
    p = compiled("earth")
    game = Game(p, 2, 1)
    seen = 0
    while (d := game.advance()) is not None and seen < 3:
        if d.prompt == "take a card from deck":
            obs = Observation(game, d.seat)
            assert isinstance(obs.decision.options[0], Hidden)
            top = p.cards[game.state.cards[d.options[0]].defn]
            assert all(top.name not in label for label in obs.decision.labels)
            assert obs.decision.labels[0] == "a card from the deck"
            seen += 1
        game.decide(game.ask(d))
    assert seen


def test_the_draft_passer_remembers_what_it_passed(compiled):
    """Birdscaping's draft: the cards a player passes to the opponent stay known to the passer (it watched
    them go), the one the opponent keeps from their own deal does not."""
    p = compiled("birdscaping")
    game = Game(p, 2, 4)
    st = game.state
    while (d := game.advance()) is not None:
        if d.seat == 0 and len(st.zones[("hand", 0)]) == 1 and len(st.zones[("hand", 1)]) == 1:
            break  # the second pick of the draft: each kept one card and passed three
        game.decide(game.ask(d))
    obs = Observation(game, 0)
    passed = sorted(p.cards[st.cards[c].defn].id for c in st.zones[("draft", 1)])
    assert obs.zone("draft", 1) == {"count": 3, "known": passed}
    assert obs.zone("hand", 1) == {"count": 1, "known": []}
    assert obs.zone("hand", 0)["cards"][0] is not None  # its own hand, in full


def test_visibility_modes_read_from_rules():
    assert zone_mode({"kind": "pile", "hidden": True}) == "count"
    assert zone_mode({"kind": "hand", "hidden": True}) == "owner"
    assert zone_mode({"kind": "pile", "visible": "top"}) == "top"
    assert zone_mode({"kind": "row"}) == "everyone"
