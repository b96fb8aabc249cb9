"""Save a game mid-way and resume it (runtime/save.py): same process, a new process, the CLI;
damaged or edited saves are refused with the line at fault and change nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.runtime import Game
from cardsmith.runtime.agents import GreedyAgent, RandomAgent
from cardsmith.runtime.replay import log_text
from cardsmith.runtime.save import (
    SAVE_FORMAT,
    SaveError,
    parse_save,
    play_until,
    read_save,
    resume,
    save_text,
    write_save,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def earth():
    return compile_pack("earth").pack


def _agents(seed: int, n: int, greedy: bool = False):
    agents = [RandomAgent(seed * 7919 + i) for i in range(n)]
    if greedy:
        agents[-1] = GreedyAgent(seed, max_options=3)
    return agents


def _game(pack, n=3, seed=7, params=None, greedy=False):
    return Game(pack, n, seed, _agents(seed, n, greedy), params or {"tableau-size": 6})


@pytest.mark.parametrize(("n", "seed", "at", "greedy"), [(2, 3, 0, False), (3, 7, 1, False), (3, 7, 137, False),
                                                          (4, 11, 400, False), (2, 5, 60, True)])
def test_resume_continues_exactly(earth, n, seed, at, greedy):
    whole = _game(earth, n, seed, greedy=greedy).play()
    game = _game(earth, n, seed, greedy=greedy)
    play_until(game, at)
    text = save_text(game)
    resumed = resume(earth, text)
    assert len(resumed.decisions) == len(game.decisions) == min(at, whole.decisions)
    assert resumed.state.turn == game.state.turn
    result = resumed.play()
    assert result.log_hash == whole.log_hash
    assert result.totals == whole.totals and result.decisions == whole.decisions
    # the original, played on after being saved, is unaffected by the save
    assert game.play().log_hash == whole.log_hash


def test_save_at_the_end_and_save_twice(earth):
    game = _game(earth, 2, 4)
    whole = game.play()
    again = resume(earth, save_text(game))
    assert again.advance() is None and again.play().log_hash == whole.log_hash
    game = _game(earth, 2, 4)
    play_until(game, 50)
    first = resume(earth, save_text(game))
    play_until(first, 120)
    second = resume(earth, save_text(first))  # a save of a resumed game
    assert second.play().log_hash == whole.log_hash


def test_resume_in_a_new_process(earth, tmp_path):
    whole = _game(earth, 3, 21).play()
    game = _game(earth, 3, 21)
    play_until(game, 250)
    path = write_save(game, tmp_path / "game.save.json")
    code = ("import sys\nfrom cardsmith.compiler import compile_pack\nfrom cardsmith.runtime.save import read_save, "
            "resume\ng = resume(compile_pack('earth').pack, read_save(sys.argv[1]))\nprint(g.play().log_hash)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == whole.log_hash


def test_the_save_file_is_readable_and_versioned(earth):
    game = _game(earth, 2, 8)
    play_until(game, 30)
    text = save_text(game)
    lines = text.splitlines()
    assert lines[0].startswith(f'{{"cardsmith-save": {SAVE_FORMAT}, "pack": "earth"')
    data = json.loads(text)
    assert data["at"]["decisions"] == 30 and len(data["decisions"]) == 30
    assert data["agents"][0]["name"] == "random" and len(data["agents"][0]["rng"][1]) == 625
    # one decision per line, with the label of the option chosen
    first = lines.index(' "decisions": [') + 1
    assert json.loads(lines[first].rstrip(",")) == data["decisions"][0]
    assert all(isinstance(d[4], str) for d in data["decisions"])


def test_cli_save_at_and_resume(tmp_path):
    save = tmp_path / "g.save.json"
    log = tmp_path / "g.jsonl"
    runner = CliRunner()
    args = ["simulate", "earth", "-n", "1", "-p", "3", "--seed", "9", "--json", "--no-progress",
            "--param", "tableau-size=5"]
    whole = runner.invoke(main, args)
    assert whole.exit_code == 0, whole.output
    expected = json.loads(whole.stdout)["games"][0]
    saved = runner.invoke(main, [*args, "--save-at", "80", str(save)])
    assert saved.exit_code == 0, saved.output
    assert json.loads(saved.stdout)["games"][0]["log_hash"] == expected["log_hash"]
    res = runner.invoke(main, ["resume", str(save), "--json", "--log", str(log)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["resumed_at"] == 80 and out["log_hash"] == expected["log_hash"] and out["totals"] == expected["totals"]
    replayed = runner.invoke(main, ["replay", str(log)])
    assert replayed.exit_code == 0, replayed.output


# ----------------------------------------------------------------------------- damaged saves


@pytest.fixture(scope="module")
def saved(earth):
    game = _game(earth, 3, 7)
    play_until(game, 120)
    return save_text(game)


def _edit_decision(text: str, i: int, change) -> tuple[str, int]:
    lines = text.split("\n")
    first = lines.index(' "decisions": [') + 1
    line = lines[first + i]
    comma = line.endswith(",")
    d = json.loads(line.strip().rstrip(","))
    change(d)
    lines[first + i] = "  " + json.dumps(d) + ("," if comma else "")
    return "\n".join(lines), first + i + 1


def _card_decision(text: str) -> int:
    data = json.loads(text)
    return next(i for i, d in enumerate(data["decisions"]) if "(" in d[4])


def _damaged(saved: str):
    """(what, text, expected line or None, message) for each kind of damage."""
    data = json.loads(saved)
    cases = [
        ("truncated", saved[: len(saved) // 2], None, "not valid JSON"),
        ("empty", "", 1, "not valid JSON"),
        ("not json", "hello\n", 1, "not valid JSON"),
        ("not a save", '{"hello": 1}\n', 1, "not a cardsmith save"),
        ("a list", "[1, 2]\n", 1, "not a cardsmith save"),
        ("newer format", saved.replace('"cardsmith-save": 1', '"cardsmith-save": 2'), 1, "save format 2"),
        ("another pack", saved.replace('"pack": "earth"', '"pack": "mars"'), 1, "of pack 'mars'"),
        ("another version", saved.replace(f'"version": "{data["version"]}"', '"version": "9.9.9"'), 1,
         "this is version"),
        ("more players than agents", saved.replace('"players": 3', '"players": 9'), 2, "3 agents for 9 players"),
        ("unknown parameter", saved.replace('"params": {', '"params": {"nope": 1, '), 1, "unknown rule parameter"),
        ("parameter of the wrong type", saved.replace('"tableau-size": 6', '"tableau-size": "6"'), 1,
         "rule parameter 'tableau-size' is a whole number (default 16), not \"6\""),
        ("format true", saved.replace('"cardsmith-save": 1', '"cardsmith-save": true'), 1, "save format True"),
        ("seed not a number", saved.replace('"seed": 7', '"seed": "7"'), 1, "'seed' is missing or not a whole"),
        ("count disagrees", saved.replace('"decisions": 120', '"decisions": 121'), 1, "lists 120"),
    ]
    lines = saved.split("\n")
    agent_line = lines.index(' "agents": [') + 2
    cases.append(("unknown agent", saved.replace('{"name": "random"', '{"name": "cheater"', 1), agent_line,
                  "'cheater' is not one of the agents"))
    cases.append(("damaged rng", saved.replace('"rng": [3, [', '"rng": [3, [-5, ', 1), agent_line,
                  "random-generator state"))
    text, line = _edit_decision(saved, 10, lambda d: d.__setitem__(3, d[2] + 5))
    cases.append(("choice out of range", text, line, "is not one of the"))
    text, line = _edit_decision(saved, 10, lambda d: d.__setitem__(2, d[2] + 1))
    cases.append(("wrong option count", text, line, "the game asks player"))
    text, line = _edit_decision(saved, 10, lambda d: d.__setitem__(0, (d[0] + 1) % 3))
    cases.append(("wrong seat", text, line, "the game asks player"))
    text, line = _edit_decision(saved, 10, lambda d: d.__setitem__(1, 7))
    cases.append(("bad decision form", text, line, "must be [seat, kind, options, choice, label]"))
    i = _card_decision(saved)
    text, line = _edit_decision(saved, i, lambda d: d.__setitem__(4, "Unobtainium (unobtainium)"))
    cases.append(("unknown card id", text, line, "names card 'unobtainium', which pack earth does not have"))

    def other_choice(d):
        d[3] = (d[3] + 1) % d[2]
    text, line = _edit_decision(saved, i, other_choice)
    cases.append(("edited choice", text, line, "the save chose"))
    at = json.loads(saved)["at"]["log_hash"]
    cases.append(("wrong hash", saved.replace(at, "0" * 16), 1, "differs from the saved one"))
    return cases


@pytest.mark.parametrize("case", range(23))
def test_a_damaged_save_is_refused_with_its_line(earth, saved, case):
    cases = _damaged(saved)
    assert len(cases) == 23
    what, text, line, message = cases[case]
    with pytest.raises(SaveError) as err:
        resume(earth, parse_save(text))
    assert message in err.value.message, what
    if line is not None:
        assert err.value.line == line, (what, str(err.value))


def test_a_save_for_a_player_count_the_pack_does_not_have(earth):
    game = _game(earth, 2, 2)
    play_until(game, 5)
    data = json.loads(save_text(game))
    data["players"] = 6
    data["agents"] = data["agents"] * 3
    with pytest.raises(SaveError, match="is for 2 to 5 players"):
        resume(earth, data)


def test_a_save_with_extra_decisions_is_refused(earth):
    game = _game(earth, 2, 2)
    game.play()
    data = json.loads(save_text(game))
    data["decisions"].append([0, "may", 2, 1, "yes"])
    data["at"]["decisions"] += 1
    with pytest.raises(SaveError, match="already over"):
        resume(earth, data)


def test_a_bad_save_file_changes_nothing(tmp_path):
    save = tmp_path / "bad.save.json"
    save.write_text('{"cardsmith-save": 1, "pack": "earth"', encoding="utf-8")
    log = tmp_path / "out.jsonl"
    before = sorted(p.name for p in tmp_path.iterdir())
    res = CliRunner().invoke(main, ["resume", str(save), "--log", str(log)])
    assert res.exit_code == 1
    assert f"{save}:1: error: not valid JSON" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    save.write_bytes(b'{"cardsmith-save": 1,\n "pack": "e\xffarth"}')
    res = CliRunner().invoke(main, ["resume", str(save)])
    assert res.exit_code == 1 and ":2: error: not UTF-8" in res.output
    with pytest.raises(SaveError, match="cannot read"):
        read_save(tmp_path / "missing.json")


def test_write_save_is_atomic(earth, tmp_path, monkeypatch):
    game = _game(earth, 2, 3)
    play_until(game, 20)
    path = write_save(game, tmp_path / "g.json")
    good = path.read_text(encoding="utf-8")
    play_until(game, 40)

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr("cardsmith.runtime.save.os.replace", boom)
    with pytest.raises(OSError):
        write_save(game, path)
    assert path.read_text(encoding="utf-8") == good  # the old save is intact, no temporary file left
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


def test_other_agents_can_take_over(earth):
    game = _game(earth, 2, 6)
    play_until(game, 30)
    mine = [RandomAgent(1), RandomAgent(2)]
    resumed = resume(earth, save_text(game), agents=mine)
    assert resumed.agents == mine
    resumed.play()
    assert log_text(resumed).startswith('{"agents": ["random", "random"]')


def test_an_unsavable_agent(earth):
    class Person:
        name = "person"

        def choose(self, game, d):
            return 0

    game = Game(earth, 2, 1, [Person(), RandomAgent(1)], {"tableau-size": 4})
    with pytest.raises(SaveError, match="cannot be saved"):
        save_text(game)
