"""Executors: a worker process that dies takes only its own task down; the run goes on."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from agenticvbench.executors import ProcessExecutor, SerialExecutor
from agenticvbench.results import Result


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
