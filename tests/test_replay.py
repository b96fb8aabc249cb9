"""Event logs replay exactly; a tampered log is caught."""

from __future__ import annotations

import json

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.runtime import Game
from cardsmith.runtime.replay import LogError, log_text, replay


@pytest.fixture(scope="module")
def earth():
    return compile_pack("earth").pack


def test_a_logged_game_replays_line_for_line(earth):
    game = Game(earth, 3, seed=21)
    game.play()
    report = replay(earth, log_text(game))
    assert report.ok, (report.first_difference, report.expected, report.got)
    assert report.decisions == len(game.decisions)


def test_a_changed_decision_is_detected(earth):
    game = Game(earth, 2, seed=4)
    game.play()
    lines = log_text(game).split("\n")
    i = next(i for i, line in enumerate(lines) if line.startswith('["decide"') and json.loads(line)[3] == 2)
    event = json.loads(lines[i])
    event[4] = 1 - event[4]
    lines[i] = json.dumps(event, separators=(",", ":"))
    assert not replay(earth, "\n".join(lines)).ok


@pytest.mark.parametrize(("text", "message"), [
    ("not json\n", "not JSON"),
    ('{"hello": 1}\n', "not a cardsmith log"),
    ('{"cardsmith-log": 99, "pack": "earth"}\n', "log format 99"),
    ('{"cardsmith-log": 1, "pack": "earth", "version": "0.0.0", "players": 3, "seed": 1, "params": {}}\n',
     "this is version"),
    ('{"cardsmith-log": 1, "pack": "earth", "version": "0.1.0", "players": 9, "seed": 1, "params": {}}\n',
     "2 to 5 players"),
])
def test_corrupt_logs_give_a_clear_error(earth, text, message):
    text = text.replace('"0.1.0"', json.dumps(earth.version))
    with pytest.raises(LogError, match=message):
        replay(earth, text)
