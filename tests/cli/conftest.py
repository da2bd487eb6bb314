"""Fixtures for CLI tests that score for real: a tiny sequencing-only mirror and run directories (fast: no media)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

#: task id -> correct clip order of the tiny mirror
ORDERS = {37: ["1", "2", "3"], 38: ["3", "1", "2"], 39: ["2", "3", "1"]}


@pytest.fixture
def seq_mirror(tmp_path: Path) -> Path:
    """A local mirror with three sequencing tasks and one repair task (with a verifier-only source)."""
    root = tmp_path / "mirror"
    (root / "data").mkdir(parents=True)
    ids = sorted(ORDERS)
    rows = {
        "task_id": [*ids, 65],
        "task_family": ["sequencing"] * len(ids) + ["repair"],
        "prompt": [f"Order the clips of task {i}." for i in ids] + ["Fix the video."],
        "reference_file_urls": [[] for _ in ids] + [["repair/materials/65/broken.mp4"]],
        "verifier_reference_urls": [None for _ in ids] + [["repair/sources/v1_source.mp4"]],
        "rubric_json": [json.dumps({"correct_order": ORDERS[i], "n_slots": 3}) for i in ids]
        + [json.dumps({"cell": "v1/s1"})],
    }
    pq.write_table(pa.table(rows), root / "data" / "train-00000-of-00001.parquet")
    for rel in ("repair/materials/65/broken.mp4", "repair/sources/v1_source.mp4"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"not really a video")
    return root


def write_solution(folder: Path, order: list[str]) -> None:
    """A sequencing solution.json placing `order` one clip per second."""
    folder.mkdir(parents=True, exist_ok=True)
    segs = [{"output": [k, k + 1], "source": clip, "source_range": [0, 1]} for k, clip in enumerate(order)]
    (folder / "solution.json").write_text(json.dumps({"segments": segs}), encoding="utf-8")


@pytest.fixture
def seq_run(tmp_path: Path) -> Callable[..., Path]:
    """Make a run directory: {task_id: order} solutions, optional run.json."""

    def _make(name: str, solutions: dict[int, list[str]], meta: dict | None = None) -> Path:
        run = tmp_path / "runs" / name
        run.mkdir(parents=True, exist_ok=True)
        for tid, order in solutions.items():
            write_solution(run / str(tid), order)
        if meta is not None:
            (run / "run.json").write_text(json.dumps(meta), encoding="utf-8")
        return run

    return _make
