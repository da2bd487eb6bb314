"""Helpers shared by the hostile-submission tests: score a tampered copy of a demo run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from adversarial import AdversarialRun

from agenticvbench.demo import DemoBenchmark
from agenticvbench.engine import verify_run
from agenticvbench.summary import RunSummary


@pytest.fixture
def hostile(demo: DemoBenchmark, tmp_path: Path) -> Callable[[str], AdversarialRun]:
    """A fresh copy of a demo run (`perfect` by default) to tamper with."""
    def make(name: str = "perfect") -> AdversarialRun:
        return AdversarialRun.from_run(demo.runs[name], tmp_path / f"run-{name}")
    return make


@pytest.fixture
def score(demo: DemoBenchmark) -> Callable[..., RunSummary]:
    """Score selected tasks of a run against the demo mirror, serially."""
    def run(path: Path, ids: list[int], **kw: Any) -> RunSummary:
        return verify_run(path, dataset=demo.mirror, task_ids=ids, jobs=1, **kw)
    return run

