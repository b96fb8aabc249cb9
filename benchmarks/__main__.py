"""python -m benchmarks: compile speed against a bare YAML load, and simulation speed.

Each ratio compares two measurements taken in this run on the same files, so the figures
hold on any machine; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import yaml
from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.packs import builtin_packs, card_files


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bench_compile(repeat: int) -> list[tuple[str, str, str]]:
    rows = []
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for pid, folder in builtin_packs().items():
        files = [folder / "pack.yaml", folder / "rules.yaml", *card_files(folder)]
        files = [f for f in files if f.exists()]
        texts = [Path(f).read_text(encoding="utf-8") for f in files]
        res = compile_pack(str(folder), Diagnostics())
        cards = res.cards_compiled
        compile_pack(str(folder), Diagnostics())  # warm the parser tables once, as any long run would
        base = _best(lambda texts=texts: [yaml.load(t, Loader=loader) for t in texts], repeat)
        comp = _best(lambda folder=folder: compile_pack(str(folder), Diagnostics()), repeat)
        rows.append((f"compile {pid} ({cards} cards)", f"{cards / comp:,.0f} cards/s",
                     f"{comp / base:.2f}x bare yaml.load ({cards / base:,.0f} cards/s)"))
    return rows


def bench_games(packs: list[str], games: int) -> list[tuple[str, str, str]]:
    from cardsmith.runtime.simulate import play_one

    rows = []
    for pid in packs:
        pack = compile_pack(pid).pack
        n = pack.players[0] + 1 if pack.players[1] > pack.players[0] else pack.players[0]
        times = []
        for i in range(games):
            t = time.perf_counter()
            play_one(pack, n, i, ["random"])
            times.append(time.perf_counter() - t)
        rate = 1 / statistics.mean(times)
        spread = statistics.pstdev([1 / t for t in times])
        rows.append((f"random games {pid} ({n} players)", f"{rate:.1f} games/s", f"spread ±{spread:.1f} over {games}"))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    ap.add_argument("--repeat", type=int, default=5, help="repeats per timing; the best is kept")
    ap.add_argument("--games", type=int, default=20, help="games per pack for the simulation figure")
    args = ap.parse_args()
    rows = bench_compile(args.repeat) + bench_games(list(builtin_packs()), args.games)
    w = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{w}}  {'figure':>18}  baseline in the same run")
    for name, fig, base in rows:
        print(f"{name:<{w}}  {fig:>18}  {base}")


if __name__ == "__main__":
    main()
