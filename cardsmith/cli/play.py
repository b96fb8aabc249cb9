"""`simulate` and `test`: run games and scenario files."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.runtime.parallel import BACKENDS, GameFault, run_games
from cardsmith.runtime.simulate import summarize
from cardsmith.runtime.vm import RuntimeFault

from . import main
from .options import NO_CACHE, compile_or_exit, game_batch, game_batch_options
from .validate import emit_diagnostics


@main.command()
@click.argument("pack")
@game_batch_options(10, "Results are")
@click.option("--json", "as_json", is_flag=True, help="Print every game's result and the statistics as JSON.")
@click.option("--progress/--no-progress", default=None, help="Show a progress bar (default: on a terminal).")
@click.option("--log-dir", type=click.Path(file_okay=False), default=None,
              help="Write each game's event log (JSON lines) here, as game-SEED.jsonl, for `cardsmith replay`.")
@click.option("--backend", type=click.Choice(BACKENDS), default=None,
              help="Where the games run: local worker processes, or a Dask cluster (pip install "
                   "'cardsmith[dask]'). Default: processes; dask when --scheduler is given.")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="The Dask scheduler to use (e.g. tcp://10.0.0.5:8786); without it --backend dask starts a "
                   "local cluster of --jobs workers.")
@click.option("--save-at", nargs=2, type=(click.IntRange(0), click.Path(dir_okay=False)), default=None,
              metavar="N FILE", help="Also save the first game (seed SEED) after N decisions to FILE, for "
                                     "`cardsmith resume FILE`.")
def simulate(pack: str, games: int, players: int | None, seed: int, agents: str, params: tuple[str, ...],
             max_decisions: int | None, jobs: int, no_cache: bool, as_json: bool, progress: bool | None,
             log_dir: str | None, backend: str | None, scheduler: str | None,
             save_at: tuple[int, str] | None) -> None:
    """Play many seeded games with bots and report scores and win rates.

    The same pack, seed and agents give the same games, byte for byte, however they are
    spread over processes (--jobs) or a Dask cluster (--backend dask). Timing goes to stderr
    so that --json output can be compared between runs. The JSON statistics give win rate
    and mean score per seat and per agent, and for each card how often the player who played
    it won, against all other seats, with counts.

    \b
    Examples:
      cardsmith simulate earth --games 200 --players 3 --seed 7 --json
      cardsmith simulate earth -n 1000 -p 3 --jobs 4
      cardsmith simulate earth -n 1000 --backend dask --scheduler tcp://10.0.0.5:8786
      cardsmith simulate earth -n 50 -p 4 --agents random,greedy
      cardsmith simulate earth -n 20 --param beginner=1
    """
    backend = backend or ("dask" if scheduler else "processes")
    if scheduler and backend != "dask":
        raise click.BadParameter("--scheduler is for --backend dask", param_hint="--scheduler")
    if save_at:
        from .saves import save_target

        save_target(save_at[1])  # before any work
    batch = game_batch(pack, players, agents, params, jobs, no_cache)
    p, n, names, overrides, jobs = batch.pack, batch.players, batch.agents, batch.params, batch.jobs
    if save_at:
        from .saves import save_first_game

        save_first_game(p, n, seed, names, overrides, max_decisions, *save_at)
    show = sys.stderr.isatty() if progress is None else progress
    t0 = time.perf_counter()
    try:
        with click.progressbar(length=games, label=f"{p.id}: {n} players", file=sys.stderr,
                               hidden=not show) as bar:
            results = run_games(p, games, n, seed, names, overrides, max_decisions, jobs=jobs,
                                backend=backend, scheduler=scheduler, progress=bar.update,
                                log_dir=log_dir)
    except (RuntimeFault, GameFault) as e:
        click.echo(f"{e}", err=True)
        sys.exit(1)
    except RuntimeError as e:  # the dask backend without dask installed, or a cluster that cannot be reached
        if backend != "dask":
            raise
        click.echo(f"cardsmith: {e}", err=True)
        sys.exit(2)
    elapsed = time.perf_counter() - t0
    stats = summarize(results, n)
    if as_json:
        out = {"pack": p.id, "version": p.version, "players": n, "seed": seed, "agents": names,
               "params": overrides, "summary": stats, "games": [r.to_json() for r in results]}
        click.echo(json.dumps(out, indent=1, sort_keys=True))
    else:
        click.echo(f"{p.name} {p.version}: {games} games, {n} players, agents {','.join(names)}, seeds "
                   f"{seed}..{seed + games - 1}")
        for s in stats["seats"]:
            click.echo(f"  seat {s['seat'] + 1}: win rate {s['win_rate']:.3f}, mean score {s['mean_score']:.1f}")
        for name, a in stats["agents"].items():
            click.echo(f"  {name}: win rate {a['win_rate']:.3f}, mean score {a['mean_score']:.1f}")
        click.echo(f"  mean turns {stats['mean_turns']}, capped games {stats['capped']}")
    click.echo(f"{games} games in {elapsed:.2f}s ({games / elapsed:.1f} games/s)", err=True)


@main.command()
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--pack", "pack_ref", default=None, metavar="PACK",
              help="The pack folder, when the logged game's pack is not a built-in one.")
@NO_CACHE
def replay(logs: tuple[str, ...], pack_ref: str | None, no_cache: bool) -> None:
    """Re-run logged games and verify that each plays out exactly as logged.

    The log names its pack and version; the pack must be the same version. A pack that is
    not built in is given with --pack (a log never names a folder itself). Exit code 0
    when every log replays identically, 1 otherwise.

    \b
    Example:
      cardsmith simulate earth -n 3 -p 3 --log-dir logs/
      cardsmith replay logs/game-0.jsonl
      cardsmith replay --pack ./my-game logs/game-0.jsonl
    """
    from cardsmith.bytecode.inputs import InputError, printable, read_input
    from cardsmith.runtime.replay import MAX_LOG_BYTES, LogError, read_header
    from cardsmith.runtime.replay import replay as run_replay

    from .options import named_pack

    bad = 0
    for path in logs:
        shown = printable(path)
        try:
            data = read_input(path, MAX_LOG_BYTES, follow=True)
            text = data.decode("utf-8")
            header = read_header(text)
            res = compile_or_exit(named_pack(header["pack"], pack_ref, path), cache=not no_cache)
            report = run_replay(res.pack, text)
        except InputError as e:
            click.echo(f"{shown}:1: cannot read the log: {e.message}", err=True)
            bad += 1
            continue
        except LogError as e:
            click.echo(f"{shown}:{e.line}: {e.message}", err=True)
            bad += 1
            continue
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            click.echo(f"{shown}:{line}: not UTF-8 (byte 0x{data[e.start]:02x})", err=True)
            bad += 1
            continue
        if report.ok:
            click.echo(f"{shown}: {report.describe()}")
        else:
            bad += 1
            click.echo(f"{shown}:{report.first_difference or 1}: {printable(report.describe(), keep=chr(10))}")
    sys.exit(1 if bad else 0)


@main.command("test")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-v", "--verbose", is_flag=True, help="Name every scenario, not only failures.")
def test_cmd(paths: tuple[str, ...], verbose: bool) -> None:
    """Run scenario files: a starting state, a program with scripted decisions, the expected state.

    PATHS are scenario files or folders searched for them (YAML files with `scenarios:`).
    Exit code 0 when all pass, 1 otherwise.

    \b
    Examples:
      cardsmith test cards/earth
      cardsmith test cards/earth/scenarios/green.yaml -v
    """
    from cardsmith.compiler.diagnostics import Span
    from cardsmith.compiler.packs import display_path
    from cardsmith.scenarios import find_scenarios, run_file

    found = find_scenarios([Path(p) for p in paths])
    diags = Diagnostics()
    for path, why in found.refused:
        diags.error("E006", f"not read: {why}", Span(display_path(path), 1, 1))
    if not found.files and not diags.items:
        click.echo("no scenario files found (YAML files with a top-level 'scenarios:')", err=True)
        sys.exit(1)
    passed = failed = 0
    for f in found.files:
        for o in run_file(f, diags, follow=f in found.named):
            if o.passed:
                passed += 1
                if verbose:
                    click.echo(f"PASSED {o.file}::{o.name}")
            else:
                failed += 1
                click.echo(f"FAILED {o.span}: {o.name}" + (f"  [{o.cites}]" if o.cites else ""))
                for prob in o.problems:
                    click.echo(f"    {prob}")
    if diags.items:
        emit_diagnostics(diags.sorted(), "text")
        failed += len(diags.errors)
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
