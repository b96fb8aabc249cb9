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
@click.option("--output", "-o", default=None, type=click.Path(file_okay=False),
              help="The report folder: index.html and the plots (PNG and SVG) go there. Needed unless --variant "
                   "is given (the comparison is then printed).")
@game_batch_options(100, "The report is", agents="auto",
                    agents_help=" auto: the strongest agent whose games fit in --time, in every seat.")
@click.option("--time", "time_budget", default=300.0, show_default=True, type=click.FloatRange(1),
              help="Seconds the games may take, for --agents auto (estimated before they start).")
@click.option("--variant", "variants", multiple=True, metavar="CHANGE|FOLDER",
              help="What if: play the same seeds again with a card changed, CARD.stats.NAME=N, CARD.copies=N or "
                   "CARD.traits.NAME=A,B (may be repeated), or with a variant pack folder, and report each "
                   "changed card's win-rate difference with its 95% interval.")
@click.option("--min-plays", default=10, show_default=True, type=click.IntRange(1),
              help="The card plot shows cards played in at least this many seat-games (the table shows all).")
@click.option("--progress/--no-progress", default=None, help="Show a progress bar (default: on a terminal).")
def balance(pack: str, output: str | None, games: int, players: int | None, seed: int, agents: str,
            params: tuple[str, ...], max_decisions: int | None, jobs: int, no_cache: bool, time_budget: float,
            variants: tuple[str, ...], min_plays: int, progress: bool | None) -> None:
    """Simulate seeded games and write a balance report: an HTML page with plots.

    The report (OUTPUT/index.html, plots as PNG and SVG) shows the win rate of each seat
    (first-player advantage) and agent with 95% Wilson intervals, score distributions, for
    every card the pack plays (rules.yaml statistics.played-types) the win rate of the player
    who played it against every other seat-game, the cards never played by type, and how
    long games last (turns, and the pack's own measure: rounds or generations). Every table
    and figure says how many games back it. The same pack, seed, agents and players give the
    same files, byte for byte, for any --jobs.

    Agents: by default (auto) the strongest agent whose games fit in --time seconds plays
    every seat: the search agent, else greedy, else random (docs/agents.rst has the measured
    ladder); the choice is printed. Which agent fits depends on the machine, so give --agents
    for a report that must be the same everywhere.

    What if: --variant plays the same seeds, with the same agents, again with a change, and
    reports for each changed card its holder's win rate when played, before and after, with
    the difference and its 95% interval: an interval that excludes 0 is a change these games
    can tell apart from chance. Plots need matplotlib: pip install 'cardsmith[balance]'.

    \b
    Examples:
      cardsmith balance earth --games 200 --players 3 --jobs 2 -o report/
      cardsmith balance birdscaping -n 50 --agents random,greedy --seed 7 -o birds-report/
      cardsmith balance earth -n 100 --time 600 -o report/
      cardsmith balance earth -n 200 --agents greedy --variant mossback-oak.stats.cost=4
      cardsmith balance my-game -n 200 --agents greedy --variant ./my-game-erratum -o report/
    """
    from cardsmith.runtime.balance import analyze, compare
    from cardsmith.runtime.variant import VariantError, apply_changes, changed_cards

    folder = resolve_pack_ref(pack)
    if folder is None:
        hint = did_you_mean(pack, builtin_packs())
        _fail(f"no pack '{pack}': not a built-in pack id nor a folder with a pack.yaml" + (f"; {hint}" if hint else ""))
    if output is None and not variants:
        _fail("give the report folder with --output (or a --variant, whose comparison is printed)")
    if output is not None:
        from cardsmith.present.balance_report import PlotsUnavailable, plotting

        try:
            plotting()
        except PlotsUnavailable as e:
            _fail(str(e))
    auto = agents.strip() == "auto"
    batch = game_batch(pack, players, "random" if auto else agents, params, jobs, no_cache)
    p, n, names, overrides, jobs = batch.pack, batch.players, batch.agents, batch.params, batch.jobs
    variant, changed, described = None, [], ""
    if variants:
        folders = [v for v in variants if resolve_pack_ref(v) is not None and Path(v).is_dir()]
        if folders and len(variants) > 1:
            _fail("--variant: give one variant pack folder, or card changes, not both")
        if folders:
            from .options import compile_or_exit

            variant = compile_or_exit(folders[0], cache=not no_cache).pack
            if variant.id != p.id:
                _fail(f"--variant {folders[0]}: it is pack '{variant.id}', not a variant of '{p.id}' (give it the "
                      "same id)")
            changed = changed_cards(p, variant)
            if not changed:
                _fail(f"--variant {folders[0]}: no card of it differs from {p.id}'s")
            described = folders[0]
        else:
            try:
                variant, changed = apply_changes(p, list(variants))
            except VariantError as e:
                _fail(f"--variant {e}")
            described = ", ".join(variants)
    out = _writable_folder(output) if output is not None else None  # before the games, which may take a while
    if auto:
        from cardsmith.runtime.budget import pick_agent

        click.echo(f"{p.id}: choosing the strongest agent whose games fit in {time_budget:g} s ...", err=True)
        chosen, estimates = pick_agent(p, n, games, time_budget, jobs, seed, overrides, runs=2 if variant else 1)
        names = [chosen]
        click.echo(f"agents: {chosen} in every seat (estimates: {'; '.join(e.text for e in estimates)})", err=True)
    show = sys.stderr.isatty() if progress is None else progress
    t0 = time.perf_counter()
    runs = [(p, "")] + ([(variant, " variant")] if variant is not None else [])
    results = []
    try:
        for run_pack, what in runs:
            with click.progressbar(length=games, label=f"{p.id}{what}: {n} players", file=sys.stderr,
                                   hidden=not show) as bar:
                results.append(run_games(run_pack, games, n, seed, names, overrides, max_decisions, jobs=jobs,
                                         progress=bar.update))
    except (RuntimeFault, GameFault) as e:
        click.echo(f"{e}", err=True)
        sys.exit(1)
    played = time.perf_counter() - t0
    comparison = None
    if variant is not None:
        comparison = compare(p, results[0], variant, results[1], n, seed, names, changed, described)
        click.echo(comparison_text(comparison))
    if out is None:
        click.echo(f"{p.name} {p.version}: {games} games x 2, {n} players ({played:.1f}s of games)", err=True)
        return
    from cardsmith.present.balance_report import write_report

    stats = analyze(p, results[0], n, seed, names, overrides)
    try:
        with template_errors():
            files = write_report(stats, out, min_plays=min_plays, pack_folder=folder, comparison=comparison)
    except OSError as e:
        _fail(f"cannot write the report to '{output}': {e.strerror or e}")
    click.echo(f"{p.name} {p.version}: {games} games, {n} players -> {files[0]} and {len(files) - 1} plot files "
               f"({played:.1f}s of games, {time.perf_counter() - t0 - played:.1f}s of report)", err=True)


def comparison_text(c) -> str:
    """The what-if comparison as lines of text."""
    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    lines = [f"{c.pack_name}: what if {c.variant} ({c.games} games, seeds {c.seed}..{c.seed + c.games - 1}, "
             f"{c.players} players, agents {', '.join(c.agents)}; {c.identical} of {c.games} games played out "
             "exactly alike)"]
    for ch in c.cards:
        d, lo, hi = ch.difference
        verdict = ("stronger" if lo > 0 else "weaker" if hi < 0 else "these games cannot tell it from chance")
        lines.append(f"  {ch.name} ({ch.id}): win rate of the seats it came to {pct(ch.base.rate)} "
                     f"(n={ch.base.count}) -> {pct(ch.variant.rate)} (n={ch.variant.count}); difference "
                     f"{100 * d:+.1f} points, 95% interval {100 * lo:+.1f} to {100 * hi:+.1f}: {verdict}")
        pd, plo, phi = ch.plays_difference
        lines.append(f"    played in {pct(ch.base_plays.rate)} -> {pct(ch.variant_plays.rate)} of seat-games "
                     f"({100 * pd:+.1f} points, 95% interval {100 * plo:+.1f} to {100 * phi:+.1f}); win rate when "
                     f"played {pct(ch.base_played.rate)} -> {pct(ch.variant_played.rate)}")
    for label, before, after in c.seats:
        lines.append(f"  {label}: win rate {pct(before.rate)} -> {pct(after.rate)}")
    return "\n".join(lines)
