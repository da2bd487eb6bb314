"""One MDD: `avb power` plans with `avb compare`'s estimator (macro, stratified by family, clustered when known),
so the same design prints the same MDD; with 2+ repetitions both report the run-to-run spread of the macro."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agenticvbench.analysis.compare import compare_runs
from agenticvbench.analysis.paired import min_detectable
from agenticvbench.analysis.power import Design, design_two_stacks, rep_spread
from agenticvbench.cli.main import main

FAMS = (
    {t: "recap" for t in range(1, 9)}
    | {t: "sequencing" for t in range(37, 45)}
    | {65: "repair", 66: "repair"}
)
FAMS |= {67: "repair", 68: "repair", 83: "assembly", 84: "assembly", 85: "assembly", 86: "assembly"}
IDS = list(FAMS)


def _scores(seed: int, reps: int = 3, run_shift: float = 0.0) -> np.ndarray:
    """reps x tasks, a stack-specific task effect plus repetition noise; the last run moved by `run_shift`."""
    rng = np.random.default_rng(seed)
    task = rng.uniform(0.2, 0.8, len(IDS))
    out = np.clip(task + rng.normal(0, 0.1, (reps, len(IDS))), 0, 1)
    out[-1] = np.clip(out[-1] + run_shift, 0, 1)
    return out


def _write(make_run, name: str, mat: np.ndarray, harness: str) -> list:
    return [
        make_run(
            f"{name}{i}",
            {t: (FAMS[t], float(s)) for t, s in zip(IDS, row, strict=True)},
            harness=harness,
            rep=i,
        )
        for i, row in enumerate(mat, 1)
    ]


def test_compare_and_power_print_the_same_mdd(make_run, capsys):
    """Two stacks, 3 repetitions each, 24 tasks in 4 families: `avb compare`'s macro MDD80 and `avb power`'s MDD
    at 24 tasks and 3 reps are the same number (they used to be 25.4 and 22.1 for one design: power planned an
    unstratified mean on n - 1 df). Both are checked against min_detectable(SE, df) with SE the textbook
    stratified standard error of the macro, computed here by hand, and the planner's df at 24 tasks is compare's
    Bell-McCaffrey df (below the old 24 - 4 = 20: the families' variances are weighted unequally)."""
    a, b = _scores(1), _scores(2)
    runs = _write(make_run, "a", a, "ha") + _write(make_run, "b", b, "hb")
    assert main(["compare", "ha/m", "hb/m", "--runs", *map(str, runs), "--format", "json"]) == 0
    macro = next(r for r in json.loads(capsys.readouterr().out)["rows"] if r["cell"] == "macro")
    assert main(["power", *map(str, runs), "--tasks", "24", "--reps", "3", "--format", "json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert planned["rows"][0]["mdd_points"]["24"] == pytest.approx(100 * macro["stat"]["mdd"], rel=1e-9)
    d = a.mean(axis=0) - b.mean(axis=0)
    fams = np.array([FAMS[t] for t in IDS])
    var = (
        sum(np.var(d[fams == f], ddof=1) / np.sum(fams == f) for f in set(fams)) / 16
    )  # 4 families, weights 1/4
    assert macro["stat"]["se"] == pytest.approx(math.sqrt(var))
    assert macro["stat"]["mdd"] == pytest.approx(min_detectable(math.sqrt(var), macro["stat"]["df"]))
    assert planned["df_at_tasks"] == pytest.approx(macro["stat"]["df"]) and macro["stat"]["df"] < 20


def test_the_same_mdd_with_clusters(mk):
    """With source clusters (sequencing in 2 films of 4, assembly in 1 film of 2 and 2 alone), the planner's design
    MDD at the observed size equals compare_runs' macro MDD."""
    a, b = _scores(3), _scores(4)
    clusters = {("sequencing", t): f"film:{(t - 37) // 4}" for t in range(37, 45)}
    clusters |= {("assembly", 83): "film:x", ("assembly", 84): "film:x"}
    res = [
        mk(t, FAMS[t], float(s), harness=h, rep=i, path=f"/runs/{h}{i}")
        for h, mat in (("ha", a), ("hb", b))
        for i, row in enumerate(mat, 1)
        for t, s in zip(IDS, row, strict=True)
    ]
    comp = compare_runs(
        [r for r in res if r.run["harness"] == "ha"],
        [r for r in res if r.run["harness"] == "hb"],
        clusters=clusters,
    )
    macro = next(r for r in comp.rows if r.cell == "macro")
    design = Design.macro([FAMS[t] for t in IDS], [clusters.get((FAMS[t], t), f"task:{t}") for t in IDS])
    comp_plan = design_two_stacks(a, b, design)
    assert comp_plan.df(24) == pytest.approx(macro.stat.df) and macro.stat.n_clusters == 17  # 8 + 2 + 4 + 3
    assert comp_plan.mdd(3, 24) == pytest.approx(macro.stat.mdd, rel=1e-9)


def test_rep_spread_names_a_run_that_moved_as_a_whole(make_run, capsys):
    """Stack A's third run is 30 points higher on every task (an outage fixed, a provider changed): the spread of
    its run macros (sd ~17 points) is more than its task-level SE x sqrt(3) allows, and both commands say so;
    stack B's runs differ by repetition noise only and are within it."""
    a, b = _scores(5, run_shift=0.3), _scores(6)
    runs = _write(make_run, "a", a, "ha") + _write(make_run, "b", b, "hb")
    assert main(["compare", "ha/m", "hb/m", "--runs", *map(str, runs), "--format", "json"]) == 0
    caption = json.loads(capsys.readouterr().out)["caption"]
    assert (
        "A: macro of each of its 3 runs" in caption and "more than the task-level interval allows" in caption
    )
    assert "B: macro of each of its 3 runs" in caption and caption.count("more than the task-level") == 1
    assert main(["power", *map(str, runs), "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any(n.startswith("ha/m:") and "more than" in n for n in notes)


def test_rep_spread_against_a_hand_computation():
    """One family, every task its own cluster: allowed = sqrt(3) x sd(task means) / sqrt(n), and the run-to-run sd
    is numpy's sd of the per-run means."""
    m = _scores(7)[:, :8]
    design = Design.macro(["recap"] * 8, [str(i) for i in range(8)])
    got = rep_spread("A", m, design)
    assert got.sd == pytest.approx(np.std(m.mean(axis=1), ddof=1))
    assert got.allowed == pytest.approx(math.sqrt(3) * np.std(m.mean(axis=0), ddof=1) / math.sqrt(8))
