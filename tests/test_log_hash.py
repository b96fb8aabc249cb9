"""The event-log hash is kept up to date as a game goes (runtime/game.py): it must stay exactly the hash of
the log's lines as they were always made, one json.dumps per event, whenever it is asked for."""

from __future__ import annotations

import hashlib
import json

import pytest

from cardsmith.runtime.game import Game


def hash_of_lines(game: Game) -> str:
    """The hash as every earlier cardsmith computed it: each line a fresh json.dumps, then a newline."""
    h = hashlib.sha256()
    lines = [json.dumps(game.header(), sort_keys=True)]
    lines += [json.dumps(list(e), separators=(",", ":")) for e in game.events]
    for line in lines:
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


@pytest.mark.parametrize(("pack_id", "players"), [("earth", 2), ("living-forest", 3), ("birdscaping", 2),
                                                  ("terraforming-mars", 1)])
def test_the_hash_is_the_hash_of_the_lines_at_every_point(compiled, pack_id, players):
    game = Game(compiled(pack_id), players, seed=3, max_decisions=400)
    asked = 0
    while (d := game.advance()) is not None:
        if asked % 37 == 0:  # asked now and then, as saves do: only the events since are encoded
            assert game.log_hash() == hash_of_lines(game)
        game.decide(game.agents[d.seat].choose(game, d))
        asked += 1
    assert game.result().log_hash == hash_of_lines(game)
    assert game.log_lines() == [json.dumps(game.header(), sort_keys=True),
                                *(json.dumps(list(e), separators=(",", ":")) for e in game.events)]


def test_a_clone_hashes_its_own_events(compiled):
    game = Game(compiled("earth"), 2, seed=5)
    for _ in range(30):
        game.decide(game.agents[game.advance().seat].choose(game, game.pending))
    game.log_hash()
    copy = game.clone()
    for g in (copy, game):
        for _ in range(10):
            g.advance()
            g.decide(0)
    assert copy.log_hash() == hash_of_lines(copy) and game.log_hash() == hash_of_lines(game)
