"""Fresh processes: what a command costs from a cold start (imports included), against a bare interpreter started
the same way in the same run, and a cold compile in a fresh process against a bare yaml.load there."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from .report import Table

ROOT = Path(__file__).resolve().parent.parent


def child_cpu(args: list[str], env: dict | None = None) -> float:
    """CPU seconds (user + system) of one child process run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, capture_output=True, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best_child(args: list[str], repeat: int, env: dict | None = None) -> float:
    return min(child_cpu(args, env) for _ in range(repeat))


def startup_rows(table: Table, repeat: int) -> None:
    table.section("fresh processes: CPU of a command from a cold start, against a bare interpreter (same run)")
    env = {**os.environ, "CARDSMITH_CACHE": tempfile.mkdtemp(prefix="cardsmith-bench-start-")}
    bare = best_child([sys.executable, "-c", "pass"], repeat, env)
    cmd = [sys.executable, "-m", "cardsmith"]
    help_cpu = best_child([*cmd, "--help"], repeat, env)
    table.add("`cardsmith --help`", f"{help_cpu * 1000:.0f} ms CPU", f"python -c pass: {bare * 1000:.0f} ms",
              help_cpu / bare, "report",
              note=f"goal: at most 150 ms of CPU ({'met' if help_cpu <= 0.15 else 'NOT met'} at "
                   f"{help_cpu * 1000:.0f} ms); the interpreter alone takes {bare * 1000:.0f} ms here")
    subprocess.run([*cmd, "validate", "earth"], capture_output=True, env=env, check=False)  # the cache entry
    warm = best_child([*cmd, "validate", "earth"], repeat, env)
    table.add("`cardsmith validate earth`, warm cache", f"{warm * 1000:.0f} ms CPU",
              f"python -c pass: {bare * 1000:.0f} ms", warm / bare, "report",
              note=f"goal: at most 300 ms of CPU ({'met' if warm <= 0.3 else 'NOT met'} at {warm * 1000:.0f} ms); "
                   "a fresh process reading one signed cache entry, no compiler stage imported")
    cold = best_child([*cmd, "validate", "earth", "--no-cache"], max(1, repeat // 2), env)
    table.add("`cardsmith validate earth --no-cache`", f"{cold * 1000:.0f} ms CPU",
              f"python -c pass: {bare * 1000:.0f} ms", cold / bare, "report", note="imports and a full compile")


_COMPILE_CHILD = r"""
import gc, json, sys, time
what = sys.argv[1]
files = json.loads(sys.argv[2])
if what == "yaml":
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = [open(f, "rb").read() for f in files]
    t = time.process_time()
    for d in data:
        yaml.load(d, Loader=loader)
else:
    from cardsmith.compiler import compile_pack
    from cardsmith.compiler.diagnostics import Diagnostics
    packs = json.loads(sys.argv[3])
    t = time.process_time()
    for p in packs:
        compile_pack(p, Diagnostics())
print(time.process_time() - t)
"""


def fresh_compile_rows(table: Table, packs: dict[str, Path], files: list[str], repeat: int) -> None:
    """Cold compile of every built-in pack in a fresh process (the parser's tables built there, the garbage
    collector on, as a user's first compile runs) against yaml.load of the same files in a fresh process."""

    def run(what: str) -> float:
        out = subprocess.run([sys.executable, "-c", _COMPILE_CHILD, what, json.dumps(files),
                              json.dumps([str(p) for p in packs.values()])], capture_output=True, text=True,
                             check=False)
        return float(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else float("nan")

    base = min(run("yaml") for _ in range(repeat))
    comp = min(run("compile") for _ in range(repeat))
    table.add(f"cold compile in a fresh process, {len(packs)} packs", f"{comp * 1000:.0f} ms",
              f"yaml.load in a fresh process: {base * 1000:.0f} ms", comp / base, "<= 3",
              note="the first compile of a process: Lark's tables built, the garbage collector on (paused by the "
                   "compiler itself), imports not counted on either side")
