"""Excluded cells (`--infra-policy exclude`) in `compare_runs`: left out as the leaderboard leaves them out, never a
nan in a mean or a p-value; the statistics guard refuses a nan instead of turning it into a p floor."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agenticvbench.analysis.compare import compare_runs
from agenticvbench.analysis.paired import paired_stat, sign_flip_p

A = {1: 0.9, 2: 0.5, 3: 0.7, 4: 0.2, 37: 0.6, 38: 0.4, 39: 0.8}
B = {1: 0.3, 2: 0.6, 3: 0.1, 4: 0.2, 37: 0.5, 38: 0.1, 39: 0.2}


def _fam(t: int) -> str:
    return "recap" if t < 37 else "sequencing"


def _runs(mk, scores, harness, *, excluded=(), rep=1):
    return [
        mk(t, _fam(t), s, harness=harness, rep=rep, path=f"/runs/{harness}-{rep}", status="excluded")
        if t in excluded
        else mk(t, _fam(t), s, harness=harness, rep=rep, path=f"/runs/{harness}-{rep}")
        for t, s in scores.items()
    ]


def test_one_excluded_cell_is_left_out_not_a_nan(mk):
    """A's recap task 1 is excluded (one repetition): before, recap, macro and micro were nan with p '<0.001';
    now task 1 is left out of the pair, recap is the mean of the 3 remaining differences, its p the sign-flip
    p of those 3, and W/L/T says 1 task was excluded."""
    comp = compare_runs(_runs(mk, A, "ha", excluded={1}), _runs(mk, B, "hb"))
    rows = {r.cell: r for r in comp.rows}
    d = np.array([A[t] - B[t] for t in (2, 3, 4)])
    assert rows["recap"].stat.estimate == pytest.approx(d.mean())
    assert rows["recap"].stat.p_value == pytest.approx(sign_flip_p(d)[0])
    assert rows["recap"].stat.n_tasks == 3 and rows["recap"].excluded == 1
    assert rows["micro"].excluded == 1 and rows["sequencing"].excluded == 0
    for r in comp.rows:
        assert np.isfinite([r.mean_a, r.mean_b, r.stat.estimate, r.stat.p_value, r.stat.se]).all()
    assert "3/0/0 (1 excluded)" in comp.render("md") or "(1 excluded)" in comp.render("md")
    assert "1 shared task(s) whose every repetition" in comp.caption
    json.loads(comp.render("json"), parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))


def test_an_excluded_repetition_is_left_out_of_its_task_mean(mk):
    """A has two repetitions; rep 2 excluded task 1. Task 1's A mean is rep 1's score alone (not (0.9 + 0) / 2,
    not nan) and the task stays in the comparison, as the leaderboard keeps its other cell."""
    a = _runs(mk, A, "ha") + _runs(mk, {**A, 1: 0.0}, "ha", excluded={1}, rep=2)
    comp = compare_runs(a, _runs(mk, B, "hb"))
    recap = next(r for r in comp.rows if r.cell == "recap")
    assert recap.excluded == 0 and recap.stat.n_tasks == 4
    assert recap.stat.estimate == pytest.approx(np.mean([A[t] - B[t] for t in (1, 2, 3, 4)]))


def test_a_family_with_every_task_excluded_is_not_compared(mk):
    """Every sequencing cell of B excluded: no sequencing row, macro over recap alone, and the caption says so."""
    comp = compare_runs(_runs(mk, A, "ha"), _runs(mk, B, "hb", excluded={37, 38, 39}))
    assert [r.cell for r in comp.rows] == ["recap", "macro", "micro"]
    assert "not compared (no task left): sequencing" in comp.caption


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_the_statistics_refuse_a_non_finite_difference(bad):
    """A nan used to flow into the sign flips (every |T*| >= nan is False, so p fell to its floor); now it is an
    error naming the problem."""
    with pytest.raises(ValueError, match="not finite"):
        paired_stat([0.1, bad, 0.3])
    with pytest.raises(ValueError, match="not finite"):
        sign_flip_p([0.1, bad, 0.3])
