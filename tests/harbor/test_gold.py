"""`avb gold`: oracle submissions for the demo benchmark score 1.0 with `avb verify` wherever gold exists.

This is the user's self-check that install, dataset revision and scorer agree; if a verifier or the gold
writer drifts, a family stops scoring 1.0 here.
"""

from __future__ import annotations

import json

import pytest

from agenticvbench.cli.main import main
from agenticvbench.dataset.loader import load_tasks
from agenticvbench.harbor.gold import gold_output
from agenticvbench.results.model import iter_results
from agenticvbench.scoring.engine import verify_run
from agenticvbench.verifiers.recap.harbor import NO_GOLD
from agenticvbench.verifiers.repair.report_grammar import parse_timestamp, seconds_text


@pytest.mark.slow
def test_gold_run_scores_one_on_every_task_with_gold(demo, tmp_path, capsys):
    """`avb gold` writes sequencing, assembly and repair outputs, lists recap as having none, and each written
    task verifies at 1.0 (the official headline; exactly, except repair's float edit term within 1e-5)."""
    run = tmp_path / "gold"
    assert main(["gold", "--out", str(run), "--dataset", str(demo.mirror)]) == 0
    err = capsys.readouterr().err
    assert "no gold output for 2 tasks (1,2)" in err and NO_GOLD in err
    assert sorted(int(p.name) for p in run.iterdir() if p.is_dir()) == [37, 38, 65, 66, 67, 83, 84]
    assert json.loads((run / "run.json").read_text())["harness"] == "gold"
    summary = verify_run([run], dataset=str(demo.mirror), jobs=2)
    assert summary.n_errors == 0
    results = {r.task_id: r for r in iter_results(run)}
    for tid in (37, 38, 65, 66, 67, 83, 84):
        assert results[tid].status == "scored", (tid, results[tid].reason)
        # repair's edit term compares decoded frames in floating point: identical videos land within 1e-5
        tol = 1e-5 if results[tid].family == "repair" else 0.0
        assert abs(results[tid].headline_score - 1.0) <= tol, (tid, results[tid].headline_score)
    assert {results[t].status for t in (1, 2)} == {"missing"}


def test_gold_report_times_parse_back_exactly():
    """Report times are written in the bare seconds form the official grammar parses, without loss: an
    exponent (`1e-05`) would not parse and a rounded value would cost localisation points."""
    for t in (0.0, 4.4, 1e-05, 123.456789012345, 7.2):
        text = seconds_text(t)
        assert "e" not in text.lower()
        assert parse_timestamp(text) == t


def test_gold_for_recap_is_none_and_filters_apply(demo, tmp_path):
    """Recap has no gold; `--family` restricts what is written."""
    (recap,) = load_tasks("recap", task_ids=[1], dataset=str(demo.mirror))
    assert gold_output(recap) is None
    run = tmp_path / "seq"
    assert main(["gold", "--out", str(run), "--dataset", str(demo.mirror), "--family", "sequencing"]) == 0
    assert sorted(p.name for p in run.iterdir() if p.is_dir()) == ["37", "38"]
    order = [s["source"] for s in json.loads((run / "37" / "solution.json").read_text())["segments"]]
    assert order == load_tasks("sequencing", task_ids=[37], dataset=str(demo.mirror))[0].correct_order
