"""A run is the folder its results are read from, whatever path the result files recorded."""

from __future__ import annotations

import shutil

from agenticvbench.report import load_comparison
from agenticvbench.results.model import Result, write_result


def test_copied_run_directory_is_a_run_of_its_own(tmp_path):
    """Regression: a copied run kept the original's recorded path, so two folders merged into one run."""
    a = tmp_path / "rep1"
    for tid in (37, 38):
        write_result(
            a / "avb-results",
            Result(
                task_id=tid,
                family="sequencing",
                status="scored",
                headline_score=0.5,
                run={"path": str(a), "harness": "h", "model": "m", "rep": 1},
            ),
        )
    b = tmp_path / "rep2"
    shutil.copytree(a, b)
    results = load_comparison([a, b])
    assert len(results) == 4
    assert {r.run["path"] for r in results} == {str(a.resolve()), str(b.resolve())}
    assert {r.run.get("recorded_path") for r in results if r.run["path"] == str(b.resolve())} == {str(a)}
