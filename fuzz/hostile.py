"""Hostile inputs for the whole command line, made from a seed: the generator the campaign (fuzz/campaign.py),
the atheris harness (fuzz/atheris_compile.py) and the Hypothesis tests (tests/test_fuzz.py) share.

A case is one command run on files made for it in a folder of its own:

    validate   a mutated pack, in any output format (text, json, github, sarif)
    compile    a mutated pack, to stdout or to an output path that may not be writable
    test       scenario files: mutated ones of a real pack, and scenarios written with hostile values
    simulate   a mutated pack played for one game (a save or a log written on the way, sometimes)
    replay     a real event log, mutated
    resume     a real save, mutated

The mutations: lines deleted, duplicated, swapped, cut; characters flipped; explicit YAML tags (!!bool
yes-please, !!binary, !!python/object, ...); numbers at and beyond every bound cardsmith keeps (10^15,
10^18, 4,300 digits, 1:20, 0x_, .inf); file names that are not UTF-8 or hold control characters; file
kinds a pack must never read (FIFOs, links to /dev/zero, to a file outside, to a folder above, folders
named like card files, folders 40 levels deep); macros that double at every level; programs that never
end or grow their numbers; odd output paths (/dev/full, a missing folder, a link).

`run_case` runs one case in this process, through the real `cardsmith` entry point, and says what went
wrong, if anything: an internal error or a Python exception (a crash), no answer within `hang_seconds`
(a hang), or an exit code other than 0, 1 and 2.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import stat
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASES = {"minimal": ROOT / "tests" / "fixtures" / "valid" / "minimal",
         "vmtest": ROOT / "tests" / "fixtures" / "packs" / "vmtest",
         "living-forest": ROOT / "cards" / "living-forest",
         "birdscaping": ROOT / "cards" / "birdscaping"}
TARGETS = ("validate", "compile", "test", "simulate", "replay", "resume")

TAGS = ["!!bool yes-please", '!!int ""', "!!int 0x_", "!!timestamp x", "!!binary aGVsbG8=", "!!float x",
        "!!set {a, b}", "!!omap [a: 1]", "!!python/object:os.system ls", "!!python/name:os.system", "!foo bar",
        "!!str", "!!null x", "!!merge x", "!!pairs [a: 1]", "!!seq x", "!!map x", "!<tag:yaml.org,2002:int> ten"]
NUMBERS = ["0", "-1", "1", "2", "16", "17", "65", "999999999999999", "1000000000000000", "999999999999999999",
           "1000000000000000000", "1000000000000000001", "-1000000000000000001", "9223372036854775808",
           "9" * 4300, "9" * 4301, "9" * 20000, "1:20", "-1:20", "190:20:30.15", "0x_", "0b_", "0o17", "1_000",
           "1e400", "-1e400", ".inf", "-.inf", ".nan", "1.5", "2024-01-01", "0x7fffffffffffffff"]
TEXTS = ["", " ", "x" * 100_000, "\x1b]0;title\x07\x1b[2J", "a\u202eb", "line\nbreak", "tab\there", "\ufeffbom",
         "../../../../etc/passwd", "/dev/zero", "%s%n", "{{ 7*7 }}", "'", '"', "\\", "カード", "\U0001f0cf"]
RUNAWAY = ["repeat while 1 > 0: gain 1 {r}", "gain 10 {r}, repeat 80 times: set {r} to {r} * {r}",
           "gain 1 {r}, repeat while 1 > 0: set {r} to {r} + {r}", "choose X from 0 to 999999999999999, gain X {r}",
           "gain 999999999999999 {r}, gain up to {r} {r}", "repeat 999999999999999 times: gain 1 {r}",
           "gain 2 {r}, repeat 200 times: gain {r} * {r} {r}", "let n = 999999999999999 * 999999999999999, gain n {r}",
           "repeat until {r} < 0: lose 1 {r}"]
MAX_OUTPUT = 200_000  # characters of a command's output kept for the oracle


@dataclass
class Case:
    """One command run on files made for it. `make` builds the files in a folder; `args` then name them."""

    target: str
    seed: int
    args: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was done to the inputs, for a finding's report


@dataclass
class Outcome:
    case: Case
    exit_code: int | None
    problem: str | None  # None: the command behaved
    output: str = ""


class Hang(BaseException):
    """Raised by the watchdog: not an Exception, so that nothing in cardsmith can catch it."""


# ----------------------------------------------------------------------------- materials made once


_MATERIALS: dict[str, str] = {}


def materials(scratch: Path) -> dict[str, str]:
    """A real save and a real event log (Living Forest, two players), made once per process."""
    if _MATERIALS:
        return _MATERIALS
    from click.testing import CliRunner

    from cardsmith.cli import main

    scratch.mkdir(parents=True, exist_ok=True)
    save, logs = scratch / "base.save.json", scratch / "logs"
    result = CliRunner().invoke(main, ["simulate", "living-forest", "-n", "1", "-p", "2", "--seed", "5",
                                       "--save-at", "25", str(save), "--log-dir", str(logs), "--no-cache"])
    if result.exit_code != 0:
        raise RuntimeError(f"cannot make the base save and log: {result.output}")
    _MATERIALS["save"] = save.read_text(encoding="utf-8")
    _MATERIALS["log"] = next(logs.glob("*.jsonl")).read_text(encoding="utf-8")
    return _MATERIALS


# ----------------------------------------------------------------------------- mutations


NUMBER = re.compile(r"(?<![\w.-])-?\d+(?![\w.])")
SCALAR = re.compile(r"(:\s+)([^\s#\[\]{},][^#\n]*?)(\s*(?:#.*)?)$")


def mutate_text(rng: random.Random, text: str, notes: list[str]) -> str:
    """A few edits of a YAML (or JSON) text: by line, by character, tags, numbers, odd texts."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        if not lines:
            lines = [""]
        op = rng.choice(["delete", "duplicate", "swap", "flip", "number", "number", "tag", "tag", "text",
                         "indent", "truncate", "nest"])
        i = rng.randrange(len(lines))
        line = lines[i]
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, line)
        elif op == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], line
        elif op == "flip" and line:
            k = rng.randrange(len(line))
            ch = rng.choice([*":-[]{}'\"#&*!|>,%@` \t\\", chr(rng.randrange(0x20, 0x3000)), "\x00", "\x1b"])
            lines[i] = line[:k] + ch + line[k + 1:]
        elif op == "number" and NUMBER.search(line):
            found = list(NUMBER.finditer(line))
            m = rng.choice(found)
            new = rng.choice(NUMBERS)
            lines[i] = line[:m.start()] + new + line[m.end():]
            op += f" {new[:20]}"
        elif op == "tag" and (m := SCALAR.search(line)):
            tag = rng.choice(TAGS)
            lines[i] = line[:m.start(2)] + (tag if rng.random() < 0.5 else f"{tag.split()[0]} {m.group(2)}") + \
                line[m.end(2):]
            op += f" {tag}"
        elif op == "text" and (m := SCALAR.search(line)):
            lines[i] = line[:m.start(2)] + json.dumps(rng.choice(TEXTS)) + line[m.end(2):]
        elif op == "indent":
            lines[i] = rng.choice(["", " ", "   ", "\t"]) + line.lstrip()
        elif op == "truncate":
            lines = lines[:i]
        elif op == "nest":
            depth = rng.choice([30, 64, 65, 500, 100_000])
            lines.insert(i, "deep: " + "[" * depth + "]" * depth)
        notes.append(f"{op} at line {i + 1}")
    return "\n".join(lines)


def _special(rng: random.Random, folder: Path, outside: Path, notes: list[str]) -> None:
    """A file a pack must never read, or a name a terminal or an encoder must survive."""
    kind = rng.choice(["fifo", "zero", "null", "outside", "parent", "dangling", "dir", "deep", "bytes", "control",
                       "huge", "empty", "bom", "crlf", "utf16", "selflink"])
    notes.append(f"special {kind}")
    name = f"x{rng.randrange(1000)}.yaml"
    path = folder / name
    try:
        if kind == "fifo" and hasattr(os, "mkfifo"):
            os.mkfifo(path)
        elif kind in ("zero", "null"):
            os.symlink(f"/dev/{kind}", path)
        elif kind == "outside":
            outside.mkdir(exist_ok=True)
            (outside / "secret.yaml").write_text("cards: []\nsecret: hunter2\n", encoding="utf-8")
            os.symlink(outside / "secret.yaml", path)
        elif kind == "parent":
            os.symlink("..", folder / f"up{rng.randrange(100)}")
        elif kind == "dangling":
            os.symlink("nowhere.yaml", path)
        elif kind == "selflink":
            os.symlink(name, path)
        elif kind == "dir":
            path.mkdir()
        elif kind == "deep":
            d = folder
            for _ in range(rng.choice([33, 40, 70])):
                d = d / "d"
            d.mkdir(parents=True)
            (d / "deep.yaml").write_text("cards: []\n", encoding="utf-8")
        elif kind == "bytes":
            raw = os.fsencode(folder) + b"/" + rng.choice([b"caf\xe9.yaml", b"\xff\xfe.yaml", b"\x80x.yaml"])
            with open(raw, "w", encoding="utf-8") as fh:
                fh.write(rng.choice(["cards: [oops\n", "cards: []\n", "cards:\n  - {id: a b, name: x}\n"]))
        elif kind == "control":
            (folder / f"e\x1b[2J{rng.randrange(9)}\n.yaml").write_text("cards: [\n", encoding="utf-8")
        elif kind == "huge":
            path.write_bytes(b"cards: []\n#" + b"x" * 2_000_001)
        elif kind == "empty":
            path.write_bytes(b"")
        elif kind == "bom":
            path.write_bytes(b"\xef\xbb\xbfcards: []\n")
        elif kind == "crlf":
            path.write_bytes(b"cards:\r\n  - {id: crlf, name: C, type: x}\r\n")
        elif kind == "utf16":
            path.write_bytes("cards: []\n".encode("utf-16"))
    except OSError as e:  # a file system that refuses such names: nothing made
        notes.append(f"(not made: {e.strerror})")


def _macros(rng: random.Random, rules: Path, notes: list[str]) -> None:
    """Macros that double the program at every level, or call each other, under 'macros:'."""
    text = rules.read_text(encoding="utf-8")
    if "macros:\n" not in text:
        return
    levels = rng.choice([5, 16, 22, 30])
    body = '  "zz0 go": "nothing"\n' + "".join(f'  "zz{i} go": "zz{i - 1} go, zz{i - 1} go"\n'
                                                for i in range(1, levels))
    if rng.random() < 0.3:
        body += '  "zzloop go": "zzloop go"\n'
    text = text.replace("macros:\n", "macros:\n" + body, 1)
    text = re.sub(r'^game: .*$', f'game: "zz{levels - 1} go"', text, count=1, flags=re.M)
    rules.write_text(text, encoding="utf-8")
    notes.append(f"macros doubling {levels} levels")


def _runaway(rng: random.Random, rules: Path, notes: list[str]) -> None:
    text = rules.read_text(encoding="utf-8")
    m = re.search(r"^resources:\n\s+([a-z][a-z0-9-]*):", text, flags=re.M)
    if m is None or not re.search(r"^game: ", text, flags=re.M):
        return
    program = rng.choice(RUNAWAY).format(r=m.group(1))
    text = re.sub(r'^game: .*$', f"game: {json.dumps(program)}", text, count=1, flags=re.M)
    rules.write_text(text, encoding="utf-8")
    notes.append(f"game: {program}")


def _few_scenarios(rng: random.Random, folder: Path) -> None:
    """One scenario file of a real pack, not all of them: a case runs one command, not a pack's whole suite."""
    scenarios = sorted((folder / "scenarios").glob("*.yaml"))
    if len(scenarios) > 1:
        keep = rng.choice(scenarios)
        for f in scenarios:
            if f != keep:
                f.unlink()


def make_pack(rng: random.Random, where: Path, notes: list[str]) -> Path:
    """A copy of a base pack (its own scenarios included), mutated."""
    base = rng.choice(list(BASES))
    folder = where / base
    shutil.copytree(BASES[base], folder, symlinks=True)
    notes.append(f"pack {base}")
    _few_scenarios(rng, folder)
    files = sorted(p for p in folder.rglob("*.yaml") if p.is_file())
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        f = rng.choice(files)
        f.write_text(mutate_text(rng, f.read_text(encoding="utf-8"), notes), encoding="utf-8")
        notes.append(f"in {f.relative_to(folder)}")
    if rng.random() < 0.35:
        _special(rng, folder if rng.random() < 0.7 else folder / "scenarios" if (folder / "scenarios").is_dir()
                 else folder, where / "outside", notes)
    if rng.random() < 0.1 and (folder / "rules.yaml").is_file():
        _macros(rng, folder / "rules.yaml", notes)
    if rng.random() < 0.15 and (folder / "rules.yaml").is_file():
        _runaway(rng, folder / "rules.yaml", notes)
    return folder


def scenario_text(rng: random.Random, pack: str, notes: list[str]) -> str:
    """A scenario file written with hostile values: pack names, parameters, keys, numbers, texts."""
    choice = rng.choice(["pack", "params", "key", "number", "text", "players", "decisions", "do"])
    notes.append(f"scenario {choice}")
    sc: dict = {"name": "hostile", "do": "nothing"}
    if choice == "pack":
        pack = rng.choice(["x" * 300, "/etc", "..", "../../..", "\x1b[2J", "earth\n", "", "no-such-pack"])
    elif choice == "params":
        sc["params"] = rng.choice([{"ladder": 5}, {"ladder": ["x"]}, {"bonus": [1]}, {"bonus": 10**30},
                                   {"nope": 1}, {"bonus": "1:20"}, {"ladder": list(range(5000))}])
    elif choice == "key":
        sc["expect"] = {"players": [{"zones": {rng.choice(["board", "row", "tableau", "hand"]):
                                               {rng.choice(["x,y", "1:20", "1,2,3", "", "-1,-1", "99999999,1"]):
                                                "oak"}}}]}
    elif choice == "number":
        sc["state"] = {"players": [{"counters": {rng.choice(["gold", "soil", "coin"]):
                                                 int(rng.choice(NUMBERS[:14]))}}]}
    elif choice == "text":
        sc[rng.choice(["name", "cites", "do"])] = rng.choice(TEXTS)
    elif choice == "players":
        sc["players"] = rng.choice([0, 1, 16, 17, -1, 10**6])
    elif choice == "decisions":
        sc["decisions"] = rng.choice([[10**20], ["x" * 100_000], [-1], list(range(1000))])
        sc["do"] = "choose one: gain 1 gold | draw 1"
    else:
        sc["do"] = rng.choice(RUNAWAY).format(r=rng.choice(["gold", "soil", "coin"]))
    return json.dumps({"pack": pack, "scenarios": [sc]}, ensure_ascii=False)


def mutate_json_lines(rng: random.Random, text: str, notes: list[str]) -> str:
    """Edits of a save or a log: JSON values replaced with hostile ones, lines dropped or repeated, nesting."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(["value", "value", "value", "delete", "duplicate", "nest", "bytes", "text"])
        i = rng.randrange(len(lines))
        if op == "value":
            found = list(re.finditer(r'("[a-z_-]+"\s*:\s*)(-?\d+|"[^"]*"|true|false|null)', lines[i]))
            if found:
                m = rng.choice(found)
                new = rng.choice([*NUMBERS[:16], '"/tmp"', '"../x"', '"earth"', '"no-such"', "[]", "{}", "null",
                                  "true", "-1", "0", json.dumps("\x1b[2J"), '"' + "x" * 100_000 + '"'])
                lines[i] = lines[i][:m.start(2)] + new + lines[i][m.end(2):]
                notes.append(f"{m.group(1).strip()} {new[:20]} at line {i + 1}")
                continue
            nums = list(re.finditer(r"-?\d+", lines[i]))
            if nums:
                m = rng.choice(nums)
                lines[i] = lines[i][:m.start()] + rng.choice(NUMBERS[:16]) + lines[i][m.end():]
        elif op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "nest":
            lines.insert(i, "[" * 100_000 + "]" * 100_000)
        elif op == "text":
            lines[i] = rng.choice(TEXTS)
        notes.append(f"{op} at line {i + 1}")
        if not lines:
            lines = [""]
    return "\n".join(lines)


def make_case(seed: int, where: Path, target: str | None = None) -> Case:
    """The case of this seed, its files written under `where` (an empty folder, made if missing)."""
    where.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    target = target or TARGETS[seed % len(TARGETS)]
    case = Case(target, seed)
    notes = case.notes
    if target in ("validate", "compile", "simulate"):
        pack = make_pack(rng, where, notes)
        if target == "validate":
            fmt = rng.choice(["text", "json", "github", "sarif"])
            named = [str(pack)] if rng.random() < 0.8 else [str(p) for p in sorted(pack.glob("*.yaml"))[:3]] or \
                [str(pack)]
            case.args = ["validate", *named, "--format", fmt]
        elif target == "compile":
            out = rng.choice([None, None, str(where / "out.json"), "/dev/full", str(where / "missing" / "x.json"),
                              str(where)])
            case.args = ["compile", str(pack), *(["-o", out] if out and (out != "/dev/full" or
                                                                     Path("/dev/full").exists()) else [])]
        else:
            case.args = ["simulate", str(pack), "-n", "1", "--max-decisions", str(rng.choice([100, 300])),
                         "--seed", str(rng.randrange(100)), "--no-cache"]
            if rng.random() < 0.2:
                target_path = where / rng.choice(["g.json", "missing/g.json"])
                if rng.random() < 0.3:
                    os.symlink("/dev/null", where / "g.json")
                case.args += ["--save-at", str(rng.choice([0, 5, 50])), str(target_path)]
            if rng.random() < 0.2:
                case.args += ["--log-dir", str(where / "logs")]
    elif target == "test":
        if rng.random() < 0.5:
            pack = make_pack(rng, where, notes)
            scenarios = pack / "scenarios"
            if not scenarios.is_dir():
                scenarios.mkdir()
                (scenarios / "s.yaml").write_text(scenario_text(rng, "..", notes), encoding="utf-8")
            case.args = ["test", str(scenarios if rng.random() < 0.8 else pack)]
        else:
            base = rng.choice(["vmtest", "minimal", "living-forest"])
            pack = where / base
            shutil.copytree(BASES[base], pack)
            _few_scenarios(rng, pack)
            (pack / "scenarios").mkdir(exist_ok=True)
            f = pack / "scenarios" / "hostile.yaml"
            f.write_text(scenario_text(rng, "..", notes), encoding="utf-8")
            if rng.random() < 0.3:
                _special(rng, pack / "scenarios", where / "outside", notes)
            case.args = ["test", str(pack / "scenarios")]
    elif target == "resume":
        save = where / "game.save.json"
        save.write_text(mutate_json_lines(rng, materials(where.parent / "materials")["save"], notes),
                        encoding="utf-8")
        case.args = ["resume", str(save)]
        if rng.random() < 0.3:
            case.args += ["--log", rng.choice([str(where / "out.jsonl"), str(where / "missing" / "x.jsonl")])]
        if rng.random() < 0.2:
            case.args += ["--pack", rng.choice(["living-forest", str(where / "nope"), "/etc"])]
    else:
        log = where / "game.jsonl"
        log.write_text(mutate_json_lines(rng, materials(where.parent / "materials")["log"], notes), encoding="utf-8")
        case.args = ["replay", str(log)]
    return case


# ----------------------------------------------------------------------------- running a case


def _forget_caches() -> None:
    """Caches a long run would otherwise fill with every fuzzed pack (a process that runs many packs)."""
    import cardsmith.scenarios as scenarios
    from cardsmith.runtime.vm import linker

    scenarios._PACKS.clear()
    linker._LINKERS.clear()
    try:
        from cardsmith.runtime import visibility

        visibility._CACHE.clear()
    except (ImportError, AttributeError):
        pass


BLOCKED_FACTOR = 6  # a case blocked on a read uses no CPU: it is a hang after this many times hang_seconds of wall


def run_case(case: Case, hang_seconds: float = 10.0) -> Outcome:
    """Run the case's command in this process; its Outcome names any crash, hang or stray exit code.

    A hang is `hang_seconds` of CPU time without an answer (CPU, so that a busy machine does not make a slow
    case a hang), or `BLOCKED_FACTOR` times that of wall-clock time (a read that blocks uses no CPU)."""
    from click.testing import CliRunner

    from cardsmith.cli import main

    def alarm(signum, frame):
        raise Hang(signum)

    old = signal.signal(signal.SIGPROF, alarm), signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_PROF, hang_seconds)
    signal.setitimer(signal.ITIMER_REAL, hang_seconds * BLOCKED_FACTOR)
    try:
        result = CliRunner().invoke(main, case.args)
    except Hang as h:
        # which clock ran out: CPU (the command kept working) or wall time (blocked, or starved of CPU)
        said = (f"{hang_seconds:g} s of CPU" if h.args and h.args[0] == signal.SIGPROF
                else f"{hang_seconds * BLOCKED_FACTOR:g} s of wall-clock time (blocked, or the machine gave it no CPU)")
        return Outcome(case, None, f"hang: no answer within {said}")
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old[0])
        signal.signal(signal.SIGALRM, old[1])
        _forget_caches()
    out = (result.stdout + result.stderr)[-MAX_OUTPUT:]
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        import traceback

        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:]
        return Outcome(case, result.exit_code, f"exception {type(exc).__name__}: {exc}"[:300], tb)
    if "internal error" in out or "Traceback (most recent call last)" in out:
        return Outcome(case, result.exit_code, "internal error", out)
    if result.exit_code not in (0, 1, 2):
        return Outcome(case, result.exit_code, f"exit code {result.exit_code}", out)
    if case.target == "validate" and "--format" in case.args:
        fmt = case.args[case.args.index("--format") + 1]
        if fmt in ("json", "sarif"):
            try:
                json.loads(result.stdout)
            except ValueError as e:
                return Outcome(case, result.exit_code, f"--format {fmt} printed what is not JSON: {e}", out)
    return Outcome(case, result.exit_code, None, out)


def clear(folder: Path) -> None:
    """Remove a case's folder, whatever it holds (FIFOs, links, folders too deep for a recursive removal)."""
    if not folder.exists() and not folder.is_symlink():
        return
    todo, dirs = [folder], []
    while todo:
        d = todo.pop()
        dirs.append(d)
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    todo.append(Path(e.path))
                else:
                    os.unlink(e.path)
            except OSError:
                pass
    for d in reversed(dirs):
        try:
            os.rmdir(d)
        except OSError:
            if stat.S_ISDIR(os.lstat(d).st_mode):
                shutil.rmtree(d, ignore_errors=True)
