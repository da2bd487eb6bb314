"""Executors: a worker process that dies takes only its own task down; the run goes on."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import pytest

from agenticvbench.results.model import Result
from agenticvbench.scoring.executors import ProcessExecutor, SerialExecutor


@dataclass
class FakeTask:
    task_id: int
    family: str = "sequencing"


@dataclass
class FakeJob:
    task: FakeTask
    run_info: dict


def work(job: FakeJob) -> Result:
    """Kills its own worker process for task 40 (as a segfaulting decoder would), else scores 1 (slowly, so that
    neighbours are in flight when the worker dies)."""
    if job.task.task_id == 40:
        os._exit(1)
    time.sleep(0.2)
    return Result(task_id=job.task.task_id, family="sequencing", status="scored", headline_score=1.0)


@pytest.mark.slow
def test_dead_worker_becomes_that_tasks_error_and_the_rest_finish():
    """Regression guard: a BrokenProcessPool used to propagate and end the whole run."""
    jobs = [FakeJob(FakeTask(t), {"path": "r"}) for t in range(37, 47)]
    ex = ProcessExecutor(2)
    try:
        results = {r.task_id: r for r in ex.map_unordered(work, jobs)}
    finally:
        ex.close()
    assert set(results) == set(range(37, 47))
    assert results[40].status == "error" and "BrokenProcessPool" in results[40].reason
    assert all(r.status == "scored" for t, r in results.items() if t != 40), "a neighbour was blamed"


def test_serial_executor_keeps_order():
    jobs = [FakeJob(FakeTask(t), {}) for t in (39, 37, 38)]
    assert [r.task_id for r in SerialExecutor().map_unordered(work, jobs)] == [39, 37, 38]


def stall(job: FakeJob) -> Result:
    """Hangs forever for task 41 (a stalled decoder), else scores 1 quickly."""
    if job.task.task_id == 41:
        while True:
            time.sleep(0.05)
    time.sleep(0.1)
    return Result(task_id=job.task.task_id, family="sequencing", status="scored", headline_score=1.0)


@pytest.mark.slow
def test_stalled_pool_worker_is_stopped_at_the_deadline_and_the_others_rerun():
    """Regression: a stalled pool worker hung the whole run (no per-task deadline)."""
    jobs = [FakeJob(FakeTask(t), {"path": "r"}) for t in range(37, 45)]
    ex = ProcessExecutor(2, timeout=2.0)
    t0 = time.monotonic()
    try:
        results = {r.task_id: r for r in ex.map_unordered(stall, jobs)}
    finally:
        ex.close()
    assert time.monotonic() - t0 < 30
    assert set(results) == set(range(37, 45))
    assert results[41].status == "error" and "deadline" in results[41].reason
    assert all(r.status == "scored" for t, r in results.items() if t != 41)


def test_serial_executor_enforces_the_deadline_too():
    """In-process scoring is interrupted by SIGALRM; the exception cannot be swallowed by `except Exception`."""

    def swallowing(job: FakeJob) -> Result:
        try:
            return stall(job)
        except Exception:  # noqa: BLE001 - what a verifier's broad except would do
            return Result(task_id=job.task.task_id, family="sequencing", status="scored", headline_score=1.0)

    jobs = [FakeJob(FakeTask(t), {"path": "r"}) for t in (41, 42)]
    results = list(SerialExecutor(timeout=1.0).map_unordered(swallowing, jobs))
    assert results[0].status == "error" and "deadline" in results[0].reason
    assert results[1].status == "scored"
