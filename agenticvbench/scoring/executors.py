"""Executors run scoring jobs: in-process (serial), a local process pool, or a Dask cluster.

An executor only has to map a picklable top-level function over jobs and yield results as they finish.

Every local executor enforces a per-task deadline (`task_deadline`: `verify_run(task_timeout=)`, `avb verify
--task-timeout S`, `$AVB_TASK_TIMEOUT_S`, default 7200 s). A task past it ends as an `error` result that is not
written (the next run retries it): in-process by a `SIGALRM` that raises `TaskDeadline` (a `BaseException`, so no
verifier's `except Exception` can turn it into a failed check), in the pool by killing the stalled worker's pool
and resubmitting the other tasks that were in flight.

Every executor also caps the memory each task may allocate (`memory_cap`: `make_executor(memory_mb=)`,
`$AVB_TASK_MEMORY_MB`, default 6144 MiB): a task over it is an `error` naming the cap, the others score.
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
from agenticvbench.results.model import Result, lost_result
from agenticvbench.scoring.memory_cap import CappedCall, task_memory_mb
from agenticvbench.scoring.task_deadline import TaskDeadline, deadline_result, task_deadline

J = TypeVar("J")
R = TypeVar("R")
_POLL_S = 1.0


def _died(job: Any, exc: BaseException, cap_mb: int) -> Result:
    """The `error` of a job whose worker died while it ran alone, naming the memory cap when one was set (a
    native allocator that cannot report failure aborts the process instead)."""
    result = lost_result(job, exc)
    if cap_mb:
        result.reason += f"; it may have gone over its memory cap of {cap_mb} MiB ($AVB_TASK_MEMORY_MB)"
    return result


class Executor(Protocol):
    """Runs `fn` over `jobs`, yielding results in completion order."""

    def map_unordered(self, fn: Callable[[Any], Any], jobs: list[Any]) -> Iterator[Any]:
        """Yield `fn(job)` for every job, as each finishes."""
        ...

    def close(self) -> None:
        """Release workers."""
        ...


class SerialExecutor:
    """Runs jobs one by one in this process (`--jobs 1`; easiest to debug), each under the deadline (main thread
    only: signals cannot interrupt other threads)."""

    def __init__(self, timeout: float | None = None, memory_mb: int | None = None) -> None:
        self.timeout = task_deadline(timeout)
        self.memory_mb = task_memory_mb(memory_mb)

    def map_unordered(self, fn: Callable[[J], R], jobs: list[J]) -> Iterator[R]:
        """Yield results in job order."""
        armed = threading.current_thread() is threading.main_thread()
        capped = CappedCall(fn, self.memory_mb)
        for job in jobs:
            yield self._one(capped, job) if armed else capped(job)  # type: ignore[misc]

    def _one(self, fn: Callable[[J], R], job: J) -> R | Result:
        def alarm(signum: int, frame: Any) -> None:
            raise TaskDeadline

        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            return fn(job)
        except TaskDeadline:
            return deadline_result(job, self.timeout)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

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
    threading.Thread(
        target=_watch_parent, args=(parent_pid,), name="avb-parent-watchdog", daemon=True
    ).start()


class ProcessExecutor:
    """A local process pool; at most `2 * workers` jobs are in flight so memory stays bounded.

    If a worker process dies (a crash in a native decoder, the OOM killer), every job in flight fails with it and
    nobody knows which one did it. The pool is restarted and those jobs are rerun one at a time: a job that kills
    its worker while running alone is the culprit and ends as an `error` result; the others score normally.
    Workers exit within a second when this process dies, even by SIGKILL (`worker_init`).
    """

    def __init__(self, workers: int, timeout: float | None = None, memory_mb: int | None = None) -> None:
        self.workers = max(1, workers)
        self.timeout = task_deadline(timeout)
        self.memory_mb = task_memory_mb(memory_mb)
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.workers, initializer=worker_init, initargs=(os.getpid(),))

    def _restart(self, kill: bool = False) -> None:
        if kill:  # a stalled worker never returns: end every worker of this pool
            for proc in list(getattr(self._pool, "_processes", {}).values()):
                proc.kill()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def map_unordered(self, fn: Callable[[Any], Result], jobs: list[Any]) -> Iterator[Result]:
        """Submit jobs with a bounded window and yield results as they complete."""
        fn = CappedCall(fn, self.memory_mb)
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

        started: dict[Future[Result], float] = {}
        refill()
        while pending:
            alone = len(pending) == 1  # a job that breaks the pool while alone is the culprit
            done, _ = wait(list(pending), timeout=_POLL_S, return_when=FIRST_COMPLETED)
            now = time.monotonic()
            for fut in pending:
                if fut not in started and fut.running():
                    started[fut] = now
            late = [] if done else [f for f in pending if now - started.get(f, now) > self.timeout]
            if late:
                for fut in late:
                    yield deadline_result(pending.pop(fut), self.timeout)
                queue = iter([*pending.values(), *queue])  # the others were only unlucky: run them again
                pending.clear()
                started.clear()
                self._restart(kill=True)
                refill()
                continue
            broken = False
            for fut in done:
                job = pending.pop(fut)
                try:
                    yield fut.result()
                except BrokenProcessPool as exc:
                    broken = True
                    if alone:
                        yield _died(job, exc, self.memory_mb)
                    else:
                        suspects.append(job)
                except Exception as exc:  # score_job never raises; this is pickling or the like
                    yield lost_result(job, exc)
            if broken:
                suspects.extend(pending.values())
                pending.clear()
                started.clear()
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


def make_executor(
    name: str = "process",
    jobs: int | None = None,
    scheduler: str | None = None,
    timeout: float | None = None,
    memory_mb: int | None = None,
) -> Executor:
    """Build an executor by name: `process` (serial when jobs == 1) or `dask` (needs a scheduler address);
    `timeout` is the per-task deadline (`task_deadline`), `memory_mb` the per-task memory cap (`memory_cap`)."""
    if name == "dask":
        from agenticvbench.scoring.dask_executor import DaskExecutor

        if not scheduler:
            raise ConfigError("--executor dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
        return DaskExecutor(scheduler, timeout, memory_mb)
    if name != "process":
        raise ConfigError(f"unknown executor {name!r} (process or dask)")
    n = jobs or default_jobs()
    return SerialExecutor(timeout, memory_mb) if n == 1 else ProcessExecutor(n, timeout, memory_mb)
