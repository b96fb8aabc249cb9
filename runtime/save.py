"""Save a game mid-way to a versioned JSON file, and resume it exactly.

A save holds what is needed to rebuild the game, not the game state itself: the pack (id and
version), players, seed, rule parameters, the decisions made so far (each with the label of the
option chosen, so that a person can read the file and a hand-edited one is caught), each agent's
name and random-generator state, and the event-log hash at the save point. Resuming rebuilds
the game from the seed, re-applies the decisions without asking any agent, checks that every
decision is the one the game asks for and that the log hash matches, and then hands the game
to the restored agents: it continues exactly as the uninterrupted game would have.

    text = save_text(game)                # or write_save(game, path)
    game = resume(pack, text)             # or resume(pack, read_save(path))
    result = game.play()

A save that cannot be resumed (bad JSON, another format version, another pack or version, an
agent or card the pack does not know, a decision the game does not offer) raises SaveError,
which names the line of the file; nothing is changed.
"""

from __future__ import annotations

import json
import os
import random
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from cardsmith.bytecode import CompiledPack
from cardsmith.bytecode.inputs import InputError, kind_of, printable, read_input

from .agents import AGENTS
from .game import Game
from .params import param_problems
from .vm import RuntimeFault

SAVE_FORMAT = 1
MAX_SAVE_BYTES = 50_000_000
MAX_DECISIONS = 1_000_000  # the largest decision cap a save may ask for (a game's default is 50,000)
# The settings of a built-in agent a save may carry, and the values each may take (others are not restored):
# a save edited to ask a search for a billion iterations a decision would never end.
AGENT_SETTINGS = {"max_options": (1, 1_000), "horizon": (0, 1_000), "iterations": (1, 1_000_000),
                  "seconds": (0, 3_600), "depth": (1, 1_000), "c": (0, 100), "spent": (0, 10**15)}

PACK_ID = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")  # as pack.schema.json
_CARD_IN_LABEL = re.compile(r"\(([a-z0-9]+(?:-[a-z0-9]+)*)\)")


class SaveError(Exception):
    """A save that cannot be written or resumed: says where (line of the file) and why."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


# ----------------------------------------------------------------------------- writing


def _agent_state(agent, seat: int) -> dict:
    name = getattr(agent, "name", type(agent).__name__)
    rng = getattr(agent, "rng", None)
    if name not in AGENTS or not isinstance(agent, AGENTS[name]) or not isinstance(rng, random.Random):
        raise SaveError(f"the agent of player {seat + 1} ({name}) cannot be saved; saves hold the built-in agents "
                        f"({', '.join(AGENTS)})")
    version, internal, gauss = rng.getstate()
    state: dict[str, Any] = {"name": name, "rng": [version, list(internal), gauss]}
    for key, value in sorted(vars(agent).items()):
        if key != "rng" and isinstance(value, int | float | str | bool):
            state[key] = value
    return state


def save_data(game: Game) -> dict:
    """The save of `game` as a dict. The game is first run to its next decision (no agent is asked),
    so a save always stands at a decision, or at the end. The labels of the options chosen are
    recovered by re-running the decisions in a silent copy of the game (the game keeps only indexes)."""
    game.advance()
    pending = game.pending
    agents = [_agent_state(a, s) for s, a in enumerate(game.agents)]
    labels = _labels(game)
    return {
        "cardsmith-save": SAVE_FORMAT,
        "pack": game.pack.id,
        "version": game.pack.version,
        "players": game.n,
        "seed": game.seed,
        "params": game.params,
        "max_decisions": game.max_decisions,
        "log": game.events is not None,
        "agents": agents,
        "at": {"decisions": len(game.decisions), "turn": game.state.turn, "log_hash": game.log_hash(),
               "next": None if pending is None else {"seat": pending.seat, "prompt": pending.prompt}},
        "decisions": [[seat, kind, n, choice, labels[i]] for i, (seat, kind, n, choice) in enumerate(game.decisions)],
    }


def _labels(game: Game) -> list[str]:
    shadow = Game(game.pack, game.n, game.seed, [_Named("shadow")] * game.n, game.params, log=False,
                  max_decisions=game.max_decisions)
    out = []
    for _seat, _kind, _n, choice in game.decisions:
        d = shadow.advance()
        if d is None or not 0 <= choice < len(d.labels):  # pragma: no cover - the game is deterministic
            raise SaveError("the game cannot be re-run from its seed and decisions; it cannot be saved")
        out.append(d.labels[choice])
        shadow.decide(choice)
    return out


class _Named:
    """A stand-in agent that only carries a name (it is never asked)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def choose(self, game: Game, decision) -> int:  # pragma: no cover - never called
        raise RuntimeError("a stand-in agent was asked to decide")


def save_text(game: Game) -> str:
    """The save as text: one JSON object laid out one agent and one decision per line, so that a
    person can read it and errors can name the line."""
    data = save_data(game)
    agents, decisions = data.pop("agents"), data.pop("decisions")
    head = json.dumps(data, ensure_ascii=False)  # "cardsmith-save" first: the file says what it is
    lines = [head[:-1] + ","]
    lines.append(' "agents": [')
    lines.extend(f"  {json.dumps(a, ensure_ascii=False)}{',' if i < len(agents) - 1 else ''}"
                 for i, a in enumerate(agents))
    lines.append(" ],")
    lines.append(' "decisions": [')
    lines.extend(f"  {json.dumps(d, ensure_ascii=False)}{',' if i < len(decisions) - 1 else ''}"
                 for i, d in enumerate(decisions))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_save(game: Game, path: str | Path) -> Path:
    """Write the save atomically: a crash while writing never leaves a half-written file behind. Only a
    regular file is replaced: a symbolic link, a device or a pipe at `path` is refused (SaveError)."""
    path = Path(path)
    refuse = _not_replaceable(path)
    if refuse:
        raise SaveError(f"{path} is {refuse}; a save replaces only a regular file")
    text = save_text(game)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _not_replaceable(path: Path) -> str | None:
    """What is at `path` when it is something a save must not replace (None: nothing, or a regular file)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return None if stat.S_ISREG(mode) else kind_of(mode)


# ----------------------------------------------------------------------------- reading


def read_save(path: str | Path) -> dict:
    """Read and check a save file a person named (a regular file of at most MAX_SAVE_BYTES). Raises SaveError."""
    path = Path(path)
    try:
        data = read_input(path, MAX_SAVE_BYTES, follow=True)
    except InputError as e:
        raise SaveError(f"cannot read {printable(str(path))}: {e.message}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise SaveError(f"not UTF-8 (byte 0x{data[e.start]:02x})", line) from None
    return parse_save(text)


def parse_save(text: str) -> dict:
    """Parse and check the form of a save (not yet against a pack). Raises SaveError."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        what = "the file ends too early (truncated?)" if e.pos >= len(text.rstrip()) else e.msg
        raise SaveError(f"not valid JSON: {what} (column {e.colno})", e.lineno) from None
    except RecursionError:
        raise SaveError("not a cardsmith save: nested too deeply") from None
    except ValueError as e:  # a number of thousands of digits
        raise SaveError(f"not a cardsmith save: {e}") from None
    if not isinstance(data, dict) or "cardsmith-save" not in data:
        raise SaveError("not a cardsmith save (no 'cardsmith-save' field)", 1)
    if not _is_int(data["cardsmith-save"]) or data["cardsmith-save"] != SAVE_FORMAT:
        raise SaveError(f"save format {data['cardsmith-save']!r}; this cardsmith reads format {SAVE_FORMAT}", 1)
    for key, kind in (("pack", str), ("version", str), ("players", int), ("seed", int), ("params", dict),
                      ("max_decisions", int), ("log", bool), ("agents", list), ("at", dict), ("decisions", list)):
        if not isinstance(data.get(key), kind) or (kind is int and isinstance(data.get(key), bool)):
            raise SaveError(f"field '{key}' is missing or not {_KIND[kind]}", _line_of(text, f'"{key}"'))
    if not 1 <= data["max_decisions"] <= MAX_DECISIONS:
        raise SaveError(f"field 'max_decisions' is {data['max_decisions']:,}; it must be 1 to {MAX_DECISIONS:,}",
                        _line_of(text, '"max_decisions"'))
    if not 1 <= data["players"] <= 64:
        raise SaveError(f"field 'players' is {data['players']:,}; no game has that many", _line_of(text, '"players"'))
    if not PACK_ID.fullmatch(data["pack"]):
        raise SaveError(f"field 'pack' is {data['pack']!r}; a save names its pack by id, never by path",
                        _line_of(text, '"pack"'))
    at = data["at"]
    if not _is_int(at.get("decisions")) or not isinstance(at.get("log_hash"), str):
        raise SaveError("field 'at' needs 'decisions' (a number) and 'log_hash' (a text)", _line_of(text, '"at"'))
    if at["decisions"] != len(data["decisions"]):
        raise SaveError(f"the save says {at['decisions']} decisions were made but lists {len(data['decisions'])}",
                        _line_of(text, '"at"'))
    first = _line_of(text, '"decisions": [') + 1
    for i, d in enumerate(data["decisions"]):
        ok = (isinstance(d, list) and len(d) == 5 and all(_is_int(x) for x in (d[0], d[2], d[3]))
              and isinstance(d[1], str) and (d[4] is None or isinstance(d[4], str)))
        if not ok:
            raise SaveError(f"decision {i + 1} must be [seat, kind, options, choice, label]", first + i)
    if len(data["agents"]) != data["players"]:
        raise SaveError(f"{len(data['agents'])} agents for {data['players']} players", _line_of(text, '"agents"'))
    data["_first_decision_line"] = first
    data["_first_agent_line"] = _line_of(text, '"agents": [') + 1
    data["_at_line"] = _line_of(text, '"at"')
    return data


_KIND = {str: "a text", int: "a whole number", dict: "a mapping", list: "a list", bool: "true or false"}


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _line_of(text: str, needle: str) -> int:
    i = text.find(needle)
    return text.count("\n", 0, i) + 1 if i >= 0 else 1


def _restore_agent(state: Any, seat: int, line: int):
    name = state.get("name") if isinstance(state, dict) else state
    if not isinstance(name, str) or name not in AGENTS:
        shown = printable(repr(name))
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise SaveError(f"player {seat + 1}'s agent {shown} is not one of the agents ({', '.join(AGENTS)})", line)
    agent = AGENTS[state["name"]](0)
    try:
        version, internal, gauss = state["rng"]
        agent.rng.setstate((version, tuple(internal), gauss))
    except (KeyError, TypeError, ValueError, OverflowError):
        raise SaveError(f"player {seat + 1}'s agent has a damaged random-generator state", line) from None
    for key, value in state.items():
        if key in AGENT_SETTINGS and hasattr(agent, key) and type(getattr(agent, key)) is type(value):
            lo, hi = AGENT_SETTINGS[key]
            if not lo <= value <= hi:
                raise SaveError(f"player {seat + 1}'s agent has {key} {value}; it must be {lo} to {hi}", line)
            setattr(agent, key, value)
    return agent


def resume(pack: CompiledPack, save: dict | str, agents: list | None = None) -> Game:
    """Rebuild the saved game and bring it to where it was saved. Raises SaveError.

    `agents` replaces the saved agents (e.g. a person taking over a seat); by default they are
    restored, random-generator state included, so the game continues exactly."""
    data = parse_save(save) if isinstance(save, str) else save
    if "_first_decision_line" not in data:
        data = parse_save(json.dumps(data))
    if data["pack"] != pack.id:
        raise SaveError(f"the save is of pack '{data['pack']}', not '{pack.id}'", 1)
    if data["version"] != pack.version:
        raise SaveError(f"the save is of {pack.id} {data['version']}; this is version {pack.version}", 1)
    problems = param_problems(pack, data["params"])
    if problems:  # the header (pack, players, seed, params) is the first line
        raise SaveError(problems[0], 1)
    restored = [_restore_agent(a, s, data["_first_agent_line"] + s) for s, a in enumerate(data["agents"])]
    try:
        game = Game(pack, data["players"], data["seed"], [_Named(a.name) for a in restored], data["params"],
                    log=data["log"], max_decisions=data["max_decisions"])
    except ValueError as e:
        raise SaveError(str(e), 1) from None
    known = {c.id for c in pack.cards}
    first = data["_first_decision_line"]
    try:
        for i, (seat, kind, n, choice, label) in enumerate(data["decisions"]):
            line = first + i
            d = game.advance()
            if d is None:
                raise SaveError(f"decision {i + 1}: the game is already over here; the save does not belong to "
                                "this game", line)
            if (d.seat, d.kind, len(d.options)) != (seat, kind, n):
                raise SaveError(f"decision {i + 1}: the save has player {seat + 1} choose among {n} ({kind}), but "
                                f"the game asks player {d.seat + 1} to choose among {len(d.options)} ({d.kind}): "
                                f"'{d.prompt}'", line)
            if not 0 <= choice < n:
                raise SaveError(f"decision {i + 1}: choice {choice} is not one of the {n} options", line)
            if label is not None and d.labels[choice] != label:
                for cid in _CARD_IN_LABEL.findall(label):
                    if cid not in known:
                        raise SaveError(f"decision {i + 1} names card '{cid}', which pack {pack.id} does not have",
                                        line)
                raise SaveError(f"decision {i + 1}: the save chose {label!r}, but option {choice} of "
                                f"'{d.prompt}' is {d.labels[choice]!r}", line)
            game.decide(choice)
        game.advance()
    except RuntimeFault as e:
        raise SaveError(f"the saved decisions lead to a runtime fault: {e}") from None
    except (TypeError, ValueError, KeyError, IndexError, OverflowError) as e:  # values no game could have
        raise SaveError(f"the saved game cannot be re-run ({type(e).__name__}: {e})") from None
    if game.log_hash() != data["at"]["log_hash"]:
        raise SaveError(f"the resumed game differs from the saved one (log hash {game.log_hash()}; the save says "
                        f"{data['at']['log_hash']})", data.get("_at_line", 1))
    game.agents = list(agents) if agents is not None else restored
    return game


def play_until(game: Game, decisions: int) -> None:
    """Play with the game's agents until `decisions` decisions have been made in all (or the game ends)."""
    while len(game.decisions) < decisions:
        d = game.advance()
        if d is None:
            return
        game.decide(game.agents[d.seat].choose(game, d))
