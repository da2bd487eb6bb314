"""Executors run scoring jobs: in-process (serial), a local process pool, or a Dask cluster.

An executor only has to map a picklable top-level function over jobs and yield results as they finish.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Protocol, TypeVar

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


class ProcessExecutor:
    """A local process pool; at most `2 * workers` jobs are in flight so memory stays bounded."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool = ProcessPoolExecutor(max_workers=self.workers)

    def map_unordered(self, fn: Callable[[J], R], jobs: list[J]) -> Iterator[R]:
        """Submit jobs with a bounded window and yield results as they complete."""
        pending: set[Future[R]] = set()
        queue = iter(jobs)
        for job in queue:
            pending.add(self._pool.submit(fn, job))
            if len(pending) >= 2 * self.workers:
                break
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield fut.result()
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(self._pool.submit(fn, nxt))

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
            raise ValueError("--executor dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
        return DaskExecutor(scheduler)
    if name != "process":
        raise ValueError(f"unknown executor {name!r} (process or dask)")
    n = jobs or default_jobs()
    return SerialExecutor() if n == 1 else ProcessExecutor(n)
