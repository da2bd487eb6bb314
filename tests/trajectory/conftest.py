"""The audit context the rule tests share: four tasks, a local mirror, a cache and two runs under tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest
from traj_logs import REPO

from agenticvbench.trajectory.context import AuditContext


@pytest.fixture
def ctx(tmp_path: Path) -> AuditContext:
    """Tasks 1 (recap, a Hub URL input), 37 and 38 (sequencing zips) and 65 (repair, a verifier-only source); a
    local mirror, a cache and two runs under tmp_path."""
    return AuditContext(
        repos=frozenset({REPO.lower()}),
        inputs={
            1: ("recap/materials/1/film.mp4",),
            37: ("sequencing/materials/37.zip",),
            38: ("sequencing/materials/38.zip",),
            65: ("repair/materials/65/broken.mp4",),
        },
        hosts={t: frozenset({"huggingface.co", "hf.co"}) for t in (1, 37, 38, 65)},
        references=frozenset({"repair/sources/demo1_source.mp4"}),
        dataset_root=str(tmp_path / "mirror"),
        parquet=None,
        cache_dir=str(tmp_path / "cache"),
        runs=(str(tmp_path / "runs" / "a"), str(tmp_path / "runs" / "b")),
        env={"HOME": "/home/u", "AVB_CACHE": str(tmp_path / "cache")},
    )
