"""`cardsmith validate --changed-since REV`: only findings on lines changed since a git revision are reported, and
only they decide the exit code; an old error on an unchanged line is left alone."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.cli.git_changes import changed_since, resolve_revision
from cardsmith.compiler.diagnostics import Span
from helpers import ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false",
                           *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture()
def repo(tmp_path, monkeypatch) -> Path:
    """A repository with the Trinkets pack committed, one error already in it ('gain 2 coins', line 10)."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "docs" / "first-pack", repo / "trinkets")
    cards = repo / "trinkets" / "cards.yaml"
    cards.write_text(cards.read_text().replace('"gain 2 coin"', '"gain 2 coins"'))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "trinkets")
    monkeypatch.chdir(repo)
    return repo


def findings(res) -> list[dict]:
    return json.loads(res.stdout)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_only_the_new_error_is_reported(repo):
    edit(repo / "trinkets" / "cards.yaml", '"draw 2"', '"drwa 2"')
    everything = findings(run("validate", "trinkets", "--format", "json"))
    assert [d["line"] for d in everything] == [10, 16]
    res = run("validate", "trinkets", "--format", "json", "--changed-since", "HEAD")
    assert res.exit_code == 1
    [new] = findings(res)
    assert (new["file"], new["line"], new["code"]) == ("trinkets/cards.yaml", 16, "E101")
    assert "1 more on unchanged lines" in res.stderr


def test_an_old_error_on_an_unchanged_line_does_not_fail_the_run(repo):
    edit(repo / "trinkets" / "cards.yaml", "stats: {cost: 3, vp: 4}", "stats: {cost: 3, vp: 5}")
    assert run("validate", "trinkets").exit_code == 1
    res = run("validate", "trinkets", "--format", "json", "--changed-since", "HEAD")
    assert res.exit_code == 0, res.output
    assert findings(res) == []


def test_a_committed_change_counts_against_an_older_revision(repo):
    edit(repo / "trinkets" / "rules.yaml", "repeat 5 times", "repeat 5 tims")
    git(repo, "commit", "-q", "-am", "typo")
    assert run("validate", "trinkets", "--changed-since", "HEAD").exit_code == 0
    res = run("validate", "trinkets", "--format", "json", "--changed-since", "HEAD~1")
    assert res.exit_code == 1
    assert [d["file"] for d in findings(res)] == ["trinkets/rules.yaml"]


def test_an_untracked_card_file_counts_as_changed_in_full(repo):
    (repo / "trinkets" / "more.yaml").write_text(
        "defaults: {type: trinket}\ncards:\n  - {id: tin-cup, name: Tin Cup, abilities: {play: \"gain 1 cion\"}}\n")
    res = run("validate", "trinkets", "--format", "json", "--changed-since", "HEAD")
    assert res.exit_code == 1
    assert [(d["file"], d["line"]) for d in findings(res)] == [("trinkets/more.yaml", 3)]


def test_an_error_at_an_unchanged_call_of_a_changed_macro_is_reported(repo):
    # the error is at the call ('draw 2' in cards.yaml, unchanged); its note points at the changed macro body
    edit(repo / "trinkets" / "rules.yaml", 'top of deck to hand"', 'top of deck to hnd"')
    res = run("validate", "trinkets", "--format", "json", "--changed-since", "HEAD")
    assert res.exit_code == 1
    reported = findings(res)
    places = [(d["file"], d["line"]) for d in reported]
    assert ("trinkets/cards.yaml", 16) in places and ("trinkets/cards.yaml", 10) not in places
    assert all(n["file"] == "trinkets/rules.yaml" for d in reported for n in d["notes"])


def test_findings_without_a_line_count_when_their_file_changed(repo):
    edit(repo / "trinkets" / "pack.yaml", "version: 0.1.0", "version: 0.2.0")
    root, commit = resolve_revision("HEAD", repo)
    files = ["trinkets/pack.yaml", "trinkets/rules.yaml"]
    changes = changed_since(root, commit, files)
    assert changes.touches(Span("trinkets/pack.yaml", 0, 0))
    assert not changes.touches(Span("trinkets/rules.yaml", 0, 0))
    assert changes.touches(Span("trinkets/pack.yaml", 4, 1)) and not changes.touches(Span("trinkets/pack.yaml", 3, 1))


def test_an_unknown_revision_is_a_usage_error(repo):
    res = run("validate", "trinkets", "--changed-since", "no-such-branch")
    assert res.exit_code == 2
    assert "unknown git revision 'no-such-branch'" in res.stderr and "Traceback" not in res.output


def test_outside_a_repository_is_a_usage_error(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "docs" / "first-pack", tmp_path / "trinkets")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    res = run("validate", "trinkets", "--changed-since", "HEAD")
    assert res.exit_code == 2
    assert "not inside a git repository" in res.stderr


def test_a_path_that_names_no_pack_is_still_reported(repo):
    res = run("validate", "trinkets", "no-such-folder", "--format", "json", "--changed-since", "HEAD")
    assert res.exit_code == 1
    assert [(d["code"], d["file"]) for d in findings(res)] == [("E024", "no-such-folder")]
