"""Broken packs under tests/fixtures/invalid/: each reports the diagnostics its expect.yaml lists.

A case is a folder `E0xx_what/` (or `multi_...`) holding one or more pack folders and an
`expect.yaml`: a list of `{code, file, line, col}` (file relative to the case folder),
optionally with `message` / `hint` substrings the diagnostic must contain. The pack compiled
is the first pack folder of the case in name order (for cycles, the first of the packs).

Expected positions are where a person would point (the offending key, value or word), not a
copy of what the compiler printed. Cases where the compiler disagrees are known bugs, marked
xfail(strict) below so they turn into failures the day the bug is fixed.
"""

from __future__ import annotations

import json
import os
import traceback
from pathlib import Path

import pytest
import yaml

from cardsmith.compiler.diagnostics import Diagnostic, render_github, render_json, render_text
from cardsmith.compiler.pipeline import CompileResult, compile_pack

FIXTURES = Path(__file__).resolve().parent / "fixtures"
INVALID = FIXTURES / "invalid"
VALID_MINIMAL = FIXTURES / "valid" / "minimal"

CASES = sorted(p for p in INVALID.iterdir() if (p / "expect.yaml").is_file())

# Expected diagnostic missing, or reported at the wrong place: real compiler bugs.
KNOWN_BUGS = {
}

# The expected diagnostics appear, but with misleading follow-on errors (a cascade).
KNOWN_CASCADES = {
}
# Bugs above that also leave a stray (misplaced) diagnostic behind.
_MISPLACED: set[str] = set()
# Bugs above where the run reports nothing at all.
_SILENT: set[str] = set()


def _params(known: dict[str, str]):
    out = []
    for case in CASES:
        marks = [pytest.mark.xfail(reason=known[case.name], strict=True)] if case.name in known else []
        out.append(pytest.param(case, id=case.name, marks=marks))
    return out


def pack_folder(case: Path) -> Path:
    packs = sorted(p for p in case.iterdir() if (p / "pack.yaml").is_file())
    assert packs, f"{case.name}: no pack folder"
    return packs[0]


def load_expect(case: Path) -> list[dict]:
    items = yaml.safe_load((case / "expect.yaml").read_text(encoding="utf-8"))
    assert isinstance(items, list) and items, f"{case.name}: expect.yaml must be a non-empty list"
    for e in items:
        assert {"code", "file"} <= set(e), e
        assert set(e) <= {"code", "file", "line", "col", "message", "hint"}, e
    return items


def compile_case(case: Path, monkeypatch) -> CompileResult:
    """Compile from inside the case folder, so diagnostic paths are relative to it."""
    monkeypatch.chdir(case)
    try:
        return compile_pack(str(pack_folder(case)))
    except Exception:  # the point: nothing may escape
        pytest.fail(f"{case.name}: exception escaped the compiler:\n{traceback.format_exc()}")


def rel_file(case: Path, file: str) -> str:
    p = Path(file)
    if not p.is_absolute():
        p = Path(os.getcwd()) / p
    try:
        return p.resolve().relative_to(case.resolve()).as_posix()
    except ValueError:
        return file


def matches(case: Path, d: Diagnostic, e: dict) -> bool:
    if d.code != e["code"] or rel_file(case, d.span.file) != e["file"]:
        return False
    if "line" in e and d.span.line != e["line"]:
        return False
    if "col" in e and d.span.col != e["col"]:
        return False
    if "message" in e and e["message"] not in d.message:
        return False
    return not ("hint" in e and e["hint"] not in (d.hint or ""))


def show(case: Path, diags) -> str:
    return "\n".join(f"  {d.code} {rel_file(case, d.span.file)}:{d.span.line}:{d.span.col} {d.message}"
                     f"{f' (hint: {d.hint})' if d.hint else ''}" for d in diags) or "  (none)"


# ---------------------------------------------------------------------------- the cases


@pytest.mark.parametrize("case", _params(KNOWN_BUGS))
def test_expected_diagnostics(case: Path, monkeypatch) -> None:
    expected = load_expect(case)
    result = compile_case(case, monkeypatch)
    diags = list(result.diagnostics)
    missing = [e for e in expected if not any(matches(case, d, e) for d in diags)]
    assert not missing, f"{case.name}: expected diagnostics not reported: {missing}\nreported:\n{show(case, diags)}"
    if all(e["code"].startswith("W") for e in expected):  # W0xx_what: warned about, still compiled
        assert result.ok, f"{case.name}: a warning must not stop the pack compiling"
        return
    assert result.pack is None and not result.ok, f"{case.name}: a broken pack must not compile"


@pytest.mark.parametrize("case", _params({**KNOWN_CASCADES, **{k: v for k, v in KNOWN_BUGS.items()
                                                                if k in _MISPLACED}}))
def test_no_unexpected_errors(case: Path, monkeypatch) -> None:
    """Every error the run reports is one the case expects: no cascades, no stray positions."""
    expected = load_expect(case)
    result = compile_case(case, monkeypatch)
    extra = [d for d in result.diagnostics.errors
             if not any(d.code == e["code"] and rel_file(case, d.span.file) == e["file"]
                        and d.span.line == e.get("line", d.span.line) and d.span.col == e.get("col", d.span.col)
                        for e in expected)]
    assert not extra, f"{case.name}: unexpected errors:\n{show(case, extra)}"


@pytest.mark.parametrize("case", _params({k: KNOWN_BUGS[k] for k in _SILENT}))
def test_rendering(case: Path, monkeypatch) -> None:
    """text, JSON and GitHub renderings of every case's diagnostics work and agree."""
    result = compile_case(case, monkeypatch)
    diags = result.diagnostics.sorted()
    assert diags, f"{case.name}: no diagnostics at all"

    text = render_text(diags)
    for d in diags:
        assert f"{d.span.file}:{d.span.line}:{d.span.col}: {d.severity}[{d.code}]: " in text
    assert "Traceback" not in text

    data = json.loads(render_json(diags))
    assert [(x["code"], x["file"], x["line"], x["col"]) for x in data] == \
           [(d.code, d.span.file, d.span.line, d.span.col) for d in diags]
    assert all(x["severity"] in ("error", "warning", "note") and x["message"] for x in data)

    gh = render_github(diags).splitlines()
    assert len(gh) == len(diags)
    for line, d in zip(gh, diags, strict=True):
        assert line.startswith(f"::{d.severity} file=")
        assert f",line={d.span.line},col={d.span.col},title={d.code}::" in line
        assert "\n" not in line and "\r" not in line


def test_case_names_match_their_first_code() -> None:
    for case in CASES:
        if case.name.startswith("E"):
            assert case.name.split("_")[0] == load_expect(case)[0]["code"], case.name


def test_required_cases_present() -> None:
    names = {c.name for c in CASES}
    for required in ("E001_yaml_syntax", "E002_invalid_utf8", "E003_duplicate_key", "E004_non_string_key",
                     "E010_missing_required", "E011_unknown_field", "E020_extends_unknown", "E021_extends_cycle",
                     "E022_duplicate_card_id", "E100_dsl_syntax", "E101_misspelt_resource", "E101_unknown_trait",
                     "E102_wrong_type", "E103_timing_wrong_type", "E104_macro_shape", "E105_not_a_cost",
                     "E106_recursive_macro", "E112_it_without_card"):
        assert required in names


def test_cycle_case_has_two_packs() -> None:
    case = INVALID / "E021_extends_cycle"
    assert len([p for p in case.iterdir() if (p / "pack.yaml").is_file()]) == 2


# ---------------------------------------------------------------------------- whole runs


def test_valid_minimal_compiles_clean(monkeypatch) -> None:
    monkeypatch.chdir(VALID_MINIMAL)
    result = compile_pack(str(VALID_MINIMAL))
    assert not list(result.diagnostics), render_text(list(result.diagnostics))
    assert result.ok and result.pack is not None
    assert {c.id for c in result.pack.cards} == {"oak", "mint"}


def test_several_independent_errors_in_one_run(monkeypatch) -> None:
    """A pack with three unrelated errors (rules DSL, card DSL, YAML of another card file) gets all three."""
    case = INVALID / "multi_three_unrelated_errors"
    result = compile_case(case, monkeypatch)
    errors = result.diagnostics.errors
    got = {(d.code, rel_file(case, d.span.file)) for d in errors}
    assert {("E100", "mini/rules.yaml"), ("E101", "mini/cards.yaml"), ("E001", "mini/broken.yaml")} <= got, \
        show(case, errors)
    assert len(errors) == 3, show(case, errors)


def test_errors_in_several_cards_of_one_file(tmp_path, monkeypatch) -> None:
    """The checker does not stop at the first bad card or the first bad statement."""
    pack = tmp_path / "mini"
    pack.mkdir()
    for f in ("pack.yaml", "rules.yaml"):
        (pack / f).write_text((VALID_MINIMAL / f).read_text(encoding="utf-8"), encoding="utf-8")
    (pack / "cards.yaml").write_text(
        "cards:\n"
        "  - {id: a, name: A, type: plant, abilities: {green: \"gain 1 soyl, move 1 card from dek to hand\"}}\n"
        "  - {id: b, name: B, type: plant, traits: {kind: shrub}}\n"
        "  - {id: c, name: C, type: plant, abilities: {green: \"score 1\"}}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = compile_pack(str(pack))
    got = sorted((d.code, d.span.line) for d in result.diagnostics.errors)
    assert got == [("E101", 2), ("E101", 2), ("E101", 3), ("E110", 4)], show(tmp_path, result.diagnostics)
