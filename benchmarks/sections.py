"""The sections of the benchmark table. Each adds rows: a figure beside its same-run baseline."""

from __future__ import annotations

import copy
import gc
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

from cardsmith.compiler import cache as disk
from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.packs import builtin_packs

from .report import Table

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Timings are CPU time of this process, so that other processes on a busy machine do not count;
# only the scale-out figure, which is about using more than one CPU, is wall-clock time.
CLOCK = time.process_time


def _best(fn, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t = CLOCK()
            fn()
            best = min(best, CLOCK() - t)
        finally:
            gc.enable()
    return best


def _compiling_packs() -> tuple[dict[str, Path], dict[str, str]]:
    ok, bad = {}, {}
    for pid, folder in builtin_packs().items():
        res = compile_pack(str(folder), Diagnostics())
        if res.ok:
            ok[pid] = folder
        else:
            bad[pid] = f"{len(res.diagnostics.errors)} error(s)"
    return ok, bad


# ------------------------------------------------------------------ compile
def compile_rows(table: Table, repeat: int) -> None:
    table.section("compile: all built-in packs, against a bare yaml.load(CSafeLoader) of the same files")
    from cardsmith.compiler import parse

    t = CLOCK()
    parse.parser()  # the LALR tables are built once per process (Lark)
    lark_s = CLOCK() - t
    packs, bad = _compiling_packs()
    if not packs:
        table.add("cold compile", "no built-in pack compiles", note=", ".join(f"{p}: {e}" for p, e in bad.items()))
        return
    texts = {pid: [f.read_bytes() for _, f in disk.source_files(folder)] for pid, folder in packs.items()}
    cards = {pid: compile_pack(str(folder)).cards_compiled for pid, folder in packs.items()}

    def load(pid):
        for text in texts[pid]:
            yaml.load(text, Loader=LOADER)

    cold, warm, base = {}, {}, {}
    for pid, folder in packs.items():
        base[pid] = _best(lambda pid=pid: load(pid), repeat)
        cold[pid] = _best(lambda folder=folder: compile_pack(str(folder), Diagnostics(), cache=False), repeat)
        compile_pack(str(folder), Diagnostics(), cache=True)  # store the entry

        def hit(folder=folder):
            disk.reset_fingerprint()  # a fresh process hashes the compiler's own source: so does each repeat
            disk.compile_cached(str(folder), Diagnostics())

        warm[pid] = _best(hit, repeat)
    n = sum(cards.values())
    tb, tc, tw = sum(base.values()), sum(cold.values()), sum(warm.values())
    skipped = f"; not compiling, left out: {', '.join(f'{p} ({e})' for p, e in bad.items())}" if bad else ""
    table.add(f"cold compile, {len(packs)} packs ({n} cards)", f"{n / tc:,.0f} cards/s ({tc * 1000:.0f} ms)",
              f"{n / tb:,.0f} cards/s ({tb * 1000:.0f} ms)", tc / tb, "<= 3",
              note=f"no cache; an extension compiles its base pack too, and the baseline loads those files too. "
                   f"Building Lark's LALR tables, once per process, took {lark_s * 1000:.0f} ms more{skipped}")
    for pid in packs:
        table.add(f"  cold {pid} ({cards[pid]} cards)", f"{cards[pid] / cold[pid]:,.0f} cards/s",
                  f"{cards[pid] / base[pid]:,.0f} cards/s", cold[pid] / base[pid], "")
    table.add(f"warm compile (cache hit), {len(packs)} packs", f"{n / tw:,.0f} cards/s ({tw * 1000:.1f} ms)",
              f"{n / tb:,.0f} cards/s ({tb * 1000:.0f} ms)", tw / tb, "<= 0.5",
              note="hashing every source file and the compiler's own source (again at every repeat), checking the "
                   "entry's signature, then unpickling the compiled pack")
    from .startup import fresh_compile_rows

    files = sorted({str(f) for folder in packs.values() for _, f in disk.source_files(folder)})
    fresh_compile_rows(table, packs, files, max(1, repeat // 2))


# ------------------------------------------------------------------ abilities
def ability_rows(table: Table, runs: int, repeat: int) -> None:
    from . import abilities

    table.section("abilities: the VM against hand-written Python doing the same to the same state")
    results = abilities.run(runs, repeat)
    measured = [r for r in results if r.ratio == r.ratio]
    for r in results:
        if r.ratio == r.ratio:
            table.add(f"  {r.label} [{r.source}]", f"{r.vm_us:,.1f} us", f"{r.hand_us:,.1f} us", r.ratio, "",
                      note=f"fell back: {r.note}" if r.note else "")
        else:
            table.add(f"  {r.label}", "skipped", note=r.note)
    if measured:
        geo = math.exp(statistics.fmean(math.log(r.ratio) for r in measured))
        total_vm, total_hand = sum(r.vm_us for r in measured), sum(r.hand_us for r in measured)
        worst = max(measured, key=lambda r: r.ratio)
        table.add(f"abilities, geometric mean of {len(measured)}", "VM", "hand-written", geo, "<= 1.5",
                  note=f"each ability on {runs} fresh copies of a mid-game state, best of {repeat}; "
                       f"worst: {worst.label} ({worst.ratio:.1f}x)")
        table.add(f"abilities, total time of {len(measured)}", f"{total_vm:,.0f} us", f"{total_hand:,.0f} us",
                  total_vm / total_hand, "<= 1.5")


# ------------------------------------------------------------------ whole games
def game_rows(table: Table, budget: float, repeats: int) -> dict[str, float]:
    from cardsmith.runtime.simulate import play_one

    table.section("full random games, per built-in pack (spread over repeats of the same seeds)")
    packs, bad = _compiling_packs()
    rates = {}
    for pid, folder in packs.items():
        pack = compile_pack(str(folder)).pack
        n = pack.players[0]
        t = CLOCK()
        games = 0
        while games < 1 or (CLOCK() - t < budget / repeats and games < 200):
            play_one(pack, n, games, ["random"])
            games += 1
        per = []
        for _ in range(repeats):
            t = CLOCK()
            for seed in range(games):
                play_one(pack, n, seed, ["random"])
            per.append(games / (CLOCK() - t))
        rate = statistics.fmean(per)
        rates[pid] = rate
        spread = f"min {min(per):.1f}, max {max(per):.1f}, sd {statistics.pstdev(per):.1f}"
        table.add(f"  {pid} ({n} player{'s' if n > 1 else ''})", f"{rate:.2f} games/s",
                  f"{games} games x {repeats}: {spread}", None, "report")
    for pid, err in bad.items():
        table.add(f"  {pid}", "skipped", note=f"does not compile ({err})")
    return rates


# ------------------------------------------------------------------ cloning
def clone_rows(table: Table, repeat: int) -> None:
    from . import abilities

    table.section("cloning a mid-game state (search agents)")
    res = compile_pack("earth")
    if not res.ok:
        table.add("clone", "skipped", note="earth does not compile")
        return
    state, _ = abilities.mid_game_state(res.pack, "earth")
    k = 200
    clone = _best(lambda: [state.clone() for _ in range(k)], repeat) / k
    deep = _best(lambda: [copy.deepcopy(state) for _ in range(k)], repeat) / k
    table.add(f"GameState.clone, Earth mid-game ({len(state.cards)} cards)", f"{clone * 1e6:,.1f} us",
              f"copy.deepcopy {deep * 1e6:,.1f} us", clone / deep, "report")
    from cardsmith.runtime.game import Game

    game = Game(res.pack, 3, seed=11)
    d = game.advance()
    for _ in range(300):
        if d is None:
            break
        game.decide(game.agents[d.seat].choose(game, d))
        d = game.advance()
    gclone = _best(lambda: [game.clone(silent=True) for _ in range(k)], repeat) / k
    gdeep = _best(lambda: [copy.deepcopy(game.state) for _ in range(k)], repeat) / k
    table.add("Game.clone (state, frames, pending decision)", f"{gclone * 1e6:,.1f} us",
              f"copy.deepcopy of its state {gdeep * 1e6:,.1f} us", gclone / gdeep, "report")


# ------------------------------------------------------------------ memory
_MEMORY_PROBE = r"""
import json, sys
from cardsmith.compiler import compile_pack
from cardsmith.runtime.simulate import play_one, summarize

def status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1])  # kB

ref, players, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pack = compile_pack(ref, cache=True).pack
results = []
for seed in range(games):
    results.append(play_one(pack, players, seed, ["random"]))
    if seed + 1 == 10:
        after10 = status("VmRSS:")
summarize(results, players)
peak, end = status("VmHWM:"), status("VmRSS:")
# What one more game keeps: its result (traced), and what is left once the results are dropped.
import gc, tracemalloc
gc.collect()
tracemalloc.start()
more = [play_one(pack, players, games + i, ["random"]) for i in range(20)]
gc.collect()
kept = tracemalloc.get_traced_memory()[0] / 20 / 1024
del more
gc.collect()
left = tracemalloc.get_traced_memory()[0] / 20 / 1024
print(json.dumps({"after10": after10, "peak": peak, "end": end, "kept": kept, "left": left}))
"""


def memory_rows(table: Table, games: int, ref: str = "earth", players: int = 3) -> None:
    table.section(f"memory: {games} games of {ref} in one process, results kept (as `simulate` keeps them)")
    if not Path("/proc/self/status").exists():
        table.add("memory", "skipped", note="needs Linux /proc")
        return
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, ref, str(players), str(max(games, 11))],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        table.add("memory", "failed", note=out.stderr.strip().splitlines()[-1] if out.stderr else "")
        return
    m = json.loads(out.stdout)
    growth_kb = (m["peak"] - m["after10"]) / max(games - 10, 1)
    table.add(f"peak RSS while simulating {games} games", f"{m['peak'] / 1024:.1f} MB",
              f"RSS after 10 games {m['after10'] / 1024:.1f} MB", m["peak"] / m["after10"], "report",
              note=f"{growth_kb:.2f} kB per game after the 10th; traced over 20 more games, a game keeps "
                   f"{m['kept']:.2f} kB (its result, with the cards each seat played) and leaves "
                   f"{m['left']:.3f} kB once results are dropped; {time.perf_counter() - t:.0f} s")


# ------------------------------------------------------------------ scale-out
def scale_rows(table: Table, games: int, ref: str = "earth", players: int = 3, repeats: int = 3) -> None:
    import os

    from cardsmith.runtime.parallel import run_games

    table.section(f"scale-out: `simulate --jobs 2` against `--jobs 1`, {games} games of {ref}")
    res = compile_pack(ref, cache=True)
    if not res.ok:
        table.add("scale-out", "skipped", note=f"{ref} does not compile")
        return
    # wall-clock, so the best of alternating repeats: a busy neighbour slows one run, not all of them
    one_t = two_t = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        one = run_games(res.pack, games, players, 0, ["random"], jobs=1)
        one_t = min(one_t, time.perf_counter() - t)
        t = time.perf_counter()
        two = run_games(res.pack, games, players, 0, ["random"], jobs=2)
        two_t = min(two_t, time.perf_counter() - t)
    same = [r.to_json() for r in one] == [r.to_json() for r in two]
    table.add("games/s with --jobs 2", f"{games / two_t:.2f} games/s", f"--jobs 1: {games / one_t:.2f} games/s",
              one_t / two_t, ">= 1.8",
              note=f"{os.cpu_count()} CPU(s); results identical to --jobs 1: {'yes' if same else 'NO'}; "
                   f"includes starting the workers; best of {repeats} alternating runs")
