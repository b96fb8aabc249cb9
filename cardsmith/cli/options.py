"""What several commands share, defined once: compiling a pack or exiting, the options of a batch of
simulated games (simulate, balance), and checking them against the compiled pack."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import click

from cardsmith.bytecode import CompiledPack
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.result import CompileResult

from .validate import emit_diagnostics


def output_target(path: str) -> str:
    """Check, before any work, that an output file can be made at `path`: its folder exists, and it is not a
    folder itself. Exits 2 with one line otherwise."""
    from cardsmith.bytecode.inputs import printable

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        click.echo(f"cardsmith: cannot write {printable(path)}: there is no folder {printable(folder)}", err=True)
        sys.exit(2)
    if os.path.isdir(path):
        click.echo(f"cardsmith: cannot write {printable(path)}: it is a folder", err=True)
        sys.exit(2)
    return path


@contextmanager
def output_errors(path: str | Path) -> Iterator[None]:
    """Around writing an output: a path that cannot be written (a missing folder, a full disk, no permission)
    is one line and exit 2, not an internal error."""
    try:
        yield
    except OSError as e:
        from cardsmith.bytecode.inputs import printable

        click.echo(f"cardsmith: cannot write {printable(str(path))}: {(e.strerror or str(e)).lower()}", err=True)
        sys.exit(2)


def write_output(path: str | Path, text: str) -> None:
    """Write a text output (UTF-8), or exit 2 with one line when it cannot be written."""
    with output_errors(path), open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def named_pack(named: str, given: str | None, source: str) -> str:
    """The pack a save or a log names (`named`, its 'pack' field) as a built-in pack, or the folder the person
    gave with --pack (`given`): a file's own field never names a folder, which would then be compiled and run."""
    from cardsmith.bytecode.inputs import printable
    from cardsmith.compiler.packs import builtin_packs

    if given is not None:
        return given
    folder = builtin_packs().get(named)
    if folder is None:
        click.echo(f"{printable(source)}:1: error: the file is of pack {printable(repr(named))}, which is not a "
                   "built-in pack; give its folder with --pack", err=True)
        sys.exit(1)
    return str(folder)


def compile_or_exit(pack: str, fmt: str = "text", cache: bool = False) -> CompileResult:
    """Compile (through the compile cache when `cache`) or print the errors in `fmt` and exit 1.

    A cache hit carries the compiled pack but no checked AST: commands that describe cards or compile
    more programs against the pack (describe, reference, scenarios) compile without the cache."""
    if cache:  # a hit needs none of the compiler's stages: cache.py serves it before importing them
        from cardsmith.compiler.cache import compile_cached

        res = compile_cached(pack, Diagnostics())
    else:
        from cardsmith.compiler.pipeline import compile_pack

        res = compile_pack(pack, Diagnostics())
    if not res.ok:
        emit_diagnostics(res.diagnostics.sorted(), fmt)
        click.echo(f"{pack}: {len(res.diagnostics.errors)} error(s); nothing compiled", err=True)
        sys.exit(1)
    return res


NO_CACHE = click.option("--no-cache", is_flag=True,
                        help="Compile from source and leave the compile cache alone (location: $CARDSMITH_CACHE, "
                             "else ~/.cache/cardsmith; safe to delete).")


def parse_params(values: tuple[str, ...]) -> dict:
    """NAME=VALUE pairs, each value a JSON number or list."""
    out = {}
    for v in values:
        if "=" not in v:
            raise click.BadParameter(f"'{v}' should look like name=value", param_hint="--param")
        k, raw = v.split("=", 1)
        try:
            out[k] = json.loads(raw)
        except json.JSONDecodeError:
            raise click.BadParameter(f"value of '{k}' should be a number or a JSON list",
                                     param_hint="--param") from None
    return out


def pack_params(pack: CompiledPack, values: tuple[str, ...]) -> dict:
    """The --param overrides, checked against the pack's parameters: known names, declared types, bounds."""
    from cardsmith.runtime.params import param_problems

    overrides = parse_params(values)
    problems = param_problems(pack, overrides)
    if problems:
        raise click.BadParameter(problems[0], param_hint="--param")
    return overrides


def agent_help() -> str:
    from cardsmith.runtime.agents import AGENTS

    return (f"{', '.join(AGENTS)}; search takes a budget per decision: search:400 (iterations, the same game for "
            "a seed) or search:0.5s (seconds)")


def agent_names(agents: str) -> list[str]:
    """The comma-separated --agents, each a known agent (with its budget: search:400)."""
    names = [a.strip() for a in agents.split(",") if a.strip()]
    if not names:
        raise click.BadParameter(f"no agent given; agents: {agent_help()}", param_hint="--agents")
    from cardsmith.runtime.agents import agent_problem

    for name in names:
        problem = agent_problem(name)
        if problem:
            raise click.BadParameter(problem, param_hint="--agents")
    return names


def player_count(pack: CompiledPack, players: int | None) -> int:
    n = players or pack.players[0]
    if not pack.players[0] <= n <= pack.players[1]:
        raise click.BadParameter(f"{pack.name} is for {pack.players[0]} to {pack.players[1]} players",
                                 param_hint="--players")
    return n


def game_batch_options(default_games: int, outcome: str, agents: str = "random", agents_help: str = "") -> Callable:
    """The options of a batch of seeded games: -n, -p, -s, -a, --param, --max-decisions, -j, --no-cache.
    `outcome` names what stays the same for any --jobs ('Results', 'The report'); `agents` is --agents' default
    and `agents_help` what the command adds about it."""
    options = [
        click.option("--games", "-n", default=default_games, show_default=True, type=click.IntRange(1),
                     help="Games to play."),
        click.option("--players", "-p", default=None, type=int, help="Players per game (default: the pack's minimum)."),
        click.option("--seed", "-s", default=0, show_default=True, type=int, help="Game i uses seed SEED+i."),
        click.option("--agents", "-a", default=agents, show_default=True,
                     help=f"Comma-separated agents, assigned to seats in turn ({agent_help()}).{agents_help}"),
        click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Override a rule parameter."),
        click.option("--max-decisions", default=None, type=click.IntRange(100),
                     help="Safety cap per game; a capped game is scored where it stopped and counted as capped."),
        click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(0),
                     help=f"Worker processes (0: one per CPU). {outcome} the same for any number."),
        NO_CACHE,
    ]

    def apply(fn: Callable) -> Callable:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return apply


@dataclass(frozen=True)
class GameBatch:
    """A batch of seeded games, its options checked against the compiled pack."""

    result: CompileResult
    players: int
    agents: list[str]
    params: dict
    jobs: int

    @property
    def pack(self) -> CompiledPack:
        return self.result.pack


def game_batch(pack: str, players: int | None, agents: str, params: tuple[str, ...], jobs: int,
               no_cache: bool) -> GameBatch:
    """Compile the pack (through the cache) and check the batch's options against it; usage errors exit 2."""
    import os

    names = agent_names(agents)
    res = compile_or_exit(pack, cache=not no_cache)
    return GameBatch(res, player_count(res.pack, players), names, pack_params(res.pack, params),
                     jobs or os.cpu_count() or 1)
