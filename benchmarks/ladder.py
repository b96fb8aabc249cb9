"""The strength ladder: which agent beats which, per pack, with a win rate and its 95% interval.

    python -m benchmarks.ladder                         # every pack and pair, 200 games each (hours)
    python -m benchmarks.ladder --pack birdscaping --pair greedy,random --games 40 --jobs 2
    python -m benchmarks.ladder --report                # the table from the games played so far

Each pair plays two-player games of a pack with seeds 0, 1, 2, ...; the first agent takes the first
seat in even games and the second seat in odd ones, so neither profits from moving first. Agents are
seeded as `cardsmith simulate` seeds them (seed * 7919 + seat). A game a pair wins counts 1, a
shared win 1/2; the interval is Wilson's. Every game is appended to the results file as one JSON
line as soon as it ends (with each agent's CPU seconds and the search agent's iterations), so a run
that is stopped goes on where it stood when started again, and the report reads the file.

Nothing here is timed against a goal: it measures strength. A game is long for an agent that looks
ahead (minutes of CPU for the search agent on the larger packs), so run it in the background:
    nohup python -m benchmarks.ladder --jobs 2 > ladder.log 2>&1 &
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

PACKS = ("earth", "terraforming-mars", "living-forest", "birdscaping")
# The ladder's rungs: each agent against the one below. The search budget is per decision: 24 iterations,
# except where 24 was measured not to be enough (Terraforming Mars: 20 of 35 games against greedy; docs/agents.rst).
PAIRS = (("greedy", "random"), ("search", "greedy"))
SEARCH = {"terraforming-mars": "search:64"}
DEFAULT_SEARCH = "search:24"
RESULTS = Path(__file__).resolve().parent / "results" / "ladder.jsonl"


def pairs_for(pack: str, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pairs with a bare `search` given the pack's budget."""
    budget = SEARCH.get(pack, DEFAULT_SEARCH)
    return [(budget if a == "search" else a, budget if b == "search" else b) for a, b in pairs]


_packs: dict = {}


def _pack(ref: str):
    if ref not in _packs:
        from cardsmith.compiler.pipeline import compile_pack

        res = compile_pack(ref, cache=True)
        if not res.ok:
            raise SystemExit(f"{ref} does not compile")
        _packs[ref] = res.pack
    return _packs[ref]


def play(task: tuple[str, str, str, int]) -> dict:
    """One game of `pack` between agents a and b with this seed; a sits first in even seeds."""
    from cardsmith.runtime.agents import make_agent
    from cardsmith.runtime.game import Game

    pack_ref, a, b, seed = task
    pack = _pack(pack_ref)
    a_seat = seed % 2
    names = [a, b] if a_seat == 0 else [b, a]
    agents = [make_agent(name, seed * 7919 + s) for s, name in enumerate(names)]
    game = Game(pack, 2, seed, agents, log=False)
    cpu = [0.0, 0.0]
    while (d := game.advance()) is not None:
        t = time.process_time()
        choice = game.ask(d)
        cpu[d.seat] += time.process_time() - t
        game.decide(choice)
    r = game.result()
    share = 1 / len(r.winners) if a_seat in r.winners else 0.0
    return {"pack": pack_ref, "a": a, "b": b, "seed": seed, "a_seat": a_seat, "a_share": share,
            "totals": r.totals, "winners": r.winners, "decisions": r.decisions, "turns": r.turns,
            "capped": r.capped, "cpu": [round(x, 3) for x in cpu],
            "iterations": [getattr(x, "spent", None) for x in agents]}


def wilson(wins: float, n: int) -> tuple[float, float]:
    from cardsmith.runtime.balance import wilson as w

    return w(wins, n)


def done_games(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:  # a line cut short when a run was stopped
                continue
    return out


def report(path: Path, fmt: str = "text") -> str:
    """The ladder table: per pack and pair, games, the first agent's win rate and its 95% interval."""
    rows: dict[tuple[str, str, str], list[dict]] = {}
    for g in done_games(path):
        rows.setdefault((g["pack"], g["a"], g["b"]), []).append(g)
    lines = []
    head = ("pack", "pair", "games", "win rate of the first", "95% interval", "excludes 50%",
            "CPU s per game (first, second)")
    table = []
    for (pack, a, b), games in sorted(rows.items(), key=lambda kv: (PACKS.index(kv[0][0]) if kv[0][0] in PACKS
                                                                     else 99, kv[0][1], kv[0][2])):
        seen = {}
        for g in games:  # a seed played twice (a rerun) counts once
            seen[g["seed"]] = g
        games = list(seen.values())
        n = len(games)
        wins = sum(g["a_share"] for g in games)
        lo, hi = wilson(wins, n)
        cpu_a = sum(g["cpu"][g["a_seat"]] for g in games) / n
        cpu_b = sum(g["cpu"][1 - g["a_seat"]] for g in games) / n
        table.append((pack, f"{a} vs {b}", str(n), f"{wins / n:.1%}", f"{lo:.1%} to {hi:.1%}",
                      "yes" if lo > 0.5 or hi < 0.5 else "no", f"{cpu_a:.1f}, {cpu_b:.1f}"))
    if fmt == "rst":
        widths = [max(len(r[i]) for r in [head, *table]) for i in range(len(head))]
        rule = "  ".join("=" * w for w in widths)
        lines = [rule, "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip(), rule]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table]
        lines.append(rule)
    else:
        widths = [max(len(r[i]) for r in [head, *table]) for i in range(len(head))]
        for r in [head, *table]:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.ladder", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pack", action="append", help="a pack (may be repeated; default: the four games)")
    ap.add_argument("--pair", action="append", metavar="A,B",
                    help="agents, the stronger first (may be repeated; default: greedy,random and "
                         "search,greedy); a bare 'search' takes the pack's ladder budget "
                         "(search:24; search:64 for terraforming-mars)")
    ap.add_argument("--games", type=int, default=200, help="games per pack and pair (default 200)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--results", type=Path, default=RESULTS, help=f"the results file (default {RESULTS})")
    ap.add_argument("--report", choices=["text", "rst"], nargs="?", const="text",
                    help="print the table from the results file and stop")
    args = ap.parse_args(argv)
    if args.report:
        print(report(args.results, args.report))
        return 0
    packs = args.pack or list(PACKS)
    pairs = [tuple(p.split(",", 1)) for p in args.pair] if args.pair else list(PAIRS)
    done = {(g["pack"], g["a"], g["b"], g["seed"]) for g in done_games(args.results)}
    # seed by seed across packs and pairs, so a run stopped early has figures for every pair
    tasks = [(pack, a, b, seed) for seed in range(args.games) for pack in packs for a, b in pairs_for(pack, pairs)
             if (pack, a, b, seed) not in done]
    args.results.parent.mkdir(parents=True, exist_ok=True)
    print(f"{len(tasks)} games to play ({len(done)} already in {args.results}), {args.jobs} job(s)", file=sys.stderr)
    t0 = time.perf_counter()
    with open(args.results, "a", encoding="utf-8") as out:
        if args.jobs > 1:
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in multiprocessing.get_all_start_methods()
                                              else "spawn")
            with ctx.Pool(args.jobs) as pool:
                for g in pool.imap_unordered(play, tasks):
                    out.write(json.dumps(g) + "\n")
                    out.flush()
        else:
            for task in tasks:
                g = play(task)
                out.write(json.dumps(g) + "\n")
                out.flush()
    print(f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(report(args.results))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
