"""python -m benchmarks: every figure beside a baseline measured in the same run, as a ratio.

    python -m benchmarks            # the full table (5 to 15 minutes)
    python -m benchmarks --quick    # fewer repeats and games (a smoke run)

Each ratio compares two measurements taken in this run on the same files or state, so the ratios
hold on any machine; nothing here asserts a time. Timings keep the best of several repeats with the
garbage collector off (as timeit does), since other processes only ever make a run slower.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repeats and games: a smoke run, noisier figures")
    ap.add_argument("--repeat", type=int, default=None, help="repeats per timing; the best is kept (default 5)")
    ap.add_argument("--memory-games", type=int, default=None, help="games for the memory figure (default 1000)")
    ap.add_argument("--scale-games", type=int, default=None, help="games for the --jobs 2 figure (default 200)")
    ap.add_argument("--skip", action="append", default=[], metavar="SECTION",
                    choices=["compile", "abilities", "games", "clone", "search", "memory", "scale", "site", "lsp"],
                    help="leave a section out (may be given more than once)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON to FILE")
    args = ap.parse_args(argv)
    repeat = args.repeat or (2 if args.quick else 5)
    memory_games = args.memory_games or (60 if args.quick else 1000)
    scale_games = args.scale_games or (16 if args.quick else 200)

    # The benchmark's compile cache is its own, so a warm figure never reads a user's stale entry.
    cache = tempfile.mkdtemp(prefix="cardsmith-bench-cache-")
    os.environ["CARDSMITH_CACHE"] = cache

    from . import sections
    from .report import Table

    table = Table()
    t0 = time.perf_counter()
    print(f"cardsmith benchmarks: Python {platform.python_version()}, {os.cpu_count()} CPU(s), "
          f"load average {_load()}", file=sys.stderr)
    if "compile" not in args.skip:
        sections.compile_rows(table, repeat)
    if "abilities" not in args.skip:
        sections.ability_rows(table, runs=60 if args.quick else 200, repeat=repeat + 2)
    if "games" not in args.skip:
        sections.game_rows(table, budget=1.0 if args.quick else 4.0, repeats=2 if args.quick else 3)
    if "clone" not in args.skip:
        sections.clone_rows(table, repeat)
    if "search" not in args.skip:
        from .search import search_rows

        search_rows(table, repeat, iterations=20 if args.quick else 60)
    if "memory" not in args.skip:
        sections.memory_rows(table, memory_games)
    if "scale" not in args.skip:
        sections.scale_rows(table, scale_games, repeats=1 if args.quick else 3)
    if "lsp" not in args.skip:
        from .editor import lsp_rows

        lsp_rows(table, keystrokes=5 if args.quick else 40)
    if "site" not in args.skip:
        from .site import site_rows

        site_rows(table, repeat)
    print(table.render())
    print(f"\n{time.perf_counter() - t0:.0f} s in all; load average at the end {_load()} "
          f"(other processes on the machine slow every figure down, ratios less so).")
    if args.json:
        table.write_json(args.json)
    return 0


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "n/a"


if __name__ == "__main__":
    sys.exit(main())
