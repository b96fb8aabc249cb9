"""Hostile pack files: each is rejected with bounded memory (tracemalloc peak) and bounded work (what is read
and built is counted, never timed: the CPU time of each is a benchmark, benchmarks/hostile.py), and with a
diagnostic naming the file, line and column; none crashes or hangs the compiler.

Alias bombs, nesting a hundred thousand levels deep (libyaml's composer recurses in C: the loader
stops at MAX_DEPTH while reading events), a 10 MB card file, numbers of a million digits, 1e400,
text that is not UTF-8, effect texts that are huge or deeply nested, files and `extends` that lead
out of the pack or through a symbolic link, a FIFO, and packs that extend each other in a cycle.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

import cardsmith.compiler.yamlsrc as ys
from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import render_github, render_json, render_text

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = ROOT / "tests" / "fixtures" / "valid" / "minimal"
PEAK_BYTES = 64 * 1024 * 1024

CARD = "cards:\n  - {id: hostile-card, name: Hostile, type: plant, abilities: {green: \"%s\"}}\n"


def pack_with(tmp_path: Path, files: dict[str, str | bytes], name: str = "hostile") -> Path:
    """The minimal valid pack, plus (or with replaced) files."""
    folder = tmp_path / name
    shutil.copytree(MINIMAL, folder)
    text = (folder / "pack.yaml").read_text(encoding="utf-8")
    (folder / "pack.yaml").write_text(text.replace("id: minimal", f"id: {name}"), encoding="utf-8")
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return folder


def compile_bounded(folder: Path):
    """compile_pack twice: plainly, then under tracemalloc for the peak memory; both give the same diagnostics."""
    res = compile_pack(folder)
    tracemalloc.start()
    try:
        again = compile_pack(folder)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK_BYTES, f"peak memory {peak / 1e6:.0f} MB"
    assert [d.to_json() for d in again.diagnostics.items] == [d.to_json() for d in res.diagnostics.items]
    # every diagnostic renders in every format
    render_text(res.diagnostics.items), render_json(res.diagnostics.items), render_github(res.diagnostics.items)
    return res


def rejected(folder: Path, code: str, file: str, line: int | None = None, col: int | None = None,
             message: str = "") -> None:
    res = compile_bounded(folder)
    assert not res.ok
    found = [d for d in res.diagnostics.errors if d.code == code and d.span.file.endswith(file)]
    assert found, [f"{d.span} {d.code} {d.message}" for d in res.diagnostics.items]
    d = found[0]
    assert d.span.line >= 1 and d.span.col >= 1, d.span
    if line is not None:
        assert (d.span.line, d.span.col) == (line, col if col is not None else d.span.col), d
    assert message in d.message, d.message


# ----------------------------------------------------------------------------- YAML


def billion_laughs(levels: int) -> str:
    text = 'cards: []\nlol: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    prev = "a"
    for i in range(levels - 1):
        text += f"l{i}: &l{i} [" + ",".join([f"*{prev}"] * 9) + "]\n"
        prev = f"l{i}"
    return text


@pytest.mark.parametrize("levels", [9, 30])
def test_alias_bomb(tmp_path, levels):
    folder = pack_with(tmp_path, {"bomb.yaml": billion_laughs(levels)})
    rejected(folder, "E005", "bomb.yaml", message="alias")


def test_alias_of_its_own_collection(tmp_path):
    rejected(pack_with(tmp_path, {"loop.yaml": "cards: &c [*c]\n"}), "E005", "loop.yaml", 1, 12,
             "refers to a collection that contains it")


@pytest.mark.parametrize(("shape", "text"), [
    ("flow lists", "cards: " + "[" * 100_000 + "]" * 100_000 + "\n"),
    ("flow mappings", "cards: " + "{a: " * 100_000 + "1" + "}" * 100_000 + "\n"),
    ("block lists", "cards:\n" + "- " * 100_000 + "x\n"),
    ("indentation", "cards:\n" + "".join(" " * i + "- \n" for i in range(1, 1500))),
])
def test_very_deep_nesting(tmp_path, shape, text):
    folder = pack_with(tmp_path, {"deep.yaml": text})
    rejected(folder, "E005", "deep.yaml", message="nesting deeper than")


def test_very_deep_nesting_in_a_separate_interpreter(tmp_path):
    """The crash this guards against would take the test run with it: try it in a child process."""
    folder = pack_with(tmp_path, {"deep.yaml": "cards: " + "[" * 1_000_000 + "]" * 1_000_000 + "\n"})
    run = subprocess.run([sys.executable, "-m", "cardsmith", "validate", str(folder)], capture_output=True,
                         text=True)
    assert run.returncode == 1, run.stderr
    assert "deep.yaml:1:" in run.stdout and "E005" in run.stdout


def test_a_ten_megabyte_card_file(tmp_path):
    line = "  - {id: oak, name: Oak, type: plant, abilities: {green: \"draw 1\"}}\n"
    big = "cards:\n" + line * (10_000_000 // len(line) + 1)
    folder = pack_with(tmp_path, {"big.yaml": big})
    assert (folder / "big.yaml").stat().st_size > 10_000_000
    rejected(folder, "E005", "big.yaml", 1, 1, f"limit for a pack file is {ys.MAX_FILE_BYTES:,}")


def test_many_small_nodes_under_the_size_limit(tmp_path):
    # under 2 MB, over the node limit: stopped while reading, not after building everything
    folder = pack_with(tmp_path, {"wide.yaml": "cards: []\nx: [" + "1," * 900_000 + "1]\n"})
    rejected(folder, "E005", "wide.yaml", message="too large")


@pytest.mark.parametrize(("value", "code"), [
    ("9" * 1_000_000, "E001"),   # a million digits: Python will not even convert it
    ("9" * 4000, "E013"),        # converts, but is far out of range
    ("1.0e+400", "E012"),        # a float that overflows to infinity
    (".inf", "E012"),
    ("-.nan", "E012"),
    ("1e400", "E012"),           # YAML 1.1 reads this as a string
])
def test_huge_numbers_in_yaml(tmp_path, value, code):
    text = f"cards:\n  - id: oak\n    name: Oak\n    type: plant\n    copies: {value}\n"
    rejected(pack_with(tmp_path, {"num.yaml": text}), code, "num.yaml", 5, 13)


def test_huge_number_in_the_rules_is_harmless(tmp_path):
    rules = (MINIMAL / "rules.yaml").read_text(encoding="utf-8").replace("hand-size: 3", "hand-size: " + "9" * 4000)
    res = compile_bounded(pack_with(tmp_path, {"rules.yaml": rules}))
    assert res.ok


@pytest.mark.parametrize(("data", "line", "col"), [
    (b"cards:\n  - id: oak\n    name: O\xffk\n", 3, 12),
    ("cards:\n  - id: oak\n    name: ミント".encode() + b"\xfe\n", 3, 14),  # columns count characters
    (b"\xef\xbb\xbfcards: [\xc3\x28]\n", 1, 9),  # after a byte-order mark
    ("cards: []\n".encode("utf-16"), 1, 1),
])
def test_not_utf8(tmp_path, data, line, col):
    rejected(pack_with(tmp_path, {"enc.yaml": data}), "E002", "enc.yaml", line, col)


def test_control_characters(tmp_path):
    rejected(pack_with(tmp_path, {"ctl.yaml": "cards: []\nx: \"a\x00b\"\n"}), "E001", "ctl.yaml", 2, 6,
             "#x0000 is not allowed")


# ----------------------------------------------------------------------------- effect texts


@pytest.mark.parametrize(("text", "message"), [
    ("gain 1 soil, " * 80_000 + "gain 1 soil", "characters long"),
    ("(" * 5_000 + "draw 1" + ")" * 5_000, "nested too deeply"),
    ("if " + "not " * 2_000 + "1 > 0: draw 1", "nested too deeply"),
    ("gain " + "-" * 5_000 + "1 soil", "nested too deeply"),
    ("gain " + "1 + " * 3_000 + "1 soil", "nested too deeply"),
    ("if 1 > 0: " * 1_000 + "draw 1", "nested too deeply"),
    ("gain " + "9" * 5_000 + " soil", "number too large"),
    ("gain 9999999999999999 soil", "number too large"),
])
def test_hostile_effect_text(tmp_path, text, message):
    rejected(pack_with(tmp_path, {"fx.yaml": CARD % text}), "E100", "fx.yaml", 2, message=message)


def test_effect_text_at_the_limits_compiles(tmp_path):
    text = "(" * 20 + "draw 1" + ")" * 20 + ", gain 999999999999999 soil"
    res = compile_bounded(pack_with(tmp_path, {"fx.yaml": CARD % text}))
    assert res.ok, [d.message for d in res.diagnostics.items]


def test_deeply_nested_macro_chain(tmp_path):
    rules = (MINIMAL / "rules.yaml").read_text(encoding="utf-8")
    chain = "".join(f'  "chain{i} go": "{"(" * 30}{f"chain{i + 1} go" if i < 30 else "draw 1"}{")" * 30}"\n'
                    for i in range(31))
    rules = rules.replace("macros:\n", "macros:\n" + chain).replace('game: "nothing"', 'game: "chain0 go"')
    res = compile_bounded(pack_with(tmp_path, {"rules.yaml": rules}))
    assert not res.ok
    deep = [d for d in res.diagnostics.errors if d.code == "E106" and "nested too deeply" in d.message]
    assert len(deep) == 1 and "chain0 go -> chain1 go" in deep[0].message
    # at the call in the rule text that started it
    assert deep[0].span.file.endswith("rules.yaml") and deep[0].span.line == rules.splitlines().index(
        next(line for line in rules.splitlines() if line.startswith("game:"))) + 1


# ----------------------------------------------------------------------------- files outside the pack


@pytest.fixture
def outside(tmp_path):
    secret = tmp_path / "elsewhere"
    secret.mkdir()
    (secret / "cards.yaml").write_text(CARD % "draw 1", encoding="utf-8")
    return secret


def test_card_file_symlinked_outside_the_pack(tmp_path, outside):
    folder = pack_with(tmp_path, {})
    (outside / "secret.yaml").write_text("password: hunter2\n", encoding="utf-8")
    os.symlink(outside / "secret.yaml", folder / "more.yaml")
    rejected(folder, "E006", "more.yaml", 1, 1, "is a symbolic link")
    # the diagnostic does not show what the link points to
    run = subprocess.run([sys.executable, "-m", "cardsmith", "validate", str(folder)], capture_output=True,
                         text=True)
    assert run.returncode == 1 and "more.yaml:1:1" in run.stdout and "hunter2" not in run.stdout + run.stderr


def test_card_file_symlinked_inside_the_pack(tmp_path):
    folder = pack_with(tmp_path, {})
    os.symlink(folder / "cards.yaml", folder / "again.yaml")  # even inside: never follow links
    rejected(folder, "E006", "again.yaml", 1, 1, "is a symbolic link")


def test_folder_symlinked_into_the_pack(tmp_path, outside):
    folder = pack_with(tmp_path, {})
    os.symlink(outside, folder / "extra")
    os.symlink(tmp_path, folder / "loop")  # a loop back up: never walked
    res = compile_bounded(folder)
    msgs = sorted(d.message for d in res.diagnostics.errors if d.code == "E006")
    assert len(msgs) == 2 and all("is a symbolic link" in m for m in msgs)


def test_symlink_to_a_device(tmp_path):
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    folder = pack_with(tmp_path, {})
    os.symlink("/dev/zero", folder / "zero.yaml")
    rejected(folder, "E006", "zero.yaml", 1, 1, "is a symbolic link")


def test_fifo_named_like_a_card_file(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    folder = pack_with(tmp_path, {})
    os.mkfifo(folder / "pipe.yaml")  # opening it to read would block forever
    res = compile_bounded(folder)
    assert any(d.code == "E006" and "not a regular file" in d.message for d in res.diagnostics.errors)


@pytest.mark.parametrize("name", ["pack.yaml", "rules.yaml"])
def test_pack_or_rules_file_is_a_symlink(tmp_path, outside, name):
    folder = pack_with(tmp_path, {})
    real = tmp_path / f"real-{name}"
    shutil.move(folder / name, real)
    os.symlink(real, folder / name)
    rejected(folder, "E006", name, 1, 1, "is a symbolic link")


def test_extends_through_a_symlink(tmp_path):
    base = pack_with(tmp_path / "store", {}, name="base")
    child = pack_with(tmp_path, {"pack.yaml": "id: child\nname: Child\nversion: 0.1.0\nextends: [base]\n",
                                 "rules.yaml": "players: {min: 2, max: 4}\n", "cards.yaml": "cards: []\n"},
                      name="child")
    os.symlink(base, tmp_path / "base")
    rejected(child, "E020", "pack.yaml", 4, 11, "through a symbolic link")


@pytest.mark.parametrize("ref", ["../base", "/etc", "base/../../x", "..", "Base"])
def test_extends_that_is_a_path(tmp_path, ref):
    child = pack_with(tmp_path, {"pack.yaml": f"id: child\nname: Child\nversion: 0.1.0\nextends: [\"{ref}\"]\n"},
                      name="child")
    rejected(child, "E013", "pack.yaml", 4)


# ----------------------------------------------------------------------------- extends cycles


def _extending(tmp_path: Path, name: str, parents: list[str]) -> Path:
    return pack_with(tmp_path, {"pack.yaml": f"id: {name}\nname: {name}\nversion: 0.1.0\nextends: {parents}\n",
                                "rules.yaml": "players: {min: 2, max: 4}\n", "cards.yaml": "cards: []\n"}, name=name)


def test_pack_extends_itself(tmp_path):
    rejected(_extending(tmp_path, "selfish", ["selfish"]), "E021", "pack.yaml", 4, 11, "extends itself")


def test_packs_extend_each_other_in_a_cycle(tmp_path):
    a = _extending(tmp_path, "alpha", ["beta"])
    _extending(tmp_path, "beta", ["gamma"])
    _extending(tmp_path, "gamma", ["alpha"])
    rejected(a, "E021", "pack.yaml", 4, 11, "alpha -> beta -> gamma -> alpha")


def test_a_long_chain_of_extends(tmp_path):
    names = [f"p{i}" for i in range(40)]
    for i, name in enumerate(names):
        _extending(tmp_path, name, [names[i + 1]] if i + 1 < len(names) else [])
    rejected(tmp_path / "p0", "E021", "pack.yaml", 4, 11, "deeper than")


def test_the_limits_on_the_reliability_page_are_the_code_s():
    from cardsmith.compiler import parse

    page = (ROOT / "docs" / "reliability.rst").read_text(encoding="utf-8")
    assert f"at most {parse.MAX_TEXT:,} characters" in page
    assert f"at most {parse.MAX_NESTING}\n  levels deep" in page or f"at most {parse.MAX_NESTING} levels" in page
    assert f"at most {parse.MAX_DIGITS} digits" in page


def test_card_files_listed_outside_the_pack_are_never_read(tmp_path, outside):
    """pack.yaml's `cards:` list (accepted, not read yet) must never pull in files from elsewhere."""
    (outside / "cards.yaml").write_text("cards:\n  - {id: smuggled, name: Smuggled, type: plant}\n", encoding="utf-8")
    pack = (MINIMAL / "pack.yaml").read_text(encoding="utf-8").replace("id: minimal", "id: hostile")
    pack += f'cards: ["../elsewhere/*.yaml", "{outside}/cards.yaml", "/etc/passwd", "../../**/*.yaml"]\n'
    folder = pack_with(tmp_path, {"pack.yaml": pack})
    res = compile_bounded(folder)
    if res.ok:
        assert "smuggled" not in {c.id for c in res.pack.cards}
    else:
        assert all(d.span.file.endswith("pack.yaml") for d in res.diagnostics.errors)
