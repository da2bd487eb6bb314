"""The leaderboard, `avb compare` and `avb power` read cells by one rule: a nan score in a `scored` result is an
error everywhere, an excluded cell moves compare's per-stack columns exactly as it moves the leaderboard's, and
the planner's MDD at the observed design is compare's even when its between-run part is clipped at 0."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from agenticvbench.analysis.aggregate import NOT_FINITE, as_cell, headlines
from agenticvbench.analysis.compare import compare_runs, paired_tasks, stack_headline
from agenticvbench.analysis.paired import cluster_se, min_detectable
from agenticvbench.analysis.power import Components, Design, design_two_stacks
from agenticvbench.analysis.task_universe import TaskUniverse
from agenticvbench.cli.main import main

SCORES = {1: 0.9, 2: 0.5, 3: 0.7, 4: 0.2, 37: 0.6, 38: 0.4, 39: 0.8}


def _fam(t: int) -> str:
    return "recap" if t < 37 else "sequencing"


def _stack(mk, harness: str, shift: float = 0.0, *, nan=(), excluded=()):
    out = []
    for t, s in SCORES.items():
        r = mk(t, _fam(t), max(0.0, s - shift), harness=harness, path=f"/runs/{harness}")
        if t in nan:
            r = dataclasses.replace(r, headline_score=math.nan)
        if t in excluded:
            r = mk(t, _fam(t), 0.0, harness=harness, path=f"/runs/{harness}", status="excluded")
        out.append(r)
    return out


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_scored_result_is_an_error_on_both_surfaces(mk, bad):
    """A scored result whose headline_score is nan (or infinite) used to be an excluded cell in compare and a
    'scored' cell left out of the mean on the leaderboard. Now it is an `error` counting 0 with a one-line
    reason, on the leaderboard (status counts, recap mean) and in compare (not excluded, A's task 1 at 0)."""
    a = _stack(mk, "ha", nan={1})
    a[0] = dataclasses.replace(a[0], headline_score=bad)
    cell = as_cell(a[0])
    assert cell.status == "error" and cell.headline_score == 0.0 and cell.reason.startswith(NOT_FINITE)
    assert "\n" not in cell.reason
    row = next(g for g in headlines(a, resamples=0) if g.harness == "ha")
    assert row.families["recap"].status_counts["error"] == 1 and row.n_errors == 1
    assert row.families["recap"].mean == pytest.approx((0 + 0.5 + 0.7 + 0.2) / 4)
    recap = next(r for r in compare_runs(a, _stack(mk, "hb")).rows if r.cell == "recap")
    assert recap.excluded == 0 and recap.stat.n_tasks == 4
    assert recap.mean_a == pytest.approx(row.families["recap"].mean)


def test_compare_columns_are_the_leaderboards_when_one_stack_excludes_a_task(mk):
    """A excludes recap task 1, B does not. B's columns are B's leaderboard numbers over all 7 compared tasks
    (before, compare dropped task 1 from B's mean too); A's are A's over its own kept cells; the paired
    difference is over the 6 tasks both kept, and the caption says exactly that."""
    a, b = _stack(mk, "ha", excluded={1}), _stack(mk, "hb", shift=0.1)
    comp = compare_runs(a, b)
    rows = {r.cell: r for r in comp.rows}
    universe = TaskUniverse({"recap": (1, 2, 3, 4), "sequencing": (37, 38, 39)}, "observed")
    for stack, column in ((a, "mean_a"), (b, "mean_b")):
        board = next(iter(headlines(stack, universe, resamples=0)))
        for cell in ("recap", "sequencing"):
            assert getattr(rows[cell], column) == pytest.approx(board.families[cell].mean)
        assert getattr(rows["macro"], column) == pytest.approx(board.macro)
        assert getattr(rows["micro"], column) == pytest.approx(board.micro)
    assert rows["recap"].mean_b == pytest.approx((0.8 + 0.4 + 0.6 + 0.1) / 4)
    assert rows["recap"].mean_a == pytest.approx((0.5 + 0.7 + 0.2) / 3)
    assert rows["recap"].stat.n_tasks == 3 and rows["recap"].excluded == 1
    assert rows["recap"].stat.estimate == pytest.approx(0.1)
    assert "what the leaderboard prints for each stack over the compared tasks" in comp.caption
    assert "as the leaderboard leaves them out" not in comp.caption
    assert stack_headline(b, paired_tasks([a, b]).compared).macro == pytest.approx(rows["macro"].mean_b)


def _clipped_case() -> tuple[np.ndarray, np.ndarray, Design]:
    """The first seed whose observed variance of the mean difference is below its repetition noise."""
    fams = ["recap"] * 8 + ["sequencing"] * 6
    design = Design.macro(fams, [f"t{i}" for i in range(len(fams))])
    for seed in range(100):
        rng = np.random.default_rng(seed)
        task = rng.uniform(0.2, 0.8, len(fams))
        a, b = (np.clip(task + rng.normal(0, 0.2, (3, len(fams))), 0, 1) for _ in range(2))
        se, _ = cluster_se(
            a.mean(0) - b.mean(0), weights=design.weights, strata=fams, clusters=design.clusters
        )
        noise = float(design.weights**2 @ (a.var(0, ddof=1) + b.var(0, ddof=1))) / 3
        if se**2 < noise:
            return a, b, design
    raise AssertionError("no seed with clipping")


def test_power_and_compare_agree_when_the_between_part_is_clipped(make_run, capsys):
    """Seeded stacks whose task differences vary less than their repetition noise predicts (between < 0): the
    planner used to clip between at 0 and keep all the noise, so its MDD at the observed design was larger than
    compare's (the old rule's number is computed here and differs). Now `avb power` and `avb compare` print the
    same MDD, through the CLI."""
    a, b, design = _clipped_case()
    fams = design.strata
    ids = [1 + i if f == "recap" else 37 + i - 8 for i, f in enumerate(fams)]
    runs = []
    for name, mat in (("ha", a), ("hb", b)):
        for rep, row in enumerate(mat, 1):
            cells = {t: (f, float(s)) for t, f, s in zip(ids, fams, row, strict=True)}
            runs.append(make_run(f"{name}{rep}", cells, harness=name, rep=rep))
    assert main(["compare", "ha/m", "hb/m", "--runs", *map(str, runs), "--format", "json"]) == 0
    macro = next(r for r in json.loads(capsys.readouterr().out)["rows"] if r["cell"] == "macro")
    assert main(["power", *map(str, runs), "--tasks", str(len(ids)), "--reps", "3", "--format", "json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert planned["between"] == 0.0
    assert planned["rows"][0]["mdd_points"][str(len(ids))] == pytest.approx(
        100 * macro["stat"]["mdd"], rel=1e-9
    )
    comp = design_two_stacks(a, b, design)
    old = Components(
        between=0.0,
        within=comp.n_tasks * float(design.weights**2 @ (a.var(0, ddof=1) + b.var(0, ddof=1))),
        n_tasks=14,
        reps=(3, 3),
        basis="",
    )
    old_mdd = min_detectable(old.sd(3) / math.sqrt(14), macro["stat"]["df"])
    assert old_mdd > macro["stat"]["mdd"] * 1.01
