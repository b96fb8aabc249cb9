"""`balance`: simulate a pack and write an HTML report with plots of its balance."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import click

from cardsmith.compiler.diagnostics import did_you_mean
from cardsmith.compiler.packs import builtin_packs, resolve_pack_ref
from cardsmith.runtime.parallel import GameFault, run_games
from cardsmith.runtime.vm import RuntimeFault

from . import main
from .options import game_batch, game_batch_options
from .reference import template_errors


def _fail(message: str) -> None:
    click.echo(f"cardsmith: {message}", err=True)
    sys.exit(2)


def _writable_folder(path: str) -> Path:
    """The report folder, created; exits 2 with one line when it cannot be written."""
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        _fail(f"cannot write the report to '{path}': {e.strerror or e}")
    return out


@main.command()
@click.argument("pack")
@click.option("--output", "-o", required=True, type=click.Path(file_okay=False),
              help="The report folder: index.html and the plots (PNG and SVG) go there.")
@game_batch_options(100, "The report is")
@click.option("--min-plays", default=10, show_default=True, type=click.IntRange(1),
              help="The card plot shows cards played in at least this many seat-games (the table shows all).")
@click.option("--progress/--no-progress", default=None, help="Show a progress bar (default: on a terminal).")
def balance(pack: str, output: str, games: int, players: int | None, seed: int, agents: str,
            params: tuple[str, ...], max_decisions: int | None, jobs: int, no_cache: bool, min_plays: int,
            progress: bool | None) -> None:
    """Simulate seeded games and write a balance report: an HTML page with plots.

    The report (OUTPUT/index.html, plots as PNG and SVG) shows the win rate of each seat
    (first-player advantage) and agent with 95% Wilson intervals, score distributions, for
    every card the win rate of the player who played it against every other seat-game,
    the cards never played, and how long games last (turns, and rounds or generations
    where the pack counts them). Every table and figure says how many games back it. The
    same pack, seed, agents and players give the same files, byte for byte, for any --jobs.
    Plots need matplotlib: pip install 'cardsmith[balance]'.

    \b
    Examples:
      cardsmith balance earth --games 200 --players 3 --jobs 2 -o report/
      cardsmith balance birdscaping -n 50 --agents random,greedy --seed 7 -o birds-report/
    """
    from cardsmith.present.balance_report import PlotsUnavailable, plotting, write_report
    from cardsmith.runtime.balance import analyze

    folder = resolve_pack_ref(pack)
    if folder is None:
        hint = did_you_mean(pack, builtin_packs())
        _fail(f"no pack '{pack}': not a built-in pack id nor a folder with a pack.yaml" + (f"; {hint}" if hint else ""))
    try:
        plotting()
    except PlotsUnavailable as e:
        _fail(str(e))
    batch = game_batch(pack, players, agents, params, jobs, no_cache)
    p, n, names, overrides, jobs = batch.pack, batch.players, batch.agents, batch.params, batch.jobs
    out = _writable_folder(output)  # before the games, which may take a while
    show = sys.stderr.isatty() if progress is None else progress
    t0 = time.perf_counter()
    try:
        with click.progressbar(length=games, label=f"{p.id}: {n} players", file=sys.stderr, hidden=not show) as bar:
            results = run_games(p, games, n, seed, names, overrides, max_decisions, jobs=jobs,
                                progress=bar.update)
    except (RuntimeFault, GameFault) as e:
        click.echo(f"{e}", err=True)
        sys.exit(1)
    played = time.perf_counter() - t0
    stats = analyze(p, results, n, seed, names, overrides)
    try:
        with template_errors():
            files = write_report(stats, out, min_plays=min_plays, pack_folder=folder)
    except OSError as e:
        _fail(f"cannot write the report to '{output}': {e.strerror or e}")
    click.echo(f"{p.name} {p.version}: {games} games, {n} players -> {files[0]} and {len(files) - 1} plot files "
               f"({played:.1f}s of games, {time.perf_counter() - t0 - played:.1f}s of report)", err=True)
