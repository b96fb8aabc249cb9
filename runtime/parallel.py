"""Seeded games spread over processes or a Dask cluster, with the results of a single process.

Game i always uses seed `seed + i` and depends on nothing else, so a game plays the same in
any worker; results are returned in seed order whatever the number of workers or the order in
which they finish.

- `backend="processes"`: this process and a pool of `jobs - 1` worker processes (forkserver where
  the platform has it, else spawn: never fork, which would copy a running parent). Each worker
  receives the compiled pack (pickled) when it starts; this process plays meanwhile.
- `backend="dask"`: an existing Dask distributed cluster (`scheduler="tcp://host:8786"`), or a
  local one (distributed.LocalCluster with `jobs` single-threaded worker processes). The
  compiled pack is sent to the workers (they need not have the pack's files), once per worker.
  Needs the optional extra: pip install 'cardsmith[dask]'.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import pickle
from collections import deque
from collections.abc import Callable

from cardsmith.bytecode import CompiledPack

from .game import GameResult
from .simulate import play_one, simulate
from .vm import RuntimeFault

BACKENDS = ("processes", "dask")


class GameFault(Exception):
    """A game failed in a worker (a RuntimeFault there); carries the worker's message."""


def chunks(seed: int, games: int, jobs: int, size: int | None = None) -> list[tuple[int, int]]:
    """(first seed, count) batches: small enough to balance the load and move the progress bar,
    large enough that sending them costs little."""
    if size is None:
        size = max(1, min(25, games // (jobs * 8)))
    return [(seed + i, min(size, games - i)) for i in range(0, games, size)]


def guided_chunks(seed: int, games: int, jobs: int) -> list[tuple[int, int]]:
    """(first seed, count) batches that shrink as the work runs out (guided self-scheduling): large
    first, so sending them costs little; small last, so nobody waits long for the last batch."""
    out, i = [], 0
    while i < games:
        size = max(1, min(25, (games - i) // (jobs * 6)))
        out.append((seed + i, min(size, games - i)))
        i += size
    return out


def _play_batch(pack: CompiledPack, first: int, count: int, players: int, agents: list[str], params,
                max_decisions, log_dir) -> list[GameResult] | str:
    try:
        return [play_one(pack, players, s, agents, params, max_decisions, log_dir)
                for s in range(first, first + count)]
    except RuntimeFault as e:  # its constructor's arguments do not survive pickling: send the text
        return f"seed {first}..{first + count - 1}: {e}"


# ------------------------------------------------------------------ processes
_worker_pack: CompiledPack | str | None = None  # the pack, or why it could not be read


def _init_worker(cwd: str, blob: bytes) -> None:
    global _worker_pack
    os.chdir(cwd)  # spans name files relative to the working directory, as in the parent
    try:
        _worker_pack = pickle.loads(blob)  # the parent's compiled pack: no compiler, no files to read
    except Exception as e:  # an initializer must not raise: the pool would start workers forever
        _worker_pack = f"the compiled pack could not be read in a worker: {type(e).__name__}: {e}"


def _process_batch(task: tuple) -> list[GameResult] | str:
    if not isinstance(_worker_pack, CompiledPack):
        return str(_worker_pack)
    return _play_batch(_worker_pack, *task)


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def run_processes(pack: CompiledPack, games: int, players: int, seed: int, agents: list[str], params: dict | None,
                  max_decisions: int | None, jobs: int, progress: Callable[[int], None] | None = None,
                  log_dir: str | None = None) -> list[GameResult]:
    """`jobs` processes play: `jobs - 1` workers, and this process too — it plays batches while the
    workers start, so their start-up costs no idle core. Batches go out a few at a time, so whoever
    is free takes the next one."""
    tasks = [(first, count, players, agents, params, max_decisions, log_dir)
             for first, count in guided_chunks(seed, games, jobs)]
    out: dict[int, list[GameResult]] = {}

    def done(batch: list[GameResult] | str) -> None:
        if isinstance(batch, str):
            raise GameFault(batch)
        out[batch[0].seed] = batch
        if progress:
            progress(len(batch))

    workers = max(1, min(jobs - 1, len(tasks)))
    init = (os.getcwd(), pickle.dumps(pack, protocol=pickle.HIGHEST_PROTOCOL))
    with _context().Pool(workers, initializer=_init_worker, initargs=init) as pool:
        pending: list = []
        todo = deque(tasks)
        try:
            while todo:
                for r in [r for r in pending if r.ready()]:
                    pending.remove(r)
                    done(r.get())
                if len(pending) < 2 * workers:  # each worker: one batch running, one waiting
                    pending.append(pool.apply_async(_process_batch, (todo.popleft(),)))
                else:  # the workers are busy (or still starting): play one here
                    done(_play_batch(pack, *todo.popleft()))
            for r in pending:
                done(r.get())
        except BaseException:
            pool.terminate()
            raise
    return [r for first in sorted(out) for r in out[first]]


# ------------------------------------------------------------------ dask
_dask_packs: dict[str, CompiledPack] = {}


def _dask_batch(pack_blob: bytes, digest: str, task: tuple) -> list[GameResult] | str:
    pack = _dask_packs.get(digest)
    if pack is None:  # once per worker process
        pack = _dask_packs[digest] = pickle.loads(pack_blob)
    return _play_batch(pack, *task)


def run_dask(pack: CompiledPack, games: int, players: int, seed: int, agents: list[str], params: dict | None,
             max_decisions: int | None, jobs: int, scheduler: str | None = None,
             progress: Callable[[int], None] | None = None, log_dir: str | None = None) -> list[GameResult]:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:  # pragma: no cover - depends on the extra
        raise RuntimeError("the dask backend needs Dask: pip install 'cardsmith[dask]'") from None
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        blob = pickle.dumps(pack, protocol=pickle.HIGHEST_PROTOCOL)
        digest = hashlib.sha256(blob).hexdigest()
        [blob_future] = client.scatter([blob], broadcast=True)
        nworkers = max(1, len(client.scheduler_info().get("workers", {})) or jobs)
        futures = [client.submit(_dask_batch, blob_future, digest, (first, count, players, agents, params,
                                                                    max_decisions, log_dir), pure=False)
                   for first, count in chunks(seed, games, nworkers)]
        out: dict[int, list[GameResult]] = {}
        for fut in as_completed(futures):
            batch = fut.result()
            if isinstance(batch, str):
                client.cancel(futures)
                raise GameFault(batch)
            out[batch[0].seed] = batch
            if progress:
                progress(len(batch))
        return [r for first in sorted(out) for r in out[first]]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ------------------------------------------------------------------ one entry point
def run_games(pack: CompiledPack, games: int, players: int, seed: int, agents: list[str],
              params: dict | None = None, max_decisions: int | None = None, jobs: int = 1,
              backend: str = "processes", scheduler: str | None = None,
              progress: Callable[[int], None] | None = None, log_dir: str | None = None) -> list[GameResult]:
    """Play games `seed .. seed+games-1` of a compiled pack; the same list, in seed order, for any
    jobs and backend. Workers receive the compiled pack: they need neither the compiler nor the files."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if backend == "dask":
        return run_dask(pack, games, players, seed, agents, params, max_decisions, max(jobs, 1), scheduler,
                        progress, log_dir)
    if jobs <= 1 or games <= 1:
        return simulate(pack, games, players, seed, agents, params, max_decisions, progress, log_dir)
    return run_processes(pack, games, players, seed, agents, params, max_decisions, jobs, progress, log_dir)
