"""`cardsmith balance`: the HTML report with plots of a small simulation."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.present.balance_report import write_report
from cardsmith.runtime.balance import Rate, analyze, wilson
from cardsmith.runtime.simulate import simulate

GAMES = 10
ARGS = ("balance", "birdscaping", "--games", GAMES, "--players", 2, "--seed", 3, "--agents", "random", "--no-progress")
PLOTS = ("seat-win-rates", "scores-by-seat", "scores-by-agent", "card-win-rates", "game-length")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("balance") / "report"
    res = run(*ARGS, "-o", out)
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def html(report) -> str:
    return (report / "index.html").read_text(encoding="utf-8")


def card_rows(html: str) -> list[str]:
    table = html.split('<table id="card-table">', 1)[1].split("</table>", 1)[0]
    return re.findall(r"<tr(?: class=\"never\")?><td>.*?</tr>", table)


def test_the_report_and_every_plot_are_written(report):
    assert (report / "index.html").is_file()
    for name in PLOTS:
        png = (report / f"{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n"), name
        from PIL import Image

        with Image.open(report / f"{name}.png") as im:
            im.verify()
            assert im.size[0] > 200 and im.size[1] > 200
        root = ET.parse(report / f"{name}.svg").getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg", name


def test_the_page_shows_every_plot(html):
    for name in PLOTS:
        assert f'src="{name}.svg"' in html and f'href="{name}.png"' in html


def test_every_card_a_player_plays_is_in_the_card_table(html):
    # only the declared played types (statistics.played-types: [bird]); the action tiles are not cards
    pack = compile_pack("birdscaping").pack
    rows = card_rows(html)
    birds = {c.id for c in pack.cards if c.type == "bird"}
    assert len(rows) == len(birds)
    ids = {re.findall(r"<td>(.*?)</td>", r)[1] for r in rows}
    assert ids == birds


def test_the_game_count_backs_every_table_and_figure(html):
    assert f"{GAMES} games, 2 players, seeds 3..{3 + GAMES - 1}" in html
    assert f"Backed by {GAMES} games ({2 * GAMES} seat-games)" in html
    for caption in re.findall(r"<caption>(.*?)</caption>", html, re.S):
        assert f"{GAMES} games" in caption, caption
    for caption in re.findall(r"<figcaption>(.*?)</figcaption>", html, re.S):
        assert f"{GAMES} games" in caption, caption


def _pct(s: str) -> float:
    return float(s.rstrip("%"))


def test_intervals_lie_in_0_1_and_hold_the_observed_rate(html):
    cells = 0
    for row in card_rows(html) + re.findall(r"<tr><td>(?:seat|random).*?</tr>", html):
        for rate, lo, hi in re.findall(r"([\d.]+%)</td><td class=\"n\">([\d.]+%) – ([\d.]+%)", row):
            assert 0 <= _pct(lo) <= _pct(rate) <= _pct(hi) <= 100, row
            cells += 1
    assert cells > 20


def test_seat_wins_add_up_to_the_games(html):
    # A tie shares the win between the tied seats, so the seats' wins add up to the number of games.
    wins = [float(w) for w in re.findall(r"<tr><td>seat \d</td><td class=\"n\">([\d.]+)</td>", html)]
    assert len(wins) == 2 and sum(wins) == pytest.approx(GAMES)


def test_two_runs_give_the_same_files(report, tmp_path):
    again = tmp_path / "again"
    res = run(*ARGS, "-o", again)
    assert res.exit_code == 0, res.output
    first = sorted(p.name for p in report.iterdir())
    assert first == sorted(p.name for p in again.iterdir())
    for name in first:
        assert (report / name).read_bytes() == (again / name).read_bytes(), name


def test_wilson_interval_known_values():
    lo, hi = wilson(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    lo, hi = wilson(0, 10)
    assert lo == 0 and round(hi, 4) == 0.2775
    assert wilson(10, 10) == (pytest.approx(0.7225, abs=1e-4), 1.0)
    assert wilson(0, 0) == (0.0, 1.0)  # no data: nothing ruled out
    # Shared wins are fractions; the interval still holds the rate.
    r = Rate(2.5, 7)
    assert r.low <= r.rate <= r.high


def test_cards_never_played_are_the_playable_cards_no_seat_played():
    # Birdscaping declares statistics.played-types [bird]: its action tiles are not cards a player plays
    pack = compile_pack("birdscaping").pack
    assert pack.statistics["played-types"] == ["bird"]
    results = simulate(pack, 4, 2, 11, ["random"])
    b = analyze(pack, results, 2, 11, ["random"])
    played = {cid for r in results for seat in r.played for cid in seat}
    birds = {c.id for c in pack.cards if c.type == "bird"}
    assert {c.id for c in b.cards} == birds
    assert {c.id for c in b.never_played} == birds - played
    by_type = b.never_played_by_type()
    assert sum(never for _t, never, _n in by_type) == len(b.never_played)
    for t, never, total in by_type:
        assert t == "bird" and 0 < never <= total == len(birds)
    assert b.lengths["turns"] == [r.turns for r in results]
    # the pack declares its game-length counter (statistics.length: round)
    assert b.lengths["rounds"] == [r.shared_counters["round"] for r in results]


def test_an_expansion_inherits_the_statistics_it_does_not_redeclare():
    pack = compile_pack("earth-gaia").pack  # extends earth: played types inherited, no length counter
    assert pack.statistics == {"played-types": ["flora", "terrain", "event"], "shared-turns": True, "look-ahead": 1}
    results = simulate(pack, 2, 1, 3, ["random"])
    b = analyze(pack, results, 1, 3, ["random"])
    assert {c.type for c in b.cards} <= {"flora", "terrain", "event"}
    assert list(b.lengths) == ["turns"]


def test_seats_with_different_agents_are_not_read_as_first_player_advantage(tmp_path):
    # Agents sit in turn (random, greedy): seat 2 is always greedy, so seat rates mix seat and agent.
    pack = compile_pack("birdscaping").pack
    results = simulate(pack, 2, 2, 5, ["random", "greedy"])
    b = analyze(pack, results, 2, 5, ["random", "greedy"])
    assert b.mixed_seats and [s.label for s in b.seats] == ["seat 1 (random)", "seat 2 (greedy)"]
    assert [g.label for g in b.by_agent] == ["greedy", "random"]
    assert [g.scores for g in b.by_agent] == [tuple(r.totals[1] for r in results), tuple(r.totals[0] for r in results)]
    write_report(b, tmp_path)
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "The seats hold different agents" in html
    assert "no clear first-player advantage" not in html and "moving first is" not in html


def test_unknown_pack_is_one_line_and_exit_2(tmp_path):
    res = run("balance", "birdscapin", "-o", tmp_path / "r")
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "no pack 'birdscapin'" in lines[0] and "birdscaping" in lines[0], res.output


def test_unwritable_output_is_one_line_and_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    res = run("balance", "birdscaping", "-n", 1, "-o", blocker / "report")
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "cannot write the report" in lines[0], res.output
    assert "Traceback" not in res.output


def test_help_has_an_example():
    res = run("balance", "--help")
    assert res.exit_code == 0 and "Example" in res.output
