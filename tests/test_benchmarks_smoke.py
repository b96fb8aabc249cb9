"""The benchmark command runs, and its hand-written baselines do what the VM does (no timings asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import abilities  # noqa: E402
from benchmarks.__main__ import main  # noqa: E402
from benchmarks.report import Table  # noqa: E402


def test_verdicts():
    t = Table()
    assert t.add("a", "1", "2", 2.5, "<= 3").verdict == "met"
    assert t.add("b", "1", "2", 3.5, "<= 3").verdict == "NOT met"
    assert t.add("c", "1", "2", 1.9, ">= 1.8").verdict == "met"
    assert t.add("d", "1", "2", 0.4, "report").verdict == ""
    text = t.render()
    assert "NOT met" in text and text.splitlines()[0].startswith("benchmark")


def test_hand_written_twins_do_what_the_vm_does():
    # measure() compares the end states of the VM and of the hand-written function before timing
    results = [abilities.measure(item, runs=2, repeat=1) for item in abilities.ITEMS]
    assert len(results) == 20
    ran = [r for r in results if r.ratio == r.ratio]
    assert len(ran) >= 15, [(r.label, r.note) for r in results if r.ratio != r.ratio]


def test_quick_run_prints_the_table(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("CARDSMITH_CACHE", str(tmp_path / "cache"))
    out_json = tmp_path / "bench.json"
    # the sections that play or serve (hostile packs, search, site, language server) run in the slow test below
    skip = ["abilities", "games", "memory", "scale", "hostile", "search", "site", "lsp"]
    assert main(["--quick", "--repeat", "1", *[a for s in skip for a in ("--skip", s)], "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    assert "cold compile" in text and "warm compile" in text and "GameState.clone" in text
    assert out_json.is_file()


@pytest.mark.slow
def test_full_quick_run(capsys):
    assert main(["--quick"]) == 0
    assert "games/s with --jobs 2" in capsys.readouterr().out


def test_the_ladder_plays_each_packs_search_budget_and_resumes(tmp_path, capsys):
    from benchmarks import ladder

    # a bare 'search' takes the pack's ladder budget: the table's rows are replayed by a plain run (docs/agents.rst)
    assert ladder.pairs_for("terraforming-mars", [("search", "greedy")]) == [("search:64", "greedy")]
    assert ladder.pairs_for("birdscaping", list(ladder.PAIRS)) == [("greedy", "random"), ("search:24", "greedy")]
    results = tmp_path / "ladder.jsonl"
    args = ["--pack", "birdscaping", "--pair", "greedy,random", "--games", "1", "--results", str(results)]
    assert ladder.main(args) == 0
    games = ladder.done_games(results)
    assert [(g["pack"], g["a"], g["b"], g["seed"]) for g in games] == [("birdscaping", "greedy", "random", 0)]
    assert ladder.main(args) == 0  # played already: nothing more
    assert "0 games to play" in capsys.readouterr().err
    assert len(ladder.done_games(results)) == 1
    table = ladder.report(results)
    assert "birdscaping  greedy vs random  1 " in table
