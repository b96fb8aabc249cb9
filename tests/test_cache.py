"""The compile cache (compiler/cache.py): hits, misses on any change, safety."""

from __future__ import annotations

import json
import multiprocessing
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import cache as disk
from cardsmith.compiler import compile_pack, pipeline
from cardsmith.compiler.diagnostics import Diagnostic, Diagnostics, Severity, Span

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = ROOT / "tests" / "fixtures" / "valid" / "minimal"


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CARDSMITH_CACHE", str(folder))
    return folder


@pytest.fixture
def pack(tmp_path):
    dst = tmp_path / "packs" / "minimal"
    shutil.copytree(MINIMAL, dst)
    return dst


@pytest.fixture
def compiles(monkeypatch):
    """Counts the real compiles (cache misses)."""
    calls = []
    real = pipeline._Compiler.run

    def run(self):
        calls.append(self.chain[-1].id)
        return real(self)

    monkeypatch.setattr(pipeline._Compiler, "run", run)
    return calls


def entries(cache_home: Path) -> list[Path]:
    folder = cache_home / "packs"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_hit_gives_the_same_pack(pack, compiles, cache_home):
    first = compile_pack(pack, cache=True)
    second = compile_pack(pack, cache=True)
    assert first.ok and second.ok
    assert compiles == ["minimal"]
    assert second.compiler is None and first.compiler is not None
    assert second.cards_compiled == first.cards_compiled
    assert json.dumps(second.pack.to_json(), sort_keys=True) == json.dumps(first.pack.to_json(), sort_keys=True)
    assert len(entries(cache_home)) == 1


def test_default_is_no_cache(pack, compiles, cache_home):
    compile_pack(pack)
    compile_pack(pack)
    assert compiles == ["minimal", "minimal"]
    assert entries(cache_home) == []


def test_location_is_documented_default(monkeypatch, tmp_path):
    monkeypatch.delenv("CARDSMITH_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert disk.cache_dir() == tmp_path / "xdg" / "cardsmith"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert disk.cache_dir() == tmp_path / "home" / ".cache" / "cardsmith"


@pytest.mark.parametrize("change", ["card", "rules", "pack", "new-file", "removed-file"])
def test_any_source_change_recompiles(pack, compiles, change):
    compile_pack(pack, cache=True)
    if change == "card":
        f = pack / "cards.yaml"
        f.write_text(f.read_text().replace('"draw 1"', '"draw 2"'))
    elif change == "rules":
        f = pack / "rules.yaml"
        f.write_text(f.read_text().replace("start: 2", "start: 3"))
    elif change == "pack":
        f = pack / "pack.yaml"
        f.write_text(f.read_text().replace("0.1.0", "0.1.1"))
    elif change == "new-file":
        (pack / "more.yaml").write_text("cards:\n  - {id: fern, name: Fern, type: plant}\n")
    else:
        (pack / "more.yaml").write_text("cards:\n  - {id: fern, name: Fern, type: plant}\n")
        assert compile_pack(pack, cache=True).pack.card("fern") is not None
        (pack / "more.yaml").unlink()
        # back to the first sources: their entry is still right, and nothing of more.yaml is used
        assert compile_pack(pack, cache=True).pack.card("fern") is None
        (pack / "cards.yaml").write_text((pack / "cards.yaml").read_text() + "\n")
    res = compile_pack(pack, cache=True)
    assert res.ok and res.compiler is not None, "a changed pack must be compiled again"
    again = compile_pack(pack, cache=True)
    assert again.compiler is None, "and the new compile is cached"
    if change == "card":
        assert again.pack.card("oak").abilities["green"].ops == res.pack.card("oak").abilities["green"].ops


def test_change_in_an_extended_pack_recompiles(tmp_path, compiles):
    base = tmp_path / "packs" / "minimal"
    shutil.copytree(MINIMAL, base)
    child = tmp_path / "packs" / "child"
    child.mkdir()
    (child / "pack.yaml").write_text("id: child\nname: Child\nversion: 0.1.0\nextends: [minimal]\n")
    (child / "cards.yaml").write_text("cards:\n  - {id: fern, name: Fern, type: plant, abilities: {green: "
                                      "\"gain 1 soil\"}}\n")
    assert compile_pack(child, cache=True).ok
    assert compile_pack(child, cache=True).compiler is None
    f = base / "cards.yaml"
    f.write_text(f.read_text().replace('"draw 1"', '"draw 2"'))
    res = compile_pack(child, cache=True)
    assert res.compiler is not None
    assert res.pack.card("oak").abilities["green"].ops[0] == ["PUSH", 2]


def test_compiler_change_recompiles(pack, compiles, monkeypatch):
    compile_pack(pack, cache=True)
    monkeypatch.setattr(disk, "_fingerprint", "another compiler")
    assert compile_pack(pack, cache=True).compiler is not None
    assert len(compiles) == 2


def test_fingerprint_covers_compiler_and_grammar():
    disk._fingerprint = None
    fp = disk.compiler_fingerprint()
    assert fp == disk.compiler_fingerprint() and len(fp) == 64
    assert (ROOT / "grammar" / "effect.lark").is_file()


def test_errors_are_not_cached_and_reported_each_time(pack, compiles, cache_home):
    f = pack / "cards.yaml"
    f.write_text(f.read_text().replace('"draw 1"', '"drawz 1"'))
    for _ in range(2):
        res = compile_pack(pack, Diagnostics(), cache=True)
        assert not res.ok and res.diagnostics.errors
    assert len(compiles) == 2
    assert entries(cache_home) == []


def test_warnings_are_reported_on_a_hit(pack, compiles):
    compile_pack(pack, cache=True)
    key = disk.cache_key(pack)
    cached, _, n = disk.load(key)
    warning = Diagnostic("W001", "a warning kept with the entry", Span("cards.yaml", 1, 1), Severity.WARNING)
    assert disk.store(key, cached, [warning], n)
    diags = Diagnostics()
    res = compile_pack(pack, diags, cache=True)
    assert res.ok and res.compiler is None
    assert [d.code for d in diags.items] == ["W001"]


def test_corrupt_entry_is_a_miss(pack, compiles, cache_home):
    compile_pack(pack, cache=True)
    (entry,) = entries(cache_home)
    entry.write_bytes(b"not a pickle")
    res = compile_pack(pack, cache=True)
    assert res.ok and res.compiler is not None
    assert compile_pack(pack, cache=True).compiler is None


def test_safe_to_delete(pack, compiles, cache_home):
    compile_pack(pack, cache=True)
    shutil.rmtree(cache_home)
    assert compile_pack(pack, cache=True).ok
    assert disk.clear() == 1
    assert compile_pack(pack, cache=True).compiler is not None


def test_unwritable_cache_still_compiles(pack, monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("CARDSMITH_CACHE", str(blocker / "sub"))
    assert compile_pack(pack, cache=True).ok
    assert compile_pack(pack, cache=True).ok


def _compile_in_child(args):
    folder, cache = args
    import os

    os.environ["CARDSMITH_CACHE"] = cache
    from cardsmith.compiler import compile_pack

    res = compile_pack(folder, cache=True)
    return res.ok, json.dumps(res.pack.to_json(), sort_keys=True)


def test_two_processes_compiling_at_once(pack, cache_home):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        out = pool.map(_compile_in_child, [(str(pack), str(cache_home))] * 4)
    assert all(ok for ok, _ in out)
    assert len({text for _, text in out}) == 1
    files = entries(cache_home)
    assert len(files) == 1 and files[0].suffix == ".pickle", "no temporary file is left behind"
    assert compile_pack(pack, cache=True).compiler is None


def test_simulate_uses_the_cache_and_no_cache_skips_it(pack, cache_home):
    runner = CliRunner()
    args = ["simulate", str(pack), "-n", "2", "--json"]
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    assert len(entries(cache_home)) == 1
    shutil.rmtree(cache_home)
    second = runner.invoke(main, [*args, "--no-cache"])
    assert second.exit_code == 0, second.output
    assert entries(cache_home) == []
    assert json.loads(second.stdout) == json.loads(first.stdout)


class _Planted:
    """What an attacker with write access to the cache folder would plant: a pickle that runs code when read."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path(self.marker).write_text, ("ran",))


@pytest.mark.parametrize("how", ["unsigned", "signed-for-another-key", "another-entry's-signature"])
def test_a_planted_entry_is_never_unpickled(pack, compiles, cache_home, tmp_path, how):
    import pickle

    compile_pack(pack, cache=True)
    (entry,) = entries(cache_home)
    key = disk.cache_key(pack)
    marker = tmp_path / "marker"
    payload = pickle.dumps({"entry": disk.ENTRY_VERSION, "key": key, "pack": _Planted(str(marker)),
                            "diagnostics": [], "cards_compiled": 1})
    if how == "unsigned":
        entry.write_bytes(payload)
    elif how == "signed-for-another-key":
        entry.write_bytes(disk.MAGIC + disk._sign(b"k" * 32, key, payload) + payload)
    else:  # a signature made for other bytes, by the right key
        good = entry.read_bytes()
        entry.write_bytes(good[: len(disk.MAGIC) + 32] + payload)
    res = compile_pack(pack, cache=True)
    assert not marker.exists(), "the planted pickle ran"
    assert res.ok and res.compiler is not None  # a miss: compiled again, and a good entry written back
    assert compile_pack(pack, cache=True).compiler is None


def test_the_key_lives_outside_the_cache_and_is_the_user_s_alone(pack, cache_home, tmp_path, monkeypatch):
    import stat as st

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    compile_pack(pack, cache=True)
    key = disk.key_path()
    assert key == tmp_path / "config" / "cardsmith" / "cache-key" and key.is_file()
    assert not key.resolve().is_relative_to(cache_home.resolve())
    assert st.S_IMODE(key.stat().st_mode) & 0o077 == 0
    key.chmod(0o644)  # readable by others: not trusted, so the cache is not used
    monkeypatch.setattr(disk, "_key", None)
    assert disk.signing_key() is None
    assert compile_pack(pack, cache=True).ok
