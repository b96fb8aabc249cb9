"""Issue 20: what a hostile tester found, each class as its minimal reproducer. Every one of these ended in an
internal error, a hang or a file read from outside the pack before the fix; now each is a located diagnostic
or a one-line error with the documented exit code.

Work is bounded by counts and by what is read, never by time (the fuzzing campaign in fuzz/ and
tests/test_fuzz.py covers the same ground with generated inputs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardsmith.bytecode import Span
from cardsmith.bytecode.inputs import InputError, printable, read_input
from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import Diagnostics, render_github, render_json, render_sarif, render_text

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = ROOT / "tests" / "fixtures" / "valid" / "minimal"


def pack_with(tmp_path: Path, files: dict[str, str | bytes] | None = None, name: str = "hostile",
              replace: dict[str, tuple[str, str]] | None = None) -> Path:
    """The minimal valid pack as `name`, with files added (or replaced) and texts replaced in its files."""
    folder = tmp_path / name
    shutil.copytree(MINIMAL, folder)
    replace = {"pack.yaml": ("id: minimal", f"id: {name}"), **(replace or {})}
    for rel, (old, new) in replace.items():
        text = (folder / rel).read_text(encoding="utf-8")
        assert old in text, (rel, old)
        (folder / rel).write_text(text.replace(old, new), encoding="utf-8")
    for rel, data in (files or {}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return folder


def cli(*args, env: dict | None = None):
    return CliRunner(env=env).invoke(main, [str(a) for a in args])


def no_crash(result) -> None:
    """No internal error, no traceback: the exit code is one of the documented ones for a finding or usage."""
    text = (result.stdout or "") + (result.stderr if result.stderr_bytes is not None else "")
    assert "internal error" not in text and "Traceback" not in text, text
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)


def run_cardsmith(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """cardsmith in a child process, with its own environment (encodings, locales)."""
    return subprocess.run([sys.executable, "-m", "cardsmith", *args], cwd=cwd, capture_output=True,
                          env={**os.environ, **env})


# ----------------------------------------------------------------------------- 1. explicit YAML tags


@pytest.mark.parametrize(("value", "says"), [
    ("!!bool yes-please", "cannot be read as !!bool"),
    ('!!int ""', "cannot be read as !!int"),
    ("!!timestamp x", "cannot be read as !!timestamp"),
    ("!!binary aGVsbG8=", "!!binary is not supported"),
    ("!!float x", "bad scalar value"),
])
def test_an_explicit_tag_that_cannot_be_built_is_a_located_error(tmp_path, value, says):
    folder = pack_with(tmp_path, replace={"pack.yaml": ("description: A tiny pack for compiler tests.",
                                                        f"description: {value}")})
    res = compile_pack(folder)
    (d,) = [d for d in res.diagnostics.errors if d.code == "E001"]
    assert d.span.file.endswith("pack.yaml") and (d.span.line, d.span.col) == (5, 14) and says in d.message


def test_new_card_reads_a_card_file_with_a_bad_tag_without_crashing(tmp_path):
    folder = pack_with(tmp_path, {"cards.yaml": "defaults: {type: !!bool yes-please}\ncards: []\n"})
    result = cli("new", "card", folder, "--name", "Fern")
    no_crash(result)
    assert result.exit_code in (0, 2)


# ----------------------------------------------------------------------------- 2. file names that are not UTF-8


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse names that are not UTF-8")
@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
@pytest.mark.parametrize("command", ["validate", "compile", "test"])
def test_file_names_that_are_not_utf8_under_a_strict_encoding(tmp_path, fmt, command):
    if command != "validate" and fmt != "text":
        pytest.skip("only validate has output formats")
    folder = pack_with(tmp_path)
    os.rename(folder / "cards.yaml", os.fsencode(folder) + b"/caf\xe9.yaml")
    (Path(os.fsdecode(os.fsencode(folder) + b"/\xff\xfe.yaml"))).write_text("cards: [oops\n", encoding="utf-8")
    args = {"validate": ["validate", folder.name, "--format", fmt], "compile": ["compile", folder.name],
            "test": ["test", folder.name]}[command]
    if command == "test":
        (folder / "scenarios").mkdir()
        (folder / "scenarios" / "s.yaml").write_text("pack: ..\nscenarios:\n  - {name: a, do: \"draw 1\"}\n")
    run = run_cardsmith(args, tmp_path, PYTHONIOENCODING="utf-8", LC_ALL="C.UTF-8")
    err, out = run.stderr.decode("utf-8"), run.stdout.decode("utf-8")  # what was written is UTF-8
    assert run.returncode == 1 and "internal error" not in err, err
    if fmt == "json":
        assert any(d["file"].endswith("\\xff\\xfe.yaml") for d in json.loads(out))
    else:
        assert "\\xff\\xfe.yaml" in out + err or "%FF%FE.yaml" in out, out + err


def test_printable_escapes_undecodable_bytes_and_control_characters():
    assert printable(os.fsdecode(b"caf\xe9.yaml")) == "caf\\xe9.yaml"
    assert printable("Oak\x1b]0;pwned\x07") == "Oak\\x1b]0;pwned\\x07"
    assert printable("two\nlines\t", keep="\n") == "two\nlines\\t"
    assert printable("Mossback Oak 苔") == "Mossback Oak 苔"


# ----------------------------------------------------------------------------- 3. SARIF and odd folders


def test_sarif_with_a_loop_of_symbolic_links(tmp_path):
    folder = pack_with(tmp_path)
    os.symlink("loop", folder / "loop")
    result = cli("validate", folder, "--format", "sarif")
    no_crash(result)
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    assert any(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("loop")
               for r in log["runs"][0]["results"])


def test_a_folder_1500_levels_deep_is_searched_without_recursion(tmp_path):
    root = tmp_path / "deep"
    folder = pack_with(root)
    _deep_folders(folder, 1500)
    try:
        for fmt in ("text", "sarif"):
            result = cli("validate", root, "--format", fmt)
            no_crash(result)
            assert result.exit_code == 1 and "nested deeper than" in result.stdout
        result = cli("test", root)
        no_crash(result)
        assert "nested deeper than" in result.stdout
    finally:
        _deep_folders(folder, 1500, remove=True)  # shutil.rmtree would recurse 1500 deep


def _deep_folders(folder: Path, depth: int, remove: bool = False) -> None:
    """Folders d/d/d/... `depth` deep, made (or removed) relative to an open folder: the full path would pass the
    system's limit."""
    fds = [os.open(folder, os.O_RDONLY)]
    try:
        for _ in range(depth):
            if not remove:
                os.mkdir("d", dir_fd=fds[-1])
            fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        while remove and len(fds) > 1:
            os.close(fds.pop())
            os.rmdir("d", dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)


# ----------------------------------------------------------------------------- 4. scenario files


def _scenario(tmp_path: Path, text: str, pack: str = "earth") -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(f"pack: {pack}\nscenarios:\n" + text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("body", "says"), [
    ('  - name: a\n    do: "gain 1 soil"\n    expect: {players: [{zones: {tableau: {"x,y": oak}}}]}\n',
     "board position 'x,y' should look like"),
    ('  - name: a\n    do: "gain 1 soil"\n    expect: {players: [{zones: {tableau: {"1:20": oak}}}]}\n',
     "board position '1:20' should look like"),
    ('  - name: a\n    do: "gain 1 soil"\n    expect: {players: [{zones: {tableau: {"1,2,3": oak}}}]}\n',
     "should look like"),
    ('  - name: a\n    do: "gain 1 soil"\n    score: true\n    params: {fauna-ladder: 5}\n',
     "rule parameter 'fauna-ladder' is a list of whole numbers"),
    ('  - name: a\n    do: "gain 1 soil"\n    state: {players: [{counters: {soil: 99999999999999999999999}}]}\n',
     "a counter stays within"),
])
def test_scenario_values_of_the_wrong_form_fail_the_scenario(tmp_path, body, says):
    result = cli("test", _scenario(tmp_path, body))
    no_crash(result)
    assert result.exit_code == 1 and says in result.stdout, result.stdout


def test_a_scenario_naming_a_pack_of_300_characters(tmp_path):
    path = _scenario(tmp_path, '  - {name: a, do: "draw 1"}\n', pack="x" * 300)
    result = cli("test", path)
    no_crash(result)
    assert result.exit_code == 1
    assert f"{path.name}:1:7: error[E024]" in result.stdout or "s.yaml:1:7: error[E024]" in result.stdout


def test_a_scenario_value_of_100000_characters(tmp_path):
    result = cli("test", _scenario(tmp_path, f'  - {{name: a, do: "draw 1", cites: "{"x" * 100_000}"}}\n'))
    no_crash(result)


# ----------------------------------------------------------------------------- 5. numbers the pack declares


def test_players_max_below_min_is_refused_by_validate(tmp_path):
    folder = pack_with(tmp_path, replace={"rules.yaml": ("players: {min: 2, max: 4}", "players: {min: 2, max: -1}")})
    res = compile_pack(folder)
    (d,) = res.diagnostics.errors
    assert d.code == "E013" and (d.span.line, d.span.col) == (1, 24) and "below min" in d.message


@pytest.mark.parametrize("field", ['id: "hostile\\n"', 'version: "0.1.0\\n"', 'version: "١.٢.٣"'])
def test_ids_and_versions_with_a_trailing_newline_or_other_digits(tmp_path, field):
    key = field.split(":")[0]
    old = {"id": "id: hostile", "version": "version: 0.1.0"}[key]
    folder = pack_with(tmp_path)
    (folder / "pack.yaml").write_text((folder / "pack.yaml").read_text().replace(old, field), encoding="utf-8")
    assert any(d.code == "E013" for d in compile_pack(folder).diagnostics.errors)


# ----------------------------------------------------------------------------- 6. saves and replay logs


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("save")
    result = CliRunner().invoke(main, ["simulate", "living-forest", "-n", "1", "-p", "2", "--seed", "3", "-a",
                                       "greedy,random", "--save-at", "20", str(folder / "g.json")])
    assert result.exit_code == 0, result.output
    return (folder / "g.json").read_text(encoding="utf-8")


@pytest.mark.parametrize(("edit", "says"), [
    (('"max_options": 12', '"max_options": -1'), "max_options -1; it must be 1 to"),
    (('"max_options": 12', '"max_options": 0'), "max_options 0; it must be 1 to"),
    (('"max_decisions": 50000', '"max_decisions": 1000000000000'), "it must be 1 to 1,000,000"),
    (('"pack": "living-forest"', '"pack": "/tmp"'), "a save names its pack by id, never by path"),
    (('"seed": 3', '"seed": ' + "9" * 5000), "not a cardsmith save"),
])
def test_a_tampered_save_is_refused_with_its_line(tmp_path, saved_game, edit, says):
    assert edit[0] in saved_game
    path = tmp_path / "t.json"
    path.write_text(saved_game.replace(*edit), encoding="utf-8")
    result = cli("resume", path)
    no_crash(result)
    assert result.exit_code == 1 and says in result.stderr, result.stderr


def test_a_save_naming_a_pack_that_is_not_built_in_needs_pack(tmp_path, saved_game):
    folder = pack_with(tmp_path, name="elsewhere")
    (tmp_path / "t.json").write_text(saved_game.replace('"pack": "living-forest"', '"pack": "elsewhere"'),
                                     encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)  # the folder 'elsewhere' is right here: still not used without --pack
    try:
        result = cli("resume", "t.json")
    finally:
        os.chdir(cwd)
    no_crash(result)
    assert result.exit_code == 1 and "not a built-in pack; give its folder with --pack" in result.stderr
    assert folder.is_dir()


@pytest.mark.parametrize("where", ["header", "event"])
def test_a_replay_log_nested_100000_deep(tmp_path, where):
    deep = "[" * 100_000 + "]" * 100_000
    header = {"cardsmith-log": 1, "pack": "living-forest", "version": "0.1.0", "players": 2, "seed": 1,
              "params": {}, "agents": ["random", "random"]}
    text = (deep if where == "header" else json.dumps(header)) + "\n" + deep + "\n"
    (tmp_path / "log.jsonl").write_text(text, encoding="utf-8")
    result = cli("replay", tmp_path / "log.jsonl")
    no_crash(result)
    assert result.exit_code == 1 and f":{1 if where == 'header' else 2}: " in result.stderr
    assert "nested too deeply" in result.stderr


def test_a_replay_log_naming_a_folder_as_its_pack(tmp_path):
    folder = pack_with(tmp_path)
    header = {"cardsmith-log": 1, "pack": str(folder), "version": "0.1.0", "players": 2, "seed": 1, "params": {}}
    (tmp_path / "log.jsonl").write_text(json.dumps(header) + "\n", encoding="utf-8")
    result = cli("replay", tmp_path / "log.jsonl")
    no_crash(result)
    assert result.exit_code == 1 and "give its folder with --pack" in result.stderr


# ----------------------------------------------------------------------------- 7. outputs that cannot be written


@pytest.mark.parametrize("args", [
    ["compile", "living-forest", "-o", "{missing}/x.json"],
    ["reference", "living-forest", "-o", "{missing}/x.html"],
    ["sheets", "living-forest", "-o", "{missing}/x.html"],
    ["simulate", "living-forest", "-n", "1", "--save-at", "3", "{missing}/x.json"],
])
def test_an_output_into_a_missing_folder_is_a_usage_error(tmp_path, args):
    result = cli(*[a.format(missing=tmp_path / "nope") for a in args])
    no_crash(result)
    assert (result.exit_code == 2 and "cannot write" in result.stderr) or "cannot save" in result.stderr


def test_resume_log_into_a_missing_folder(tmp_path, saved_game):
    (tmp_path / "g.json").write_text(saved_game, encoding="utf-8")
    result = cli("resume", tmp_path / "g.json", "--log", tmp_path / "nope" / "log.jsonl")
    no_crash(result)
    assert result.exit_code == 2 and "there is no folder" in result.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_compile_to_a_full_disk(tmp_path):
    result = cli("compile", "living-forest", "-o", "/dev/full")
    no_crash(result)
    assert result.exit_code == 2 and "no space left on device" in result.stderr


# ----------------------------------------------------------------------------- 8. names for new packs and cards


@pytest.mark.parametrize("name", ["my-game\n", "my\ngame", "my-game\n\n"])
def test_new_pack_with_a_newline_in_its_name_is_refused(tmp_path, name):
    result = cli("new", "pack", name, "--dir", tmp_path)
    no_crash(result)
    assert result.exit_code == 2 and "bad pack id" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_new_card_with_a_terminal_escape_in_its_name_is_refused(tmp_path):
    folder = pack_with(tmp_path)
    result = cli("new", "card", folder, "--name", "Oak\x1b]0;pwned\x07")
    no_crash(result)
    assert result.exit_code == 2 and "control characters" in result.stderr


# ----------------------------------------------------------------------------- reading only regular files


def test_read_input_refuses_special_files_links_and_oversize(tmp_path):
    f = tmp_path / "f.yaml"
    f.write_bytes(b"x" * 100)
    assert read_input(f, 100) == b"x" * 100
    with pytest.raises(InputError, match="the limit is 99"):
        read_input(f, 99)
    os.symlink(f, tmp_path / "link.yaml")
    with pytest.raises(InputError, match="symbolic link"):
        read_input(tmp_path / "link.yaml", 1000)
    assert read_input(tmp_path / "link.yaml", 1000, follow=True) == b"x" * 100
    with pytest.raises(InputError, match="a folder"):
        read_input(tmp_path, 1000)
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.yaml")  # would block forever if it were opened to read
        with pytest.raises(InputError, match="a pipe"):
            read_input(tmp_path / "pipe.yaml", 1000, follow=True)
    if Path("/dev/zero").exists():
        with pytest.raises(InputError, match="a device"):
            read_input("/dev/zero", 1000, follow=True)


@pytest.mark.parametrize("kind", ["fifo", "device-link", "outside-link"])
def test_test_never_reads_a_special_file_or_a_link_in_scenarios(tmp_path, kind):
    folder = pack_with(tmp_path, {"scenarios/ok.yaml": "pack: ..\nscenarios:\n  - {name: a, do: \"draw 1\"}\n"})
    target = folder / "scenarios" / "bad.yaml"
    if kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(target)
    elif kind == "device-link":
        os.symlink("/dev/zero", target)
    else:
        (tmp_path / "secret.yaml").write_text("pack: ..\nscenarios: [{name: leaked, do: \"draw 1\"}]\n")
        os.symlink(tmp_path / "secret.yaml", target)
    result = cli("test", folder, "-v")
    no_crash(result)
    assert result.exit_code == 1 and "bad.yaml:1:1: error[E006]" in result.stdout, result.stdout
    assert "PASSED" in result.stdout and "leaked" not in result.stdout


def test_simulate_on_a_pack_with_a_fifo_does_not_hang(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    folder = pack_with(tmp_path)
    os.mkfifo(folder / "pipe.yaml")
    result = cli("simulate", folder, "-n", "1")  # the compile cache reads the pack's files first
    no_crash(result)
    assert result.exit_code == 1 and "pipe.yaml:1:1: error[E006]" in result.stdout


def test_simulate_on_a_pack_yaml_nested_a_million_deep_does_not_crash(tmp_path):
    """The compile cache read pack.yaml with libyaml's recursive composer, which crashed the interpreter."""
    folder = pack_with(tmp_path, {})
    with open(folder / "pack.yaml", "a", encoding="utf-8") as fh:
        fh.write("x: " + "[" * 1_000_000 + "]" * 1_000_000 + "\n")
    run = run_cardsmith(["simulate", str(folder), "-n", "1"], tmp_path, CARDSMITH_CACHE=str(tmp_path / "cache"))
    assert run.returncode == 1 and b"E005" in run.stdout, run.stderr


@pytest.mark.parametrize("kind", ["symlink", "device"])
def test_save_at_never_replaces_a_link_or_a_device(tmp_path, kind):
    target = tmp_path / "game.json"
    if kind == "symlink":
        (tmp_path / "precious").write_text("keep me")
        os.symlink(tmp_path / "precious", target)
    else:
        if not Path("/dev/null").exists():
            pytest.skip("no /dev/null")
        os.symlink("/dev/null", tmp_path / "null-link")
        target = tmp_path / "null-link"
    result = cli("simulate", "living-forest", "-n", "1", "--save-at", "5", target)
    no_crash(result)
    assert result.exit_code == 2 and "a save replaces only a regular file" in result.stderr
    assert target.is_symlink()
    if kind == "symlink":
        assert (tmp_path / "precious").read_text() == "keep me"


# ----------------------------------------------------------------------------- diagnostics with a location


@pytest.mark.parametrize("arg", ["no-such-pack", "{tmp}/empty"])
def test_validate_of_no_pack_is_located(tmp_path, arg):
    (tmp_path / "empty").mkdir()
    result = cli("validate", arg.format(tmp=tmp_path), "--format", "json")
    assert result.exit_code == 1
    (d,) = json.loads(result.stdout)
    assert d["code"] == "E024" and d["line"] >= 1 and d["col"] >= 1


def test_a_fifo_in_a_pack_is_located(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    folder = pack_with(tmp_path)
    os.mkfifo(folder / "pipe.yaml")
    (d,) = compile_pack(folder).diagnostics.errors
    assert d.code == "E006" and (d.span.line, d.span.col) == (1, 1)
    items = [d]
    render_text(items), render_json(items), render_github(items), render_sarif(items, tmp_path, "0")


def test_diagnostics_render_in_every_format_whatever_the_name(tmp_path):
    name = os.fsdecode(b"\xff\x1b[2J.yaml")
    diags = Diagnostics()
    diags.error("E001", "message with \x1b]0;title\x07 in it", Span(name, 1, 1))
    for text in (render_text(diags.items), render_json(diags.items), render_github(diags.items),
                 render_sarif(diags.items, tmp_path, "0")):
        text.encode("utf-8")  # no lone surrogate left
        assert "\x1b" not in text


# ----------------------------------------------------------------------------- 5. runaway numbers and searches


def _vm(tmp_path: Path, do: str, **scenario):
    from helpers import run_scenario

    return run_scenario(tmp_path, {"do": do, "players": 1, **scenario})


@pytest.mark.parametrize("do", [
    "gain 10 gold, repeat 60 times: set gold to gold * gold",            # squares: 10^(2^60) digits
    "gain 1 gold, repeat while 1 > 0: set gold to gold + gold",          # doubles, forever
    "gain 2 gold, repeat 100 times: gain gold * gold gold",              # a gain of itself squared
    "gain 3 gold, repeat 100 times: let n = gold * gold, set gold to n",  # through a local name
])
def test_numbers_stop_at_the_bound_with_a_runtime_error(tmp_path, do):
    out = _vm(tmp_path, do, score=True)
    assert not out.passed and "R001" in out.problems[0] and "grew past" in out.problems[0], out.problems


def test_numbers_up_to_the_bound_are_kept(tmp_path):
    out = _vm(tmp_path, "gain 999999999999999 gold, set wood to gold * 1000",
              expect={"players": [{"counters": {"gold": 10**15 - 1, "wood": 10**18 - 1000}}]})
    assert out.passed, out.problems


@pytest.mark.parametrize("do", ["choose X from 0 to 999999999999999, gain X gold",
                                "gain 999999999999999 wood, gain up to wood gold"])
def test_a_decision_over_a_huge_range_is_refused_before_it_is_built(tmp_path, do):
    out = _vm(tmp_path, do)
    assert not out.passed and "would offer more than 10,000 numbers" in " ".join(out.problems), out.problems


def test_choose_x_up_to_the_bound_is_offered(tmp_path):
    out = _vm(tmp_path, "choose X from 0 to 9999, gain X gold", decisions=[9999],
              expect={"players": [{"counters": {"gold": 9999}}]})
    assert out.passed, out.problems


def _grid(w: int, h: int) -> dict[int, list[int]]:
    return {r * w + c: [r2 * w + c2 for r2, c2 in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                        if 0 <= r2 < h and 0 <= c2 < w] for r in range(h) for c in range(w)}


def _brute_longest(start: int, cells: set[int], nbs) -> int:
    best = 0

    def walk(path: list[int], seen: set[int]) -> None:
        nonlocal best
        if start in seen:
            best = max(best, len(path))
        for n in nbs[path[-1]]:
            if n in cells and n not in seen:
                seen.add(n)
                path.append(n)
                walk(path, seen)
                path.pop()
                seen.discard(n)

    for s in cells:
        walk([s], {s})
    return best


def test_path_search_agrees_with_brute_force_on_small_boards():
    import random

    from cardsmith.runtime.vm.ops_queries import longest_path

    rng = random.Random(20)
    for _ in range(150):
        w, h = rng.choice([(3, 3), (4, 3), (4, 4)])
        nbs = _grid(w, h)
        cells = {c for c in nbs if rng.random() < 0.7} or {0}
        start = rng.choice(sorted(cells))
        assert longest_path(start, cells, nbs, 10**7) == _brute_longest(start, cells, nbs), (w, h, cells, start)


def test_path_over_full_boards_and_a_64_by_64_snake_is_bounded_work():
    from cardsmith.runtime.vm.ops_queries import SearchTooLong, longest_path

    for w, h in ((4, 4), (5, 5), (8, 8)):  # every card on the path, found without trying every walk
        nbs = _grid(w, h)
        assert longest_path((h // 2) * w + w // 2, set(nbs), nbs, 100_000) == w * h
    nbs = _grid(64, 64)
    snake = {r * 64 + c for r in range(0, 64, 2) for c in range(64)}
    snake |= {(r + 1) * 64 + (63 if (r // 2) % 2 == 0 else 0) for r in range(0, 63, 2)}
    middle = sorted(snake)[len(snake) // 2]
    assert longest_path(middle, snake, nbs, 100_000) == len(snake)  # was a RecursionError
    with pytest.raises(SearchTooLong):  # and a budget too small for the answer says so
        longest_path(middle, snake, nbs, 1_000)


def test_macros_that_double_the_program_22_times_stop_at_the_size_limit(tmp_path):
    import tracemalloc

    from cardsmith.compiler.expand import MAX_EXPANDED_SIZE

    macros = '  "m0 go": "draw 1"\n' + "".join(f'  "m{i} go": "m{i - 1} go, m{i - 1} go"\n' for i in range(1, 23))
    folder = pack_with(tmp_path, replace={"rules.yaml": ("macros:\n", "macros:\n" + macros)})
    rules = folder / "rules.yaml"
    rules.write_text(rules.read_text().replace('game: "nothing"', 'game: "m22 go"'), encoding="utf-8")
    assert rules.stat().st_size < 1_500
    tracemalloc.start()
    try:
        res = compile_pack(folder)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    too_large = [d for d in res.diagnostics.errors if d.code == "E106" and f"{MAX_EXPANDED_SIZE:,} parts" in d.message]
    assert too_large and too_large[0].span.file.endswith("rules.yaml")
    assert peak < 64 * 1024 * 1024, f"peak memory {peak / 1e6:.0f} MB"  # 4 million statements would take GBs


# ----------------------------------------------------------------------------- terminal escapes in card names


def _escaping_pack(tmp_path: Path) -> Path:
    return pack_with(tmp_path, replace={"cards.yaml": ("    name: Oak", '    name: "Oak\\e]0;pwned\\a\\e[2J"')})


def test_describe_shows_an_escape_sequence_in_a_card_name_escaped(tmp_path):
    result = cli("describe", _escaping_pack(tmp_path), "oak")
    assert result.exit_code == 0 and "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "Oak\\x1b]0;pwned\\x07\\x1b[2J (oak)" in result.stdout


def test_play_never_writes_a_card_name_s_escape_sequence(tmp_path):
    folder = tmp_path / "living-forest"
    shutil.copytree(ROOT / "cards" / "living-forest", folder)
    trees = folder / "trees.yaml"
    text = trees.read_text(encoding="utf-8")
    trees.write_text(text.replace("name: Protective Tree 3A", 'name: "Tree\\e]0;pwned\\a\\e[2J"'), encoding="utf-8")
    result = CliRunner().invoke(main, ["play", str(folder), "--seed", "1"], input="card tree-3a\nquit!\n")
    assert "\x1b]" not in result.stdout and "\x07" not in result.stdout and "\x1b[2J" not in result.stdout
    assert "Tree\\x1b]0;pwned" in result.stdout, result.stdout[-2000:]


def test_for_terminal_keeps_only_cardsmith_s_own_colours():
    from cardsmith.bytecode.inputs import for_terminal

    coloured = "\x1b[1m\x1b[32mplayer 1\x1b[0m: Oak\x1b]0;t\x07\x1b[2J\nnext\tline"
    assert for_terminal(coloured) == "\x1b[1m\x1b[32mplayer 1\x1b[0m: Oak\\x1b]0;t\\x07\\x1b[2J\nnext\tline"


@pytest.mark.parametrize("name", ["[]", "{}", "null", "7", json.dumps("x" * 100_000)])
def test_a_save_whose_agent_name_is_not_a_name(tmp_path, saved_game, name):
    """Found by the campaign: "name": [] was an unhashable-type crash."""
    path = tmp_path / "t.json"
    path.write_text(saved_game.replace('{"name": "random"', '{"name": ' + name, 1), encoding="utf-8")
    result = cli("resume", path)
    no_crash(result)
    assert result.exit_code == 1 and "is not one of the agents" in result.stderr and len(result.stderr) < 500


def test_save_at_0_of_a_game_that_faults_before_its_first_decision(tmp_path):
    """Found by the campaign: the save plays on to the first decision, where the game's fault was uncaught."""
    folder = pack_with(tmp_path, replace={"rules.yaml": ('game: "nothing"',
                                                         'game: "gain 999999999999999 soil, gain up to soil soil"')})
    result = cli("simulate", folder, "-n", "1", "--no-cache", "--save-at", "0", tmp_path / "g.json")
    no_crash(result)
    assert result.exit_code == 1 and "R001" in result.stderr and "would offer more than" in result.stderr
