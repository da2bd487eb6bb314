"""Score on a Dask cluster: `avb verify RUN... --executor dask --scheduler tcp://HOST:8786`.

Requirements on the cluster (the engine ships only small job descriptions, never media):

- **Shared filesystem.** Every worker must see the run directories at the same absolute paths the client
  sees, because workers read the submissions and write `RUN/avb-results/<task_id>.json` themselves (atomic
  writes, so a lost worker never leaves a torn file). The dataset must be reachable the same way: a local
  mirror on the shared filesystem, or the Hub with a shared `--cache-dir` (otherwise each worker downloads
  the media into its own cache).
- **Same result key.** Workers sign the results they write, and check the signature of a result before reusing
  it, with the key file the client resolved (`--key-file`, `$AVB_RESULT_KEY_FILE` or the client's package cache).
  Jobs carry only that file's path and the key's id, never the secret, so the file must be readable at the same
  path on every worker (shared filesystem). A worker that cannot read it, or reads another key, writes unsigned
  results with a warning; they are rescored by the next run (see `agenticvbench.results.signing`).
- **Same software.** Workers need the same `agenticvbench` version (and `verifiers` package) installed; jobs
  and results are pickled, and the result's provenance records the worker's library versions.
- **Memory allocator.** Dask's nanny starts workers with `MALLOC_TRIM_THRESHOLD_=65536`, which made glibc
  map and zero every decoded frame afresh (repair scoring 2.3x slower, mostly system time). Each job first
  restores glibc's reuse of frame-sized buffers (`agenticvbench.scoring.allocator`), so nothing needs configuring.
- **One thread per worker process** is recommended (`dask worker --nthreads 1 --nworkers N`): decoders and
  SSIM are CPU-bound and some release the GIL only partly. Verifiers that start their own processes (repair
  edit chunks) need non-daemonic workers: `dask worker --no-nanny` or the config
  `distributed.worker.daemon: false`.

Results stream back as each task finishes. If a worker dies or a job cannot be run, that task becomes an `error`
result (not written to disk, so the next `avb verify` retries it) instead of aborting the run:

- a job that ends in `KilledWorker` (its workers kept dying) is submitted once more, alone, after the other
  jobs have finished, before it is blamed, so an honest task that only shared a worker with a submission that kills it is scored;
- a job that runs past the per-task deadline (`task_deadline.task_deadline`) is cancelled and is an `error`; its
  worker is restarted when it has a nanny (a thread cannot be stopped otherwise, so without a nanny that worker
  stays busy and the other workers carry on);
- when the cluster has had no worker for `NO_WORKER_GRACE_S` (a `--no-nanny` worker that died is not
  replaced), the remaining jobs are `error`s instead of waiting forever.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from agenticvbench.errors import ConfigError
from agenticvbench.results.model import Result, lost_result
from agenticvbench.scoring.memory_cap import CappedCall, task_memory_mb
from agenticvbench.scoring.task_deadline import deadline_result, task_deadline

NO_WORKER_GRACE_S = 60.0
_POLL_S = 1.0


class DaskExecutor:
    """Runs scoring jobs on a Dask cluster through `distributed.Client` (see the module docstring).

    `scheduler` is a scheduler address (`tcp://host:8786`), an existing `distributed.Client` (left open on
    `close()`), or None to start a private local cluster (closed on `close()`).
    """

    def __init__(
        self, scheduler: Any = None, timeout: float | None = None, memory_mb: int | None = None
    ) -> None:
        from distributed import Client

        self.timeout = task_deadline(timeout)
        self.memory_mb = task_memory_mb(memory_mb)
        self.no_worker_grace = NO_WORKER_GRACE_S
        self._own = not isinstance(scheduler, Client)
        if isinstance(scheduler, Client):
            self.client = scheduler
        elif scheduler is None:
            self.client = Client(processes=True, threads_per_worker=1)
        else:
            try:
                self.client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None

    def map_unordered(self, fn: Callable[[Any], Result], jobs: list[Any]) -> Iterator[Result]:
        """Submit every job (`pure=False`: each is scored, never deduplicated) and yield results as they finish."""
        from distributed import wait

        if not jobs:
            return
        task = _OnWorker(fn, self.memory_mb)
        futures = self.client.map(task, jobs, pure=False)
        job_of = {fut.key: job for fut, job in zip(futures, jobs, strict=True)}
        pending = {fut.key: fut for fut in futures}
        retried: set[int] = set()
        suspects: list[Any] = []  # KilledWorker jobs, rerun one at a time once nothing else runs
        started: dict[str, float] = {}
        no_worker_since: float | None = None
        try:
            while pending or suspects:
                if not pending:
                    job = suspects.pop(0)
                    again = self.client.submit(task, job, pure=False)
                    job_of[again.key] = job
                    pending[again.key] = again
                try:
                    done, _ = wait(list(pending.values()), timeout=_POLL_S, return_when="FIRST_COMPLETED")
                except TimeoutError:  # nothing finished within the poll interval
                    done = set()
                for fut in done:
                    del pending[fut.key]
                    job = job_of[fut.key]
                    try:
                        result = fut.result()
                    except Exception as exc:  # a lost worker or a failed task must not abort the whole run
                        if type(exc).__name__ == "KilledWorker" and id(job) not in retried:
                            retried.add(id(job))  # maybe only a neighbour of the culprit: once more, alone
                            suspects.append(job)
                            continue
                        result = lost_result(job, exc)
                    finally:
                        fut.release()
                    yield result
                if done or not pending:
                    continue
                now = time.monotonic()
                yield from self._late(pending, job_of, started, now)
                workers = self.client.scheduler_info().get("workers", {})
                no_worker_since = None if workers else (no_worker_since or now)
                if no_worker_since is not None and now - no_worker_since > self.no_worker_grace:
                    gone = RuntimeError(
                        f"no Dask worker for {self.no_worker_grace:g} s (a worker died and none replaced it)"
                    )
                    self.client.cancel(list(pending.values()))
                    for key in list(pending):
                        yield lost_result(job_of[key], gone)
                    for job in suspects:
                        yield lost_result(job, gone)
                    pending.clear()
                    suspects.clear()
        finally:
            if pending:  # interrupted (Ctrl-C, consumer stopped): cancel what has not run yet
                self.client.cancel(list(pending.values()))

    def _late(
        self, pending: dict[Any, Any], job_of: dict[Any, Any], started: dict[Any, float], now: float
    ) -> Iterator[Result]:
        """Cancel and report the jobs that have been processing longer than the deadline; restart their workers
        (when they have a nanny)."""
        try:
            executing = self.client.run(_executing_keys)  # what each worker runs now, not what it has queued
        except Exception:  # noqa: BLE001 - a worker went away while asked: check again at the next poll
            return
        where = {key: w for w, keys in executing.items() for key in keys}
        for key in where:
            started.setdefault(key, now)
        late = [key for key in list(pending) if key in where and now - started[key] > self.timeout]
        for key in [k for k in started if k not in where]:
            del started[key]  # finished, or moved to another worker: its clock starts again there
        if not late:
            return
        self.client.cancel([pending[k] for k in late])
        try:
            self.client.restart_workers(sorted({where[k] for k in late}), timeout=60, raise_for_error=False)
        except Exception:  # noqa: BLE001 - no nanny: the thread cannot be stopped, the other workers carry on
            pass
        for key in late:
            del pending[key]
            yield deadline_result(job_of[key], self.timeout)

    def close(self) -> None:
        """Close the client (and its local cluster) if this executor created it."""
        if self._own:
            cluster = getattr(self.client, "cluster", None)
            self.client.close()
            if cluster is not None:
                cluster.close()


def _executing_keys(dask_worker: Any) -> list[str]:
    """The keys of the tasks this worker is executing right now (run on each worker by `Client.run`)."""
    return [str(ts.key) for ts in getattr(dask_worker.state, "executing", ())]


class _OnWorker(CappedCall):
    """`fn` run on a Dask worker after restoring glibc's reuse of frame-sized buffers (see `allocator`: the
    nanny's `MALLOC_TRIM_THRESHOLD_` made repair scoring 2.3x slower), under the per-task memory cap
    (`memory_cap`; it limits the worker process, so run one thread per worker). Picklable: workers import this
    module."""

    def __call__(self, job: Any) -> Any:
        from agenticvbench.scoring.allocator import reuse_frame_buffers

        reuse_frame_buffers()
        return super().__call__(job)
