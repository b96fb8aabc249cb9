"""Event logs: write a game as JSON lines, and re-run a logged game to verify it.

Line 1 is a header (pack, version, players, seed, params, agents); then one JSON array per
event, decisions included as ["decide", seat, kind, options, choice]; the last line is
{"result": ...}. A replay feeds the logged decisions back and must produce the same lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from cardsmith.bytecode import CompiledPack

from .game import LOG_VERSION, Game
from .params import param_problems

MAX_LOG_BYTES = 200_000_000  # a log is read with this bound (a long Earth game logs about 1 MB)


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
    header = _json_line(first, 1, "the first line is not JSON")
    if not isinstance(header, dict) or "cardsmith-log" not in header:
        raise LogError(1, "not a cardsmith log (no 'cardsmith-log' header)")
    if header["cardsmith-log"] != LOG_VERSION:
        raise LogError(1, f"log format {header['cardsmith-log']!r}; this cardsmith reads format {LOG_VERSION}")
    for key, kind in (("pack", str), ("version", str), ("players", int), ("seed", int), ("params", dict)):
        if not isinstance(header.get(key), kind):
            raise LogError(1, f"header field '{key}' is missing or not a {kind.__name__}")
    return header


def _json_line(line: str, number: int, what: str):
    """One line of the log as JSON, or a LogError naming it (also for nesting or numbers no log has)."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as e:
        raise LogError(number, f"{what} ({e.msg})") from None
    except RecursionError:
        raise LogError(number, f"{what}: nested too deeply") from None
    except ValueError as e:  # a number of thousands of digits
        raise LogError(number, f"{what}: {e}") from None


class _Diverged(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class _Script:
    """The logged decisions, each checked against the decision the re-run game asks for."""

    def __init__(self, decisions: list[tuple[int, list]], end_line: int) -> None:
        self.decisions = decisions
        self.next = 0
        self.end_line = end_line

    @property
    def last_line(self) -> int | None:
        return self.decisions[self.next - 1][0] if self.next else None

    def choose(self, game: Game, d) -> int:
        if self.next >= len(self.decisions):
            raise _Diverged(self.end_line, f"the log has no more decisions, but the game asks player {d.seat + 1}: "
                            f"'{d.prompt}' (a truncated log?)")
        line, (_, seat, kind, n, choice) = self.decisions[self.next]
        self.next += 1
        if (seat, kind, n) != (d.seat, d.kind, len(d.options)):
            raise _Diverged(line, f"the log has player {seat + 1} choose among {n} ({kind}); the game asks player "
                            f"{d.seat + 1} to choose among {len(d.options)} ({d.kind}): '{d.prompt}'")
        if not 0 <= choice < n:
            raise _Diverged(line, f"choice {choice} is not one of the {n} options of '{d.prompt}'")
        return choice


class _Seat:
    """One seat of a replay: answers from the shared script, under the logged agent's name."""

    def __init__(self, script: _Script, name: str) -> None:
        self.script = script
        self.name = name

    def choose(self, game: Game, decision) -> int:
        return self.script.choose(game, decision)


@dataclass
class ReplayReport:
    """The outcome of a replay. When it differs: the first line of the log that the re-run does not
    reproduce (1-based), that line and what the re-run has there, the line of the last logged
    decision before it (where the games parted, when a decision was edited), and why."""

    ok: bool
    lines: int
    decisions: int
    first_difference: int | None = None
    expected: str = ""
    got: str = ""
    after_decision: int | None = None
    message: str = ""

    def describe(self) -> str:
        if self.ok:
            return f"replayed {self.decisions} decisions, {self.lines} lines identical"
        where = f"line {self.first_difference}"
        if self.after_decision:
            where += f" (the last decision before it is on line {self.after_decision})"
        out = [f"the replay differs from the log at {where}"]
        if self.message:
            out.append(f"  {self.message}")
        if self.expected or self.got:
            out.append(f"  logged: {self.expected[:200]}")
            out.append(f"  replay: {self.got[:200]}")
        return "\n".join(out)


def replay(pack: CompiledPack, text: str) -> ReplayReport:
    """Re-run the logged game; report the first line where the re-run differs."""
    header = read_header(text)
    if header["pack"] != pack.id:
        raise LogError(1, f"the log is of pack '{header['pack']}', not '{pack.id}'")
    if header["version"] != pack.version:
        raise LogError(1, f"the log is of {pack.id} {header['version']}; this is version {pack.version}")
    lines = text.rstrip("\n").split("\n")
    decisions: list[tuple[int, list]] = []
    result_line = None
    for i, line in enumerate(lines[1:], start=2):
        event = _json_line(line, i, "not JSON")
        if isinstance(event, list) and event and event[0] == "decide":
            if (len(event) != 5 or not all(isinstance(x, int) and not isinstance(x, bool)
                                           for x in (event[1], event[3], event[4])) or not isinstance(event[2], str)):
                raise LogError(i, "a decision must be [\"decide\", seat, kind, options, choice]")
            decisions.append((i, event))
        elif isinstance(event, dict) and "result" in event and result_line is None:
            result_line = i
    script = _Script(decisions, result_line or len(lines) + 1)
    names = header.get("agents") or []
    if not isinstance(names, list):
        raise LogError(1, "header field 'agents' is not a list")
    seats = [_Seat(script, str(names[i]) if i < len(names) else "scripted") for i in range(header["players"])]
    problems = param_problems(pack, header["params"])
    if problems:
        raise LogError(1, problems[0])
    try:
        game = Game(pack, header["players"], header["seed"], seats, header["params"])
    except (ValueError, TypeError) as e:
        raise LogError(1, str(e)) from None
    try:
        game.play()
    except _Diverged as e:
        return _partial(lines, game, script, len(decisions), e.line, e.message)
    except Exception as e:  # a runtime fault, or a bug: say where the replay had got to
        return _partial(lines, game, script, len(decisions), None, f"the replay stopped: {e}")
    again = log_text(game).rstrip("\n").split("\n")
    if script.next < len(decisions):
        line = decisions[script.next][0]
        first = _first_difference(lines, again)
        if first is None or first > line:
            return ReplayReport(False, len(lines), len(decisions), line, lines[line - 1], "",
                                script.last_line, "the game ended before this decision")
    first = _first_difference(lines, again)
    if first is None:
        return ReplayReport(True, len(lines), len(decisions))
    return ReplayReport(False, len(lines), len(decisions), first, lines[first - 1] if first <= len(lines) else "",
                        again[first - 1] if first <= len(again) else "", _decision_before(decisions, first))


def _first_difference(a: list[str], b: list[str]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b)) + 1


def _decision_before(decisions: list[tuple[int, list]], line: int) -> int | None:
    before = [i for i, _ in decisions if i < line]
    return before[-1] if before else None


def _partial(lines: list[str], game: Game, script: _Script, total: int, line: int | None,
             message: str) -> ReplayReport:
    """A replay that stopped mid-way: the first line where the part re-run differs, else `line`."""
    so_far = game.log_lines()
    first = next((i for i, (x, y) in enumerate(zip(lines, so_far, strict=False), start=1) if x != y), None)
    if first is not None and (line is None or first < line):
        later = f"later, at line {line}: {message}" if line is not None else f"later: {message}"
        return ReplayReport(False, len(lines), total, first, lines[first - 1], so_far[first - 1],
                            _decision_before(script.decisions, first), later)
    if line is None:
        line = script.last_line or 1
    return ReplayReport(False, len(lines), total, line, lines[line - 1] if line <= len(lines) else "", "",
                        _decision_before(script.decisions, line), message)
