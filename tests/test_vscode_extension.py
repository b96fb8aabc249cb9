"""The VS Code extension (editors/vscode/): its TextMate injection grammar is the effect grammar's (and colours
what it should), its manifest points at files that exist, and `vsce package` builds it where npm and vsce are
installed (.ci/run installs vsce; the test skips, with the reason, without them)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from cardsmith.lsp.textmate import grammar, text

ROOT = Path(__file__).resolve().parent.parent

EXT = ROOT / "editors" / "vscode"
GRAMMAR = EXT / "syntaxes" / "cardsmith-effect.injection.json"


def test_injection_grammar_is_made_from_the_effect_grammar():
    assert GRAMMAR.read_text(encoding="utf-8") == text(), \
        "refresh it: python -m cardsmith.lsp.textmate > editors/vscode/syntaxes/cardsmith-effect.injection.json"


def _scopes(line: str) -> dict[str, str]:
    rules = grammar()["repository"]
    out = {}
    for rule in rules.values():
        for m in re.finditer(rule["match"], line):
            out.setdefault(m.group(0), rule["name"])
    return out


def test_injection_colours_effect_words_and_leaves_card_names_alone():
    scopes = _scopes("pay 2 soil: place 3 sprout on each card in tableau with kind tree, draw $n")
    assert scopes["pay"] == scopes["place"] == scopes["each"] == scopes["with"] == "keyword.control.cardsmith"
    assert scopes["2"] == "constant.numeric.cardsmith" and scopes["$n"] == "variable.parameter.cardsmith"
    assert scopes[":"] == "punctuation.separator.cardsmith"
    assert "soil" not in scopes and "tableau" not in scopes  # names are the server's semantic tokens
    assert _scopes("Lake of the Woods") == {} and _scopes("cards-001-050") == {}


def test_manifest_names_files_that_exist():
    manifest = json.loads((EXT / "package.json").read_text(encoding="utf-8"))
    assert (EXT / manifest["main"]).is_file()
    (contribution,) = manifest["contributes"]["grammars"]
    assert (EXT / contribution["path"]).resolve() == GRAMMAR.resolve()
    assert contribution["scopeName"] == grammar()["scopeName"] and contribution["injectTo"] == ["source.yaml"]
    assert manifest["contributes"]["configuration"]["properties"]["cardsmith.server.command"]["default"] == \
        ["cardsmith", "lsp"]
    assert "vscode-languageclient" in manifest["dependencies"]
    assert (EXT / "package-lock.json").is_file()


def test_vsce_packages_the_extension(tmp_path):
    npm, vsce = shutil.which("npm"), shutil.which("vsce")
    if npm is None or vsce is None:
        pytest.skip("npm and vsce are needed (npm install -g @vscode/vsce; .ci/run installs them)")
    work = tmp_path / "vscode"
    shutil.copytree(EXT, work, ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
    ci = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=work, capture_output=True, text=True,
                        timeout=600)
    assert ci.returncode == 0, ci.stdout + ci.stderr
    out = tmp_path / "cardsmith.vsix"
    built = subprocess.run([vsce, "package", "--out", str(out)], cwd=work, capture_output=True, text=True,
                           timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    names = set(zipfile.ZipFile(out).namelist())
    for want in ("extension/package.json", "extension/extension.js",
                 "extension/syntaxes/cardsmith-effect.injection.json",
                 "extension/node_modules/vscode-languageclient/package.json"):
        assert want in names, want
    packaged = json.loads(zipfile.ZipFile(out).read("extension/package.json"))
    assert packaged["name"] == "cardsmith" and packaged["main"] == "./extension.js"
