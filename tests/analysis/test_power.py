"""Power planning against independent computations: simulated t tests, the normal-approximation closed form,
and variance components recovered from simulated scores."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from agenticvbench.analysis.paired import min_detectable, t_test_power
from agenticvbench.analysis.power import (
    Components,
    Design,
    design_one_stack,
    design_two_stacks,
    reps_needed,
    tasks_needed,
)
from agenticvbench.cli.main import main
from agenticvbench.results.model import Result, write_result


def test_tasks_needed_reaches_the_power_by_simulation():
    """sd 0.3, difference 0.15: at the n returned, 20000 simulated paired t tests reject ~80% of the time; at
    n - 1 the exact power is below 0.8 (so n is the smallest)."""
    n = tasks_needed(0.3, 0.15)
    rng = np.random.default_rng(1)
    p = stats.ttest_1samp(rng.normal(0.15, 0.3, size=(20000, n)), 0.0, axis=1).pvalue
    assert float(np.mean(p < 0.05)) >= 0.79
    assert t_test_power(0.15 * math.sqrt(n - 1) / 0.3, n - 2) < 0.8


def test_tasks_needed_is_close_to_the_normal_closed_form_for_large_n():
    """n ~ ((z_0.975 + z_0.8) * sd / delta)^2 = (2.8016 * 6)^2 = 282.6 for sd 0.3, delta 0.05; the t test needs
    a few more."""
    closed = ((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * 0.3 / 0.05) ** 2
    assert closed == pytest.approx(282.6, abs=0.1)
    assert closed < tasks_needed(0.3, 0.05) <= closed + 4


def test_reps_needed_by_hand():
    """No between-task part, repetition noise 0.09: sd(r) = 0.3 / sqrt(r); with 100 tasks MDD ~ 2.8 * 0.3 /
    (10 sqrt(r)) = 0.084 / sqrt(r) <= 0.05 first at r = 3. A between-task part of 0.1^2 alone has MDD ~0.028
    at 100 tasks, so 0.02 is not reachable by repetitions."""
    assert reps_needed(Components(between=0.0, within=0.09, n_tasks=0, reps=(), basis="x"), 100, 0.05) == 3
    assert reps_needed(Components(between=0.01, within=0.0, n_tasks=0, reps=(), basis="x"), 100, 0.02) is None
    assert min_detectable(0.3 / 10, 99) == pytest.approx(0.084, rel=0.02)


def test_components_are_recovered_from_simulated_scores():
    """Task difficulty sd 0.2, repetition noise sd 0.1, 3 repetitions of 4000 tasks. One stack: between ~ 2 x
    0.04, within ~ 2 x 0.01. Two stacks sharing the difficulty plus a task x stack interaction of sd 0.05:
    between ~ 2 x 0.05^2 = 0.005, within ~ 0.02. (Every task its own cluster, one family: the design `avb power`
    plans when nothing is clustered.)"""
    rng = np.random.default_rng(2)
    tasks = rng.normal(0.5, 0.2, 4000)
    a = tasks + rng.normal(0, 0.05, 4000) + rng.normal(0, 0.1, (3, 4000))
    b = tasks + rng.normal(0, 0.05, 4000) + rng.normal(0, 0.1, (3, 4000))
    design = Design.macro(["f"] * 4000, [str(i) for i in range(4000)])
    one = design_one_stack(a, design)
    assert one.between == pytest.approx(2 * (0.04 + 0.0025), rel=0.1) and one.within == pytest.approx(
        0.02, rel=0.1
    )
    two = design_two_stacks(a, b, design)
    assert two.between == pytest.approx(0.005, rel=0.25) and two.within == pytest.approx(0.02, rel=0.1)
    assert two.sd(3) < one.sd(3)  # pairing by task helps


def test_cli_with_a_given_sd(capsys):
    """`avb power --sd 30 --delta 5`: 285 tasks (the t-test version of the 282.6 above)."""
    assert main(["power", "--sd", "30", "--delta", "5", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"][0]["tasks_needed"] == {"5.0": 285}


def _run(root, name: str, scores: dict[int, tuple[str, float]], rep: int):
    out = root / name / "avb-results"
    out.mkdir(parents=True)
    for tid, (fam, score) in scores.items():
        write_result(
            out,
            Result(
                task_id=tid,
                family=fam,
                status="scored",
                final_score=score,
                adjusted_final_score=score if fam in ("sequencing", "assembly") else None,
                headline_score=score,
                provenance={"verifier_version": f"{fam}-1"},
                run={"path": str(root / name), "harness": "h", "model": "m", "rep": rep},
            ),
        )
    return root / name


def test_cli_on_runs_with_repetitions(tmp_path, capsys):
    """Two repetitions of one stack: the repetition noise is estimated, so more repetitions shrink the sd."""
    fams = {1: "recap", 2: "recap", 37: "sequencing", 38: "sequencing", 65: "repair", 83: "assembly"}
    r1 = _run(
        tmp_path,
        "r1",
        {t: (f, s) for (t, f), s in zip(fams.items(), [0.1, 0.5, 0.9, 0.3, 0.6, 0.2], strict=True)},
        1,
    )
    r2 = _run(
        tmp_path,
        "r2",
        {t: (f, s) for (t, f), s in zip(fams.items(), [0.3, 0.4, 0.7, 0.3, 0.9, 0.1], strict=True)},
        2,
    )
    assert main(["power", str(r1), str(r2), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    sds = [row["sd_points"] for row in doc["rows"]]
    assert doc["reps_observed"] == [2] and doc["within"] > 0 and sds == sorted(sds, reverse=True)


def test_cli_needs_runs_or_sd(capsys):
    """Neither runs nor --sd: a usage error (exit 2)."""
    assert main(["power"]) == 2
