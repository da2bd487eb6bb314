"""Paths given by users: relative run and dataset paths become absolute; local datasets refuse revisions."""

from __future__ import annotations

import os
import time

import pytest

from agenticvbench.dataset.loader import DatasetSource
from agenticvbench.errors import DatasetError
from agenticvbench.runs.submission import open_run


def test_relative_run_dir_resolves_to_absolute_task_folders(tmp_path, monkeypatch):
    """Regression: relative task folders broke on Dask workers whose working directory differs."""
    (tmp_path / "runs" / "r" / "37").mkdir(parents=True)
    (tmp_path / "runs" / "r" / "37" / "solution.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    run = open_run("runs/r")
    os.chdir("/")
    assert run.path.is_absolute()
    assert run.submission(37).file("solution.json") is not None


def test_relative_mirror_root_is_absolute(demo, monkeypatch):
    monkeypatch.chdir(demo.mirror.parent)
    src, parquet = DatasetSource.open(demo.mirror.name)
    assert src.root is not None and src.root.is_absolute() and parquet.is_absolute()


def test_revision_on_a_local_dataset_is_refused(demo):
    """A local mirror has no revisions: silently recording one in provenance would be a lie."""
    with pytest.raises(DatasetError, match="revision"):
        DatasetSource.open(demo.mirror, revision="deadbeef")
    DatasetSource.open(demo.mirror, revision="main")  # the default is fine


def test_mistyped_local_path_fails_fast_instead_of_trying_the_hub(tmp_path, monkeypatch):
    """Regression: `runs/mirrr` (one slash) looked like a Hub id and spent ~24 s on network retries."""
    (tmp_path / "runs").mkdir()
    monkeypatch.chdir(tmp_path)
    t0 = time.perf_counter()
    with pytest.raises(DatasetError, match="no such file"):
        DatasetSource.open("runs/mirrr")
    assert time.perf_counter() - t0 < 2.0
