"""`cardsmith replay` on damaged logs: every failure names the line of the log where the replay parted
from it (and the last decision before that line), and a damaged log changes nothing."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.runtime import Game
from cardsmith.runtime.replay import LogError, log_text, replay


@pytest.fixture(scope="module")
def earth():
    return compile_pack("earth").pack


@pytest.fixture(scope="module")
def logged(earth):
    game = Game(earth, 3, seed=12, params={"tableau-size": 5})
    game.play()
    return log_text(game)


def _decisions(lines: list[str]) -> list[int]:
    """0-based indexes of the decision lines."""
    return [i for i, line in enumerate(lines) if line.startswith('["decide"')]


def test_an_edited_choice_names_the_decision(earth, logged):
    lines = logged.rstrip("\n").split("\n")
    i = next(i for i in _decisions(lines) if json.loads(lines[i])[3] >= 3)
    event = json.loads(lines[i])
    event[4] = (event[4] + 1) % event[3]
    lines[i] = json.dumps(event, separators=(",", ":"))
    report = replay(earth, "\n".join(lines))
    assert not report.ok
    assert report.first_difference > i + 1
    assert report.after_decision == i + 1  # 1-based line of the edited decision
    assert f"line {report.first_difference}" in report.describe()
    assert f"the last decision before it is on line {i + 1}" in report.describe()


def test_a_decision_the_game_does_not_ask_for(earth, logged):
    lines = logged.rstrip("\n").split("\n")
    i = _decisions(lines)[5]
    event = json.loads(lines[i])
    event[3] += 1  # one option more than the game offers
    lines[i] = json.dumps(event, separators=(",", ":"))
    report = replay(earth, "\n".join(lines))
    assert not report.ok and report.first_difference == i + 1
    assert "the game asks player" in report.message
    event[3] -= 1
    event[4] = event[3] + 3  # a choice out of range
    lines[i] = json.dumps(event, separators=(",", ":"))
    report = replay(earth, "\n".join(lines))
    assert report.first_difference == i + 1 and "is not one of the" in report.message


def test_an_edited_event_line(earth, logged):
    lines = logged.rstrip("\n").split("\n")
    i = next(i for i, line in enumerate(lines) if line.startswith('["gain"'))
    event = json.loads(lines[i])
    event[3] += 1
    lines[i] = json.dumps(event, separators=(",", ":"))
    report = replay(earth, "\n".join(lines))
    assert report.first_difference == i + 1
    assert report.expected == lines[i] and report.got != lines[i]


@pytest.mark.parametrize("keep", [0.2, 0.5, 0.9])
def test_a_truncated_log(earth, logged, keep):
    lines = logged.rstrip("\n").split("\n")
    cut = int(len(lines) * keep)
    report = replay(earth, "\n".join(lines[:cut]))
    assert not report.ok
    assert report.first_difference == cut + 1
    assert "truncated" in report.message


def test_the_result_line_edited_or_missing(earth, logged):
    lines = logged.rstrip("\n").split("\n")
    report = replay(earth, "\n".join(lines[:-1]))
    assert report.first_difference == len(lines)
    result = json.loads(lines[-1])
    result["result"]["totals"][0] += 1
    lines[-1] = json.dumps(result, sort_keys=True)
    report = replay(earth, "\n".join(lines))
    assert report.first_difference == len(lines)


def test_extra_decisions_after_the_end(earth, logged):
    lines = logged.rstrip("\n").split("\n")
    lines.insert(len(lines) - 1, '["decide",0,"may",2,1]')
    report = replay(earth, "\n".join(lines))
    assert not report.ok and report.first_difference == len(lines) - 1


@pytest.mark.parametrize(("edit", "line", "message"), [
    (lambda ls: ls.__setitem__(7, "{not json"), 8, "not JSON"),
    (lambda ls: ls.__setitem__(9, '["decide",0,"may",2]'), 10, "a decision must be"),
    (lambda ls: ls.__setitem__(9, '["decide",0,"may",2,true]'), 10, "a decision must be"),
    (lambda ls: ls.__setitem__(0, ls[0].replace('"players": 3', '"players": "3"')), 1, "'players'"),
])
def test_malformed_lines_are_named(earth, logged, edit, line, message):
    lines = logged.rstrip("\n").split("\n")
    edit(lines)
    with pytest.raises(LogError) as err:
        replay(earth, "\n".join(lines))
    assert err.value.line == line and message in err.value.message


def test_cli_names_the_line(earth, logged, tmp_path):
    lines = logged.rstrip("\n").split("\n")
    good = tmp_path / "good.jsonl"
    good.write_text(logged, encoding="utf-8")
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:100]) + "\n", encoding="utf-8")
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines[:4], "oops", *lines[5:]]) + "\n", encoding="utf-8")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(logged.encode()[:200] + b"\n\xff\xfe\n")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    res = CliRunner().invoke(main, ["replay", str(good), str(cut), str(broken), str(binary)])
    assert res.exit_code == 1
    assert f"{good}: replayed" in res.output
    assert f"{cut}:101: the replay differs from the log at line 101" in res.output
    assert f"{broken}:5: not JSON" in res.output
    assert f"{binary}:" in res.output and "not UTF-8" in res.output
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
