"""`cardsmith balance --variant`: the same seeds played with a card changed, and what the change did; the
agent chosen to fit a time budget; what the report counts (played types, type names, rounds).

The fixture (tests/fixtures/packs/whatif) is a small buying game whose one crown is worth a little more
than it costs; made free it wins games for whoever draws it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.runtime.balance import analyze
from cardsmith.runtime.budget import CANDIDATES, pick_agent
from cardsmith.runtime.simulate import simulate
from cardsmith.runtime.variant import VariantError, apply_changes, changed_cards

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "packs" / "whatif"
GAMES = ("-n", "150", "-p", "2", "--agents", "random", "--no-progress")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def interval(output: str, card: str = "crown") -> tuple[float, float, float]:
    line = next(x for x in output.splitlines() if f"({card}): win rate of the seats it came to" in x)
    d, lo, hi = re.search(r"difference ([+-][\d.]+) points, 95% interval ([+-][\d.]+) to ([+-][\d.]+)", line).groups()
    return float(d), float(lo), float(hi)


def test_a_card_made_free_wins_more_and_the_interval_excludes_0():
    res = run("balance", FIXTURE, *GAMES, "--variant", "crown.stats.cost=0")
    assert res.exit_code == 0, res.output
    d, lo, hi = interval(res.output)
    assert 0 < lo <= d <= hi, res.output
    assert "stronger" in res.output
    assert "played in" in res.output and "win rate when played" in res.output


def test_a_change_that_changes_nothing_includes_0_and_every_game_is_alike():
    res = run("balance", FIXTURE, *GAMES, "--variant", "crown.stats.cost=5")
    assert res.exit_code == 0, res.output
    d, lo, hi = interval(res.output)
    assert d == 0 and lo < 0 < hi
    assert "150 of 150 games played out exactly alike" in res.output
    assert "cannot tell it from chance" in res.output


def test_a_variant_pack_folder_is_compared_card_by_card(tmp_path):
    folder = tmp_path / "whatif-erratum"
    shutil.copytree(FIXTURE, folder)
    cards = folder / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("stats: {cost: 5, vp: 6}", "stats: {cost: 0, vp: 6}"),
                     encoding="utf-8")
    by_folder = run("balance", FIXTURE, *GAMES, "--variant", folder)
    by_change = run("balance", FIXTURE, *GAMES, "--variant", "crown.stats.cost=0")
    assert by_folder.exit_code == 0, by_folder.output
    # the same change made either way plays the same games: the same figures
    assert interval(by_folder.output) == interval(by_change.output)
    assert "pebble" not in by_folder.output  # only the cards that differ are reported


def test_the_report_has_a_what_if_section(tmp_path):
    res = run("balance", FIXTURE, *GAMES, "--variant", "crown.stats.cost=0", "-o", tmp_path / "r")
    assert res.exit_code == 0, res.output
    html = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert 'id="what-if"' in html and "crown.stats.cost=0" in html
    row = re.search(r'<table id="what-if-table">.*?</table>', html, re.S).group(0)
    assert "Crown" in row and "stronger" in row


def test_changes_are_checked_against_the_pack():
    pack = compile_pack(str(FIXTURE)).pack
    for spec, said in [("crwn.stats.cost=0", "no card 'crwn'; did you mean 'crown'?"),
                       ("crown.stats.prize=1", "declares no stat 'prize'"),
                       ("crown.stats.cost=free", "'free' is not a whole number"),
                       ("crown.copies=-1", "below 0"),
                       ("crown.cost=1", "change CARD.stats.NAME"),
                       ("crown.stats.cost", "should look like CARD.stats.NAME=VALUE")]:
        try:
            apply_changes(pack, [spec])
        except VariantError as e:
            assert said in str(e), (spec, str(e))
        else:
            raise AssertionError(f"{spec} was accepted")
    variant, changed = apply_changes(pack, ["crown.stats.cost=0", "crown.copies=2"])
    assert changed == ["crown"] and variant.card("crown").stats["cost"] == 0 and variant.card("crown").copies == 2
    assert pack.card("crown").stats["cost"] == 5  # the original is left alone
    assert changed_cards(pack, variant) == ["crown"] and changed_cards(pack, pack) == []


def test_a_bad_variant_is_one_line_and_exit_2(tmp_path):
    res = run("balance", FIXTURE, *GAMES, "--variant", "crwn.stats.cost=0")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.output.strip().splitlines() == [
        "cardsmith: --variant 'crwn.stats.cost=0': whatif has no card 'crwn'; did you mean 'crown'?"]
    res = run("balance", FIXTURE, *GAMES)
    assert res.exit_code == 2 and "--output" in res.output


def test_the_strongest_agent_that_fits_the_time_is_chosen():
    pack = compile_pack(str(FIXTURE)).pack
    agent, estimates = pick_agent(pack, 2, 10, seconds=1e9)
    assert agent == CANDIDATES[0] and len(estimates) == 1
    agent, estimates = pick_agent(pack, 2, 10, seconds=1e-9)
    assert agent == "random" and [e.agent for e in estimates] == list(CANDIDATES)
    assert all(e.total > 0 for e in estimates)
    res = run("balance", FIXTURE, "-n", "4", "--no-progress", "--time", "600", "--variant", "crown.stats.cost=0")
    assert res.exit_code == 0, res.output
    assert re.search(r"agents: (search:\d+|greedy|random) in every seat \(estimates: ", res.output), res.output


def test_the_report_counts_played_types_by_name_and_rounds():
    pack = compile_pack("living-forest").pack
    results = simulate(pack, 2, 2, 1, ["random"])
    b = analyze(pack, results, 2, 1, ["random"])
    assert b.played_types == ["animal", "protective-tree"]
    assert b.type_name("protective-tree") == "protective tree"
    assert b.played_types_text == "animal and protective tree"
    assert {c.type for c in b.cards} <= {"animal", "protective-tree"}
    # no length counter declared: a round is each player's turn once
    assert b.lengths["rounds (turns / players)"] == [-(-r.turns // 2) for r in results]
