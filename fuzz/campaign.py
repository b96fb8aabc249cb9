"""The hostile-input campaign: many generated cases (fuzz/hostile.py) across validate, compile, test, simulate,
replay and resume, run in-process by worker processes, with a report a maintainer can compare between runs.

    python fuzz/campaign.py --inputs 100000 --jobs 2 --seed 0 --out fuzz/findings
    python fuzz/campaign.py --case 12345 --seed 0            # run one case again, and print what it did
    python fuzz/campaign.py --first 20000 --inputs 10000 --json s3.json      # a slice of a long campaign
    python fuzz/campaign.py --merge s1.json s2.json s3.json                  # the slices' summaries added up

Case i of a run is made from the seed (seed, i): the same command gives the same cases. Each worker runs
under an address-space limit of its size at start plus --memory MB (1,024 by default), so a case that
would take more fails there, as a finding, and never takes the machine with it; a case that does not
answer within --hang seconds (10) is a hang. Findings (crashes, hangs, stray exit codes) are written to
--out, one JSON file each with the command, what was done to its inputs and the output; the case's files
are kept beside it. The summary gives the cases run per target, the findings per kind, the exit codes
and the workers' peak memory.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import resource
import shutil
import stat
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostile  # the generator beside this file


def _copy_regular(src: str, dst: str) -> None:
    if stat.S_ISREG(os.lstat(src).st_mode):
        shutil.copy2(src, dst)


def _case_seed(seed: int, i: int) -> int:
    return seed * 1_000_003 + i


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def _limit_memory(mb: int) -> int:
    """Cap this process's address space at its size now plus `mb`; returns the cap in MB (0: no cap)."""
    try:
        with open("/proc/self/statm") as fh:
            vsz = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0
    cap = vsz + mb * 1_000_000
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]  # the soft limit only: a hard one could not be raised again
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    return cap // 1_000_000


def worker(args: tuple) -> dict:
    """Cases worker_index, worker_index + jobs, ... of the run, in this process, which is left as it was found:
    with --jobs 1 this is the caller's own process (a test's, say), and a capped address space left behind
    kills the next program it starts (Chromium aborts at once)."""
    limit = resource.getrlimit(resource.RLIMIT_AS)
    environ = dict(os.environ)
    try:
        return _run_cases(args)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, limit)
        os.environ.clear()
        os.environ.update(environ)


def _run_cases(args: tuple) -> dict:
    index, jobs, first, inputs, seed, out, hang, memory, scratch_root = args
    os.environ["CARDSMITH_CACHE"] = str(Path(scratch_root) / f"cache-{index}")
    os.environ.setdefault("COLUMNS", "100")
    scratch = Path(scratch_root) / f"w{index}"
    scratch.mkdir(parents=True, exist_ok=True)
    import cardsmith.cli  # noqa: F401  (imported before the limit: the command line's modules)

    hostile.materials(scratch / "materials")
    cap = _limit_memory(memory)
    counts: Counter = Counter()
    exits: Counter = Counter()
    findings: list[dict] = []
    peak_rss = _rss_mb()
    slowest = (0.0, None)
    start = time.monotonic()
    for i in range(first + index, first + inputs, jobs):
        where = scratch / f"case-{i}"
        where.mkdir()
        s = _case_seed(seed, i)
        try:
            case = hostile.make_case(s, where)
        except (OSError, RuntimeError) as e:  # the generator could not make its files: not the tool's fault
            counts["not made"] += 1
            hostile.clear(where)
            print(f"case {i}: not made: {e}", file=sys.stderr)
            continue
        t = time.monotonic()
        try:
            outcome = hostile.run_case(case, hang)
        except MemoryError:
            outcome = hostile.Outcome(case, None, f"memory: over {memory} MB")
        took = time.monotonic() - t
        if took > slowest[0]:
            slowest = (took, i)
        peak_rss = max(peak_rss, _rss_mb())
        counts[case.target] += 1
        exits[f"{case.target} {outcome.exit_code}"] += 1
        if outcome.problem is not None:
            kind = outcome.problem.split(":")[0].split(" ")[0]
            record = {"case": i, "seed": seed, "target": case.target, "args": case.args, "notes": case.notes,
                      "problem": outcome.problem, "kind": kind, "output": outcome.output[-6000:]}
            findings.append(record)
            dest = Path(out) / f"finding-{seed}-{i}"
            shutil.rmtree(dest, ignore_errors=True)
            with contextlib.suppress(OSError, shutil.Error):  # regular files and links only (a FIFO would block)
                shutil.copytree(where, dest / "files", symlinks=True, ignore_dangling_symlinks=True,
                                copy_function=_copy_regular)
            dest.mkdir(parents=True, exist_ok=True)
            (dest / "finding.json").write_text(json.dumps(record, indent=1, ensure_ascii=True), encoding="utf-8")
        hostile.clear(where)
        done = sum(v for k, v in counts.items() if k != "not made")
        if done % 2000 == 0:
            print(f"worker {index}: {done} cases, {len(findings)} findings, {time.monotonic() - start:.0f} s, "
                  f"peak {peak_rss:.0f} MB", file=sys.stderr, flush=True)
    return {"counts": counts, "exits": exits, "findings": findings, "peak_rss_mb": peak_rss,
            "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, "cap_mb": cap,
            "slowest": slowest, "seconds": time.monotonic() - start}


def merge_summaries(parts: list[dict]) -> dict:
    """The summary of a campaign run in slices: counts added up, peaks and the slowest case the largest."""
    whole: dict = {"slices": [(p.get("seed"), p.get("first", 0), p["inputs"]) for p in parts]}
    for key in ("inputs", "not_made", "findings", "crashes", "hangs", "over_memory", "wall_seconds"):
        whole[key] = sum(p.get(key, 0) for p in parts)
    for key in ("per_target", "findings_by_kind", "exit_codes"):
        total: Counter = Counter()
        for p in parts:
            total.update(p.get(key, {}))
        whole[key] = dict(sorted(total.items()))
    whole["worker_peak_rss_mb"] = max(max(p["worker_peak_rss_mb"]) for p in parts)
    whole["slowest_case_seconds"] = max(p["slowest_case_seconds"] for p in parts)
    return whole


def _by_seed(slices) -> dict:
    out: dict = {}
    for seed, _, n in slices:
        k, total = out.get(seed, (0, 0))
        out[seed] = (k + 1, total + n)
    return out


def rst_table(whole: dict) -> str:
    """The merged figures as a reStructuredText table (docs/campaign-table.inc)."""
    rows = [("inputs", f"{whole['inputs']:,}"),
            *((f"inputs to {t}", f"{n:,}") for t, n in whole["per_target"].items()),
            ("inputs the generator could not make", f"{whole['not_made']:,}"),
            ("crashes (internal errors, exceptions, stray exit codes)", f"{whole['crashes']:,}"),
            (f"hangs (over {whole.get('hang_seconds', 10):g} s of CPU, or a blocked read)", f"{whole['hangs']:,}"),
            ("runs over the memory cap (start + 1,024 MB)", f"{whole['over_memory']:,}"),
            ("largest worker peak RSS", f"{whole['worker_peak_rss_mb']:,} MB"),
            ("slowest case", f"{whole['slowest_case_seconds']:.1f} s"),
            ("seeds and cases", "; ".join(f"seed {seed}: {n:,} cases in {k} slice(s)" for seed, (k, n) in sorted(
                _by_seed(whole["slices"]).items())))]
    width = max(len(a) for a, _ in rows)
    vwidth = max(len(b) for _, b in rows)
    rule = f"{'=' * width}  {'=' * vwidth}"
    lines = [rule, f"{'figure'.ljust(width)}  value", rule]
    lines += [f"{a.ljust(width)}  {b}" for a, b in rows]
    return "\n".join([*lines, rule]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=1000, help="cases to run in all (default 1,000)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--out", default="fuzz/findings", help="where findings are written")
    parser.add_argument("--hang", type=float, default=10.0, help="seconds a case may take (default 10)")
    parser.add_argument("--memory", type=int, default=1024, help="MB a worker may take beyond its start (1,024)")
    parser.add_argument("--first", type=int, default=0,
                        help="the first case's number (default 0): a long campaign runs in slices, "
                             "--first 0, --first 10000, ..., each with its own --json")
    parser.add_argument("--merge", nargs="+", metavar="JSON", default=None,
                        help="add up the summaries of slices (their --json files) and print the whole")
    parser.add_argument("--rst", action="store_true", help="with --merge: print the figures as a docs table")
    parser.add_argument("--case", type=int, default=None, help="run only this case, and print it")
    parser.add_argument("--json", default=None, help="also write the summary here as JSON")
    args = parser.parse_args(argv)
    if args.merge:
        whole = merge_summaries([json.loads(Path(f).read_text(encoding="utf-8")) for f in args.merge])
        print(rst_table(whole) if args.rst else json.dumps(whole, indent=1))
        return 0
    scratch_root = Path(tempfile.mkdtemp(prefix="cardsmith-campaign-"))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    try:
        if args.case is not None:
            where = scratch_root / "case"
            where.mkdir()
            case = hostile.make_case(_case_seed(args.seed, args.case), where)
            print("cardsmith " + " ".join(case.args))
            print("inputs: " + "; ".join(case.notes))
            outcome = hostile.run_case(case, args.hang)
            print(f"exit {outcome.exit_code}: {outcome.problem or 'behaved'}\n{outcome.output[-3000:]}")
            return 1 if outcome.problem else 0
        t0 = time.monotonic()
        jobs = [(i, args.jobs, args.first, args.inputs, args.seed, args.out, args.hang, args.memory, str(scratch_root))
                for i in range(args.jobs)]
        if args.jobs == 1:
            results = [worker(jobs[0])]
        else:
            with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
                results = pool.map(worker, jobs)
        counts = sum((r["counts"] for r in results), Counter())
        exits = sum((r["exits"] for r in results), Counter())
        findings = [f for r in results for f in r["findings"]]
        kinds = Counter(f["kind"] for f in findings)
        summary = {"seed": args.seed, "first": args.first,
                   "inputs": sum(v for k, v in counts.items() if k != "not made"),
                   "per_target": {t: counts[t] for t in hostile.TARGETS}, "not_made": counts["not made"],
                   "findings": len(findings), "crashes": kinds["internal"] + kinds["exception"] + kinds["exit"],
                   "hangs": kinds["hang"], "over_memory": kinds["memory"], "findings_by_kind": dict(kinds),
                   "exit_codes": dict(sorted(exits.items())), "hang_seconds": args.hang,
                   "memory_cap_mb_beyond_start": args.memory,
                   "worker_peak_rss_mb": [round(r["peak_rss_mb"]) for r in results],
                   "worker_max_rss_mb": [round(r["max_rss_mb"]) for r in results],
                   "slowest_case_seconds": max(r["slowest"][0] for r in results),
                   "wall_seconds": round(time.monotonic() - t0)}
        print(json.dumps(summary, indent=1))
        if args.json:
            Path(args.json).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        for f in findings[:20]:
            print(f"finding: case {f['case']} ({f['target']}): {f['problem']}\n  cardsmith {' '.join(f['args'])}")
        return 1 if findings else 0
    finally:
        hostile.clear(scratch_root)


if __name__ == "__main__":
    sys.exit(main())
