"""Simulation spread over processes and Dask gives the single-process results, and its statistics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.runtime.parallel import chunks, run_games
from cardsmith.runtime.simulate import card_stats, played_cards, summarize

ROOT = Path(__file__).resolve().parent.parent
VMTEST = ROOT / "tests" / "fixtures" / "packs" / "vmtest"
ARGS = ["simulate", "earth", "--games", "10", "--players", "3", "--seed", "5", "--json", "--no-progress"]


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDSMITH_CACHE", str(tmp_path / "cache"))


def run(args: list[str]) -> dict:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def single() -> dict:
    return run(ARGS)


def test_chunks_cover_every_seed_once():
    for games, jobs in ((1, 2), (10, 2), (97, 3), (1000, 4)):
        seeds = [s for first, n in chunks(7, games, jobs) for s in range(first, first + n)]
        assert seeds == list(range(7, 7 + games))


def test_jobs_give_the_same_json(single):
    assert run([*ARGS, "--jobs", "2"]) == single
    assert [g["seed"] for g in single["games"]] == list(range(5, 15))


def test_jobs_without_cache_give_the_same_json(single):
    assert run([*ARGS, "--jobs", "2", "--no-cache"]) == single


def test_run_games_in_seed_order_whatever_the_batches():
    pack = compile_pack("earth").pack
    one = run_games(pack, 7, 2, 3, ["random"])
    two = run_games(pack, 7, 2, 3, ["random"], jobs=3)
    assert [r.to_json() for r in one] == [r.to_json() for r in two]
    assert [r.played for r in one] == [r.played for r in two]


def test_progress_counts_every_game():
    pack = compile_pack("earth").pack
    done = []
    run_games(pack, 6, 2, 0, ["random"], jobs=2, progress=done.append)
    assert sum(done) == 6


def test_dask_local_cluster_gives_the_same_json(single):
    pytest.importorskip("distributed")
    assert run([*ARGS, "--backend", "dask", "--jobs", "2"]) == single


def test_dask_existing_scheduler_gives_the_same_json(single):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        assert run([*ARGS, "--scheduler", cluster.scheduler_address]) == single


def test_statistics_per_seat_agent_and_card(single):
    s = single["summary"]
    assert len(s["seats"]) == 3
    assert abs(sum(x["win_rate"] for x in s["seats"]) - 1) < 1e-3
    assert set(s["agents"]) == {"random"}
    cards = s["cards"]
    assert cards, "Earth games play cards into the tableau"
    for stats in cards.values():
        assert stats["played"]["count"] + stats["not_played"]["count"] == 30  # 10 games x 3 seats
        assert 0 <= stats["played"]["wins"] <= stats["played"]["count"]
        assert 0 <= stats["played"]["win_rate"] <= 1


def test_played_means_entered_an_in_play_zone_of_that_player():
    pack = compile_pack(VMTEST).pack
    in_play = [z for z, d in pack.zones.items() if d.get("in-play")]
    other = [z for z, d in pack.zones.items() if not d.get("in-play")]
    a, b = pack.cards[0].id, pack.cards[1].id
    events = [("move", a, other[0], -1, in_play[0], 1), ("move", b, in_play[0], 1, other[0], 0),
              ("gain", 0, "soil", 1)]
    assert played_cards(pack, events, 2) == [[], [a]]


def test_card_statistics_from_results():
    class R:
        def __init__(self, winners, played):
            self.winners, self.played, self.players = winners, played, 2
            self.totals, self.agents, self.capped, self.turns, self.decisions = [0, 0], ["a", "b"], False, 1, 1

    results = [R([0], [["x"], []]), R([1], [["x"], ["x"]]), R([0, 1], [[], ["y"]])]
    stats = card_stats(results)
    assert stats["x"]["played"] == {"count": 3, "wins": 2.0, "win_rate": 0.6667}
    assert stats["x"]["not_played"] == {"count": 3, "wins": 1.0, "win_rate": 0.3333}
    assert stats["y"]["played"] == {"count": 1, "wins": 0.5, "win_rate": 0.5}
    assert summarize(results, 2)["cards"] == stats


def test_a_worker_that_cannot_read_the_pack_reports_instead_of_hanging(tmp_path):
    # a worker whose pack does not arrive intact reports it; the pool does not restart workers forever
    from cardsmith.runtime import parallel

    parallel._init_worker(str(tmp_path), b"not a pickle")
    assert "could not be read" in parallel._process_batch((0, 1, 2, ["random"], None, None, None))
    parallel._worker_pack = None


def test_workers_given_the_compiled_pack_need_no_pack_files(tmp_path):
    # run_games sends the compiled pack: workers started in a folder without pack files play the same
    pack = compile_pack("earth").pack
    import os

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        far = run_games(pack, 6, 2, 0, ["random"], jobs=2)
    finally:
        os.chdir(here)
    near = run_games(pack, 6, 2, 0, ["random"], jobs=1)
    assert [r.to_json() for r in far] == [r.to_json() for r in near]
