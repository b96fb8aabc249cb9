"""Event logs: write a game as JSON lines, and re-run a logged game to verify it.

Line 1 is a header (pack, version, players, seed, params, agents); then one JSON array per
event, decisions included as ["decide", seat, kind, options, choice]; the last line is
{"result": ...}. A replay feeds the logged decisions back and must produce the same lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from cardsmith.compiler.bytecode import CompiledPack

from .agents import ScriptedAgent
from .game import LOG_VERSION, Game


class LogError(Exception):
    """A log that cannot be replayed: says where and why."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


def log_text(game: Game) -> str:
    lines = game.log_lines()
    lines.append(json.dumps({"result": game.result().to_json()}, sort_keys=True))
    return "\n".join(lines) + "\n"


def read_header(text: str) -> dict:
    first = text.split("\n", 1)[0]
    try:
        header = json.loads(first)
    except json.JSONDecodeError as e:
        raise LogError(1, f"the first line is not JSON ({e.msg})") from None
    if not isinstance(header, dict) or "cardsmith-log" not in header:
        raise LogError(1, "not a cardsmith log (no 'cardsmith-log' header)")
    if header["cardsmith-log"] != LOG_VERSION:
        raise LogError(1, f"log format {header['cardsmith-log']!r}; this cardsmith reads format {LOG_VERSION}")
    for key, kind in (("pack", str), ("version", str), ("players", int), ("seed", int), ("params", dict)):
        if not isinstance(header.get(key), kind):
            raise LogError(1, f"header field '{key}' is missing or not a {kind.__name__}")
    return header


class _Seat:
    """One seat of a replay: answers from the shared script, under the logged agent's name."""

    def __init__(self, script: ScriptedAgent, name: str) -> None:
        self.script = script
        self.name = name

    def choose(self, game: Game, decision) -> int:
        return self.script.choose(game, decision)


@dataclass
class ReplayReport:
    ok: bool
    lines: int
    decisions: int
    first_difference: int | None = None
    expected: str = ""
    got: str = ""


def replay(pack: CompiledPack, text: str) -> ReplayReport:
    """Re-run the logged game; report the first line where the re-run differs."""
    header = read_header(text)
    if header["pack"] != pack.id:
        raise LogError(1, f"the log is of pack '{header['pack']}', not '{pack.id}'")
    if header["version"] != pack.version:
        raise LogError(1, f"the log is of {pack.id} {header['version']}; this is version {pack.version}")
    lines = text.rstrip("\n").split("\n")
    answers = []
    for i, line in enumerate(lines[1:], start=2):
        try:
            event = json.loads(line)
        except json.JSONDecodeError as e:
            raise LogError(i, f"not JSON ({e.msg})") from None
        if isinstance(event, list) and event and event[0] == "decide":
            if len(event) != 5 or not all(isinstance(x, int) for x in (event[1], event[3], event[4])):
                raise LogError(i, "a decision must be [\"decide\", seat, kind, options, choice]")
            answers.append(event[4])
    script = ScriptedAgent(answers)
    names = header.get("agents") or []
    seats = [_Seat(script, names[i] if i < len(names) else "scripted") for i in range(header["players"])]
    try:
        game = Game(pack, header["players"], header["seed"], seats, header["params"])
    except ValueError as e:
        raise LogError(1, str(e)) from None
    try:
        game.play()
    except Exception as e:  # the log asks for a choice the game does not offer
        return ReplayReport(False, len(lines), len(answers), None, "", f"replay stopped: {e}")
    again = log_text(game).rstrip("\n").split("\n")
    for i, (a, b) in enumerate(zip(lines, again, strict=False), start=1):
        if a != b:
            return ReplayReport(False, len(lines), len(answers), i, a, b)
    if len(lines) != len(again):
        n = min(len(lines), len(again)) + 1
        return ReplayReport(False, len(lines), len(answers), n, lines[n - 1] if n <= len(lines) else "",
                            again[n - 1] if n <= len(again) else "")
    return ReplayReport(True, len(lines), len(answers))
