"""`cardsmith diff`: two git revisions of a repository holding copies of this repository's packs (Earth,
Terraforming Mars) and the small documentation pack, read from git objects; known edits between the
commits are reported as behaviour changes or as text only."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT

from cardsmith.cli import main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="PACK@REV reads git objects: git is needed")


def git(repo, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo,
                          check=True, capture_output=True, text=True).stdout


def edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """packs/{trinkets,earth,terraforming-mars} committed twice: the second commit holds known edits."""
    root = tmp_path_factory.mktemp("repo")
    packs = root / "packs"
    shutil.copytree(ROOT / "docs" / "first-pack", packs / "trinkets")
    for pack in ("earth", "terraforming-mars"):
        shutil.copytree(ROOT / "cards" / pack, packs / pack, ignore=shutil.ignore_patterns("scenarios"))
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "v1")
    t = packs / "trinkets"
    edit(t / "cards.yaml", "stats: {cost: 3, vp: 4}", "stats: {cost: 2, vp: 4}")  # silver-cup: cheaper
    edit(t / "cards.yaml", "name: Lucky Coin", "name: Lucky Penny")  # renamed, same id
    edit(t / "rules.yaml", '"draw $n": "move $n card from top of deck to hand"',  # reworded, same program
         '"draw $n": "move $n from top of deck to hand"')
    with (t / "cards.yaml").open("a", encoding="utf-8") as fh:
        fh.write("\n  - id: brass-key\n    name: Brass Key\n    stats: {cost: 1, vp: 1}\n"
                 '    abilities: {play: "gain 1 coin"}\n')
    e = packs / "earth" / "flora.yaml"
    edit(e, "stats: {cost: 5, vp: 3, sprouts: 1, growth: 4, canopy-vp: 7}\n    abilities: {yellow: \"grow 1\"}",
         "stats: {cost: 4, vp: 3, sprouts: 1, growth: 4, canopy-vp: 7}\n    abilities: {yellow: \"grow 1\"}")
    edit(e, 'abilities: {green: "draw 1"}\n\n  - id: copperbark-pine',  # reformatted only
         'abilities: {green: "draw   1"}\n\n  - id: copperbark-pine')
    edit(e, "  - id: hollow-elm\n", "  - id: hollow-elm-tree\n")  # a new id, the same name
    tm = packs / "terraforming-mars" / "cards-001-050.yaml"
    text = tm.read_text(encoding="utf-8")  # the first card's cost, one more
    tm.write_text(re.sub(r"cost: (\d+)", lambda m: f"cost: {int(m.group(1)) + 1}", text, count=1), encoding="utf-8")
    git(root, "commit", "-q", "-am", "v2")
    return root


def diff(repo, *args: str):
    r = CliRunner().invoke(main, ["diff", *args], catch_exceptions=False)
    return r


def diff_json(repo, old: str, new: str) -> dict:
    r = diff(repo, str(repo / "packs" / old), str(repo / "packs" / new), "--format", "json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def by_id(d: dict) -> dict:
    return {c["id"]: c for c in d["cards"]}


def test_known_edits_of_a_small_pack(repo):
    d = diff_json(repo, "trinkets@HEAD~1", "trinkets@HEAD")
    cards = by_id(d)
    assert cards["silver-cup"]["status"] == "behaviour"
    assert cards["silver-cup"]["facts"] == [{"field": "stats", "old": {"cost": 3, "vp": 4}, "new": {"cost": 2, "vp": 4},
                                             "behaviour": True}]
    assert cards["lucky-coin"]["status"] == "text" and cards["lucky-coin"]["renamed"]
    assert cards["lucky-coin"]["old_name"] == "Lucky Coin"
    # the macro was reworded: the card that uses it says the same thing in other words, same bytecode
    assert cards["old-map"]["status"] == "text" and cards["old-map"]["abilities"][0]["change"] == "text"
    assert cards["brass-key"]["status"] == "added"
    assert d["summary"] == {"added": 1, "removed": 0, "renamed": 1, "behaviour": 1, "text": 2, "unchanged": 0,
                            "rules": 1, "rules_behaviour": 0}
    assert d["rules"] == [{"what": "macro 'draw $n'", "change": "reworded", "behaviour": False,
                           "detail": "the card using it compiles to the same bytecode"}]


def test_a_cost_change_in_earth_is_behaviour_and_reformatting_is_text(repo):
    d = diff_json(repo, "earth@HEAD~1", "earth@HEAD")
    cards = by_id(d)
    assert set(cards) == {"mossback-oak", "lantern-birch", "hollow-elm-tree"}
    renamed = cards["hollow-elm-tree"]
    assert (renamed["status"], renamed["renamed"], renamed["old_id"], renamed["name"]) == \
        ("text", True, "hollow-elm", "Hollow Elm")
    assert cards["mossback-oak"]["status"] == "behaviour"
    assert cards["mossback-oak"]["facts"][0]["new"]["cost"] == 4
    assert cards["lantern-birch"]["status"] == "text"
    assert cards["lantern-birch"]["abilities"] == [{"timing": "green", "change": "text", "source_old": "draw 1",
                                                   "source_new": "draw   1"}]
    assert d["summary"]["unchanged"] == 213 and d["summary"]["renamed"] == 1 and d["behaviour_changed"]
    text = diff(repo, str(repo / "packs" / "earth@HEAD~1"), str(repo / "packs" / "earth@HEAD")).output
    oak = text.split("mossback-oak", 1)[1].split("\n  ", 2)
    assert "    = en: " in text.split("mossback-oak", 1)[1].split("Text only", 1)[0] and oak  # same text, shown once


def test_terraforming_mars_cost_change(repo):
    d = diff_json(repo, "terraforming-mars@HEAD~1", "terraforming-mars@HEAD")
    assert [c["status"] for c in d["cards"]] == ["behaviour"]
    fact = d["cards"][0]["facts"][0]
    assert fact["field"] == "stats" and fact["new"]["cost"] == fact["old"]["cost"] + 1


def test_formats_and_fail_on(repo):
    old, new = str(repo / "packs" / "trinkets@HEAD~1"), str(repo / "packs" / "trinkets@HEAD")
    r = diff(repo, old, new)
    assert r.exit_code == 0
    assert "1 added, 0 removed, 1 renamed, 1 behaviour changed, 2 text only" in r.output
    assert "stats: {cost: 3, vp: 4} -> {cost: 2, vp: 4}" in r.output
    md = diff(repo, old, new, "--format", "markdown", "--lang", "both").output
    assert md.startswith("## Trinkets: 0.1.0 → 0.1.0") and "### Behaviour changed (1)" in md
    assert "| ja | before | after |" in md
    assert diff(repo, old, new, "--fail-on", "behaviour").exit_code == 1
    # only text changed between these two: the earth pack at v2 against itself reformatted back is the same
    same = diff(repo, str(repo / "packs" / "earth@HEAD"), str(repo / "packs" / "earth"), "--fail-on", "behaviour")
    assert same.exit_code == 0 and "No changes." in same.output


def test_the_work_tree_is_never_touched(repo):
    before = git(repo, "status", "--porcelain")
    (repo / "packs" / "trinkets" / "cards.yaml").write_text("# local edit\n" + (repo / "packs" / "trinkets" /
                                                            "cards.yaml").read_text(encoding="utf-8"))
    try:
        status = git(repo, "status", "--porcelain")
        diff_json(repo, "trinkets@HEAD~1", "trinkets@HEAD")
        assert git(repo, "status", "--porcelain") == status
        assert (repo / "packs" / "trinkets" / "cards.yaml").read_text(encoding="utf-8").startswith("# local edit")
    finally:
        git(repo, "checkout", "-q", "--", "packs/trinkets/cards.yaml")
    assert git(repo, "status", "--porcelain") == before


def test_a_side_that_does_not_compile_shows_its_diagnostics(repo):
    cards = repo / "packs" / "trinkets" / "cards.yaml"
    edit(cards, 'abilities: {play: "gain 2 coin"}', 'abilities: {play: "gain 2 coins"}')
    try:
        r = diff(repo, str(repo / "packs" / "trinkets@HEAD"), str(repo / "packs" / "trinkets"))
    finally:
        git(repo, "checkout", "-q", "--", "packs/trinkets/cards.yaml")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert re.search(r"cards\.yaml:\d+:\d+: error\[E\d+\]", r.output), r.output
    assert "does not compile, so it cannot be compared" in r.output


def test_unreadable_sides_are_one_line_errors(repo):
    r = diff(repo, str(repo / "packs" / "trinkets@no-such-rev"), str(repo / "packs" / "trinkets"))
    assert r.exit_code == 2 and "has no revision 'no-such-rev'" in r.output
    r = diff(repo, "nowhere@HEAD", "earth")
    assert r.exit_code == 2 and "no pack 'nowhere'" in r.output


def test_this_repositorys_own_pack_at_head():
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    temp = Path(tempfile.gettempdir())
    before = set(temp.glob("cardsmith-rev-*"))
    r = diff(ROOT, "living-forest@HEAD", "living-forest@HEAD", "--fail-on", "any")
    assert r.exit_code == 0 and "No changes." in r.output
    assert "living-forest@HEAD (living-forest " in r.output
    assert set(temp.glob("cardsmith-rev-*")) == before  # the revisions' temporary folders are removed
