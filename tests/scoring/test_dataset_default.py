"""The Python API honours `$AVB_DATASET` as the CLI does: `verify_run` and `baselines` without `dataset=` used to
score against the built-in Hub id (unreachable offline) even when the user had pointed `AVB_DATASET` at a mirror."""

from __future__ import annotations

import inspect
import shutil
from pathlib import Path

import pytest

from agenticvbench.baselines.run import baselines
from agenticvbench.scoring.engine import verify_run


def test_verify_run_without_dataset_reads_avb_dataset(demo, tmp_path: Path, monkeypatch) -> None:
    """With `AVB_DATASET` set to the demo mirror, `verify_run(run)` scores against it (the result's provenance
    names the mirror), exactly as `avb verify run` does."""
    run = tmp_path / "run"
    shutil.copytree(demo.runs["perfect"], run)
    monkeypatch.setenv("AVB_DATASET", str(demo.mirror))
    summary = verify_run(run, task_ids=[37], jobs=1, cache_dir=tmp_path / "cache")
    (result,) = summary.results
    assert result.status == "scored"
    assert str(demo.mirror) in str(result.provenance["dataset"])


@pytest.mark.parametrize("fn", [verify_run, baselines])
def test_api_dataset_default_is_the_environment(fn) -> None:
    """Neither entry point bakes the Hub id into its signature: None means `$AVB_DATASET`, else the Hub id."""
    assert inspect.signature(fn).parameters["dataset"].default is None
