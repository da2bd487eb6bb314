"""Executors run scoring jobs: in-process (serial), a local process pool, or a Dask cluster.

An executor only has to map a picklable top-level function over jobs and yield results as they finish.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, TypeVar

from agenticvbench.errors import ConfigError
from agenticvbench.results import Result, lost_result

J = TypeVar("J")
R = TypeVar("R")


class Executor(Protocol):
    """Runs `fn` over `jobs`, yielding results in completion order."""

    def map_unordered(self, fn: Callable[[Any], Any], jobs: list[Any]) -> Iterator[Any]:
        """Yield `fn(job)` for every job, as each finishes."""
        ...

    def close(self) -> None:
        """Release workers."""
        ...


class SerialExecutor:
    """Runs jobs one by one in this process (`--jobs 1`; easiest to debug)."""

    def map_unordered(self, fn: Callable[[J], R], jobs: list[J]) -> Iterator[R]:
        """Yield results in job order."""
        for job in jobs:
            yield fn(job)

    def close(self) -> None:
        """Nothing to release."""


PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_POLL_S = 0.5


def _watch_parent(parent_pid: int) -> None:
    """Exit this worker as soon as its parent is gone (the parent's pid is no longer our parent's)."""
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent_pid:
            os._exit(1)


def worker_init(parent_pid: int) -> None:
    """Pool worker initializer: never outlive the `avb verify` process that started this worker.

    On Linux the kernel sends SIGKILL to the worker when its parent dies, whatever killed the parent (even
    SIGKILL); everywhere, a daemon thread polls `os.getppid()` every 0.5 s as a second guard. Results are written
    atomically, so a worker killed mid-task leaves no torn file.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no libc symbol: the watchdog still guards
            pass
    if os.getppid() != parent_pid:  # the parent died before the death signal was armed
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="avb-parent-watchdog", daemon=True).start()


class ProcessExecutor:
    """A local process pool; at most `2 * workers` jobs are in flight so memory stays bounded.

    If a worker process dies (a crash in a native decoder, the OOM killer), every job in flight fails with it and
    nobody knows which one did it. The pool is restarted and those jobs are rerun one at a time: a job that kills
    its worker while running alone is the culprit and ends as an `error` result; the others score normally.
    Workers exit within a second when this process dies, even by SIGKILL (`worker_init`).
    """

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.workers, initializer=worker_init, initargs=(os.getpid(),))

    def _restart(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def map_unordered(self, fn: Callable[[Any], Result], jobs: list[Any]) -> Iterator[Result]:
        """Submit jobs with a bounded window and yield results as they complete."""
        pending: dict[Future[Result], Any] = {}
        suspects: list[Any] = []  # jobs in flight when a worker died: rerun alone
        queue = iter(jobs)

        def refill() -> None:
            if suspects:
                if not pending:
                    job = suspects.pop(0)
                    pending[self._pool.submit(fn, job)] = job
                return
            while len(pending) < 2 * self.workers and (job := next(queue, None)) is not None:
                pending[self._pool.submit(fn, job)] = job

        refill()
        while pending:
            alone = len(pending) == 1  # a job that breaks the pool while alone is the culprit
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                job = pending.pop(fut)
                try:
                    yield fut.result()
                except BrokenProcessPool as exc:
                    broken = True
                    if alone:
                        yield lost_result(job, exc)
                    else:
                        suspects.append(job)
                except Exception as exc:  # score_job never raises; this is pickling or the like
                    yield lost_result(job, exc)
            if broken:
                suspects.extend(pending.values())
                pending.clear()
                self._restart()
            refill()

    def close(self) -> None:
        """Shut the pool down, cancelling jobs not yet started."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def default_jobs() -> int:
    """Default parallelism: the number of CPU cores available to this process."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def make_executor(name: str = "process", jobs: int | None = None, scheduler: str | None = None) -> Executor:
    """Build an executor by name: `process` (serial when jobs == 1) or `dask` (needs a scheduler address)."""
    if name == "dask":
        from agenticvbench.dask_executor import DaskExecutor

        if not scheduler:
            raise ConfigError("--executor dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
        return DaskExecutor(scheduler)
    if name != "process":
        raise ConfigError(f"unknown executor {name!r} (process or dask)")
    n = jobs or default_jobs()
    return SerialExecutor() if n == 1 else ProcessExecutor(n)
