"""`cardsmith validate --format sarif`: a SARIF 2.1.0 log that the SARIF JSON schema accepts and code scanning can
place: one rule per code used, one result per diagnostic, URIs relative to the repository, 1-based lines and
columns.

The schema is tests/fixtures/sarif/sarif-2.1.0-rtm.5.json (see the README beside it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler.diagnostics import Diagnostic, Severity, Span, render_sarif
from helpers import ROOT

SCHEMA = json.loads((Path(__file__).parent / "fixtures" / "sarif" / "sarif-2.1.0-rtm.5.json").read_text())
# The OASIS 2.1.0 schema is stricter than rtm.5 here: a region says where it starts.
SCHEMA["definitions"]["region"]["anyOf"] = [{"required": [k]} for k in ("startLine", "charOffset", "byteOffset")]
VALIDATOR = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def schema_errors(log: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(log)]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture()
def trinkets(tmp_path, monkeypatch) -> Path:
    """docs/first-pack as 'trinkets' in a working directory of its own, with two mistakes in cards.yaml."""
    pack = tmp_path / "trinkets"
    shutil.copytree(ROOT / "docs" / "first-pack", pack)
    text = (pack / "cards.yaml").read_text()
    text = text.replace('"gain 2 coin"', '"gain 2 coins"').replace('"draw 2"', '"drwa 2"')
    (pack / "cards.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    return pack


def test_the_validator_is_strict_enough_to_catch_a_bad_log():
    where = {"physicalLocation": {"artifactLocation": {"uri": "a.yaml"}, "region": {"startColumn": 2}}}
    result = {"level": "fatal", "locations": [where]}
    errors = schema_errors({"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [result]}]})
    assert any("'name' is a required property" in e for e in errors)
    assert any("'message' is a required property" in e for e in errors)
    assert any("'fatal' is not one of" in e for e in errors)
    assert any(e.startswith("runs/0/results/0/locations/0/physicalLocation/region") for e in errors)


def test_sarif_of_a_broken_pack_is_valid_and_places_every_finding(trinkets):
    res = run("validate", "trinkets", "--format", "sarif")
    assert res.exit_code == 1
    log = json.loads(res.stdout)
    assert schema_errors(log) == []
    as_json = json.loads(run("validate", "trinkets", "--format", "json").stdout)
    [sarif_run] = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "cardsmith"
    assert sorted(r["id"] for r in driver["rules"]) == sorted({d["code"] for d in as_json})
    assert len(sarif_run["results"]) == len(as_json) >= 2
    for result, d in zip(sarif_run["results"], as_json, strict=True):
        assert result["ruleId"] == d["code"] == driver["rules"][result["ruleIndex"]]["id"]
        assert result["level"] == "error"
        assert result["message"]["text"].startswith(d["message"])
        where = result["locations"][0]["physicalLocation"]
        assert where["artifactLocation"]["uri"] == "trinkets/cards.yaml"
        assert (where["region"]["startLine"], where["region"]["startColumn"]) == (d["line"], d["col"])
    assert sarif_run["originalUriBaseIds"]["SRCROOT"]["uri"] == trinkets.parent.resolve().as_uri() + "/"


def test_sarif_of_a_clean_pack_has_no_results_and_exits_0(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "docs" / "first-pack", tmp_path / "trinkets")
    monkeypatch.chdir(tmp_path)
    res = run("validate", "trinkets", "--format", "sarif")
    assert res.exit_code == 0
    log = json.loads(res.stdout)
    assert schema_errors(log) == [] and log["runs"][0]["results"] == []


def test_sarif_uris_are_relative_to_the_repository_root(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()  # the marker repo_root looks for
    shutil.copytree(ROOT / "docs" / "first-pack", tmp_path / "packs" / "trinkets")
    cards = tmp_path / "packs" / "trinkets" / "cards.yaml"
    cards.write_text(cards.read_text().replace('"draw 2"', '"drwa 2"'))
    monkeypatch.chdir(tmp_path / "packs")
    log = json.loads(run("validate", "trinkets", "--format", "sarif").stdout)
    [result] = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "packs/trinkets/cards.yaml"


def test_levels_notes_and_findings_without_a_line(tmp_path):
    (tmp_path / "a b.yaml").write_text("x\n")
    diags = [
        Diagnostic("E101", "an error", Span(str(tmp_path / "a b.yaml"), 1, 2, 1, 5), hint="try this",
                   notes=(("the macro body", Span(str(tmp_path / "a b.yaml"), 1, 1)),)),
        Diagnostic("E110", "a warning", Span(str(tmp_path / "a b.yaml"), 1, 1), Severity.WARNING),
        Diagnostic("E023", "a pack-level note", Span(str(tmp_path / "pack.yaml"), 0, 0), Severity.NOTE),
        Diagnostic("E024", "outside the root", Span("/elsewhere/x.yaml", 3, 1)),
    ]
    log = json.loads(render_sarif(diags, tmp_path, "9.9.9"))
    assert schema_errors(log) == []
    results = log["runs"][0]["results"]
    assert [r["level"] for r in results] == ["error", "warning", "note", "error"]
    first = results[0]
    assert first["message"]["text"] == "an error (help: try this)"
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "a%20b.yaml"
    assert first["locations"][0]["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 2, "endLine": 1,
                                                                    "endColumn": 5}
    assert first["relatedLocations"][0]["message"]["text"] == "the macro body"
    assert "region" not in results[2]["locations"][0]["physicalLocation"]
    assert results[3]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "file:///elsewhere/x.yaml"
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["E101", "E110", "E023", "E024"]
    assert rules[1]["defaultConfiguration"]["level"] == "warning"
