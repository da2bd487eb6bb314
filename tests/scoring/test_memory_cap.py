"""The per-task memory cap: a task that allocates past it is an `error` naming the cap, the others score."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from agenticvbench.errors import ConfigError
from agenticvbench.scoring import engine
from agenticvbench.scoring.engine import verify_run
from agenticvbench.scoring.memory_cap import DEFAULT_TASK_MEMORY_MB, memory_cap, task_memory_mb

GREEDY_TASK = 37


class Greedy:
    """A verifier that allocates far past the cap for one task (`how`), and is the real one otherwise."""

    def __init__(self, real: Any, how: str) -> None:
        self.real, self.how = real, how
        self.version = real.version

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def verify(self, task: Any, submission: Any, ctx: Any) -> Any:
        if task.task_id == GREEDY_TASK:
            if self.how == "at once":
                np.ones(8 << 30, np.uint8)  # 8 GiB in one request: refused under the cap
            else:  # grows until refused, holds it a moment, swallows the error and scores anyway
                held = []
                try:
                    while True:
                        held.append(np.ones(32 << 20, np.uint8))
                except MemoryError:
                    time.sleep(0.2)
                del held
        return self.real.verify(task, submission, ctx)


def _greedy(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    real = engine.get_verifier
    monkeypatch.setattr(engine, "get_verifier", lambda family: Greedy(real(family), how))


def test_the_setting_is_checked(monkeypatch):
    """Default, 0 (off), and a one-line ConfigError for text, fractions, negatives, inf and nan."""
    monkeypatch.delenv("AVB_TASK_MEMORY_MB", raising=False)
    assert task_memory_mb() == DEFAULT_TASK_MEMORY_MB and task_memory_mb(0) == 0
    for bad in ("lots", "1.5", "-1", "inf", "nan", "1e300"):
        monkeypatch.setenv("AVB_TASK_MEMORY_MB", bad)
        with pytest.raises(ConfigError, match="AVB_TASK_MEMORY_MB"):
            task_memory_mb()
    with pytest.raises(ConfigError):
        task_memory_mb(float("inf"))


def test_the_cap_limits_growth_and_is_lifted_after():
    """Inside the cap an allocation past it fails with MemoryError; after it the same allocation succeeds."""
    with memory_cap(256) as held:
        assert held
        with pytest.raises(MemoryError):
            np.ones(1 << 30, np.uint8)
    assert np.ones(300 << 20, np.uint8)[-1] == 1  # over the 256 MiB of the cap, which is lifted


@pytest.mark.parametrize(("jobs", "how"), [(1, "at once"), (1, "swallowed"), (2, "at once")])
def test_a_task_over_the_cap_is_an_error_naming_it(demo, tmp_path, monkeypatch, jobs, how):
    """Before the cap a verifier that allocated without bound took the whole machine (or the OOM killer took
    the run). Now, serially and in the process pool, that task is an `error` naming the cap, also when the
    verifier caught the failed allocation and went on to a score; every other task scores."""
    _greedy(monkeypatch, how)
    monkeypatch.setenv("AVB_TASK_MEMORY_MB", "512")
    s = verify_run(demo.runs["perfect"], dataset=demo.mirror, task_ids=[37, 38, 83], jobs=jobs, out=tmp_path)
    by = {r.task_id: r for r in s.results}
    assert by[GREEDY_TASK].status == "error" and "memory cap of 512 MiB" in by[GREEDY_TASK].reason, by[
        37
    ].reason
    assert by[38].status == "scored" and by[83].status == "scored"


def test_dask_jobs_run_under_the_cap():
    """The Dask wrapper applies the same cap around each job (its worker process is limited while it runs)."""
    from agenticvbench.scoring.dask_executor import _OnWorker

    with pytest.raises(MemoryError):
        _OnWorker(lambda job: np.ones(1 << 30, np.uint8), 256)(None)
    assert _OnWorker(lambda job: job + 1, 256)(1) == 2
