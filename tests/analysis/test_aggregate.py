"""Aggregation rules: task universe, missing = 0, runs x tasks mean, macro/micro, bootstrap CI."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from agenticvbench.analysis.aggregate import (
    bootstrap,
    combine_run_means,
    group_headline,
    headlines,
)
from agenticvbench.analysis.task_universe import split_by_universe, task_universe
from agenticvbench.report.summary import load_comparison, load_published


def test_published_worked_example_run_means_give_0_3810() -> None:
    """Official worked example (SCORE_ADJUSTMENTS.md at 6332ac3): codex_cli + gpt-5.5 assembly run means 0.3958/0.3667/0.3806 -> 0.3810 (mean over runs x tasks)."""
    entry = next(e for e in load_published()["headlines"] if e["harness"] == "codex_cli")
    assert entry["run_means"] == [0.3958, 0.3667, 0.3806]
    assert round(combine_run_means(entry["run_means"]), 4) == 0.3810 == entry["headline"]
    # equal task counts: the runs x tasks mean is the plain mean of run means; unequal counts weight by tasks
    assert combine_run_means(entry["run_means"], [18, 18, 18]) == pytest.approx(
        combine_run_means(entry["run_means"])
    )
    assert combine_run_means([1.0, 0.0], [3, 1]) == 0.75


def test_runs_x_tasks_results_reproduce_0_3810(make_run) -> None:
    """Three synthetic runs of 18 assembly tasks whose run means are the published ones give the published 0.3810."""
    runs = []
    for rep, mean in enumerate([0.3958, 0.3667, 0.3806], 1):
        offsets = [0.3 if i % 2 else -0.3 for i in range(18)]  # sums to 0, keeps every score in [0, 1]
        cells = {83 + i: ("assembly", mean + off) for i, off in enumerate(offsets)}
        runs.append(make_run(f"run{rep}", cells, harness="codex_cli", model="gpt-5.5", rep=rep))
    results = load_comparison(runs)
    g = group_headline(results, task_universe(results), resamples=200)
    fam = g.families["assembly"]
    assert (fam.n_runs, fam.n_tasks) == (3, 18)
    assert fam.run_means == pytest.approx([0.3958, 0.3667, 0.3806])
    assert round(fam.mean, 4) == 0.3810
    assert fam.ci_low <= fam.mean <= fam.ci_high


def test_missing_and_non_scored_cells_count_zero(mk) -> None:
    """A task absent from one run, and missing/malformed/error results, count 0 in the mean."""
    results = [
        mk(1, "recap", 1.0, path="A"),
        mk(2, "recap", 1.0, path="A"),
        mk(1, "recap", 1.0, path="B"),  # B has no result for task 2
        mk(1, "recap", 0.0, path="C", status="error"),
        mk(2, "recap", 0.0, path="C", status="malformed"),
    ]
    results[3].headline_score = 0.9  # even a stray headline on an error result must not count
    g = group_headline(results, task_universe(results), resamples=0)
    fam = g.families["recap"]
    assert fam.run_means == [1.0, 0.5, 0.0]
    assert fam.mean == pytest.approx(0.5)
    assert fam.status_counts == {
        "scored": 3,
        "missing": 0,
        "malformed": 1,
        "error": 1,
        "excluded": 0,
        "invalid": 0,
        "no_result": 1,
    }
    assert g.n_errors == 1
    assert fam.ci_low is None and g.macro_ci == (None, None)


def test_task_universe_bases(mk) -> None:
    """Observed (default), full benchmark (id ranges + found ids) and dataset task lists are distinct and labelled."""
    results = [mk(3, "recap", 1.0), mk(40, "sequencing", 0.5), mk(200, "repair", 1.0)]
    obs = task_universe(results)
    assert obs.basis == "observed" and obs.tasks == {"recap": (3,), "sequencing": (40,), "repair": (200,)}
    full = task_universe(results, full_benchmark=True)
    assert [len(full.tasks[f]) for f in ("recap", "sequencing", "repair", "assembly")] == [36, 28, 19, 18]
    assert full.basis == "full-benchmark" and full.n_tasks == 101 and "full benchmark" in full.label
    tasks = [SimpleNamespace(family="recap", task_id=3), SimpleNamespace(family="recap", task_id=4)]
    ds = task_universe(results, tasks=tasks, source="mirror/")
    assert ds.basis == "dataset" and ds.tasks == {"recap": (3, 4)} and "mirror/" in ds.label
    kept, outside = split_by_universe(results, ds)
    assert [r.task_id for r in kept] == [3] and sorted(r.task_id for r in outside) == [40, 200]
    assert task_universe([], tasks={"assembly": [83, 84]}).tasks == {"assembly": (83, 84)}


def test_macro_and_micro(mk) -> None:
    """Macro weighs families equally, micro weighs tasks equally; a missing task of the universe counts 0."""
    results = [mk(1, "recap", 1.0), mk(2, "recap", 1.0), mk(3, "recap", 1.0), mk(37, "sequencing", 0.0)]
    uni = task_universe(results, tasks={"recap": [1, 2, 3, 4], "sequencing": [37]})
    g = group_headline(results, uni, resamples=0)
    assert g.families["recap"].mean == pytest.approx(0.75)
    assert g.macro == pytest.approx((0.75 + 0.0) / 2)
    assert g.micro == pytest.approx(3 / 5)
    assert "macro" in g.macro_label and "micro" in g.micro_label
    assert g.families["recap"].status_counts["no_result"] == 1


def test_bootstrap_is_deterministic_and_matches_reference_loop() -> None:
    """Same seed -> identical intervals; the vectorised replicates equal a plain loop using the same draws."""
    rng = np.random.default_rng(7)
    scores = {"recap": rng.random((3, 5)), "assembly": rng.random((3, 4))}
    a = bootstrap(scores, resamples=50, seed=11)
    b = bootstrap(scores, resamples=50, seed=11)
    c = bootstrap(scores, resamples=50, seed=12)
    for k in ("recap", "assembly", "macro", "micro"):
        assert np.array_equal(a[k], b[k])
    assert not np.array_equal(a["macro"], c["macro"])
    ref = np.random.default_rng(11)
    run_idx = ref.integers(0, 3, size=(50, 3))
    task_idx = {
        f: ref.integers(0, scores[f].shape[1], size=(50, scores[f].shape[1])) for f in ("recap", "assembly")
    }
    for rep in (0, 17, 49):
        fam = {f: scores[f][np.ix_(run_idx[rep], task_idx[f][rep])].mean() for f in scores}
        assert a["recap"][rep] == pytest.approx(fam["recap"])
        assert a["macro"][rep] == pytest.approx((fam["recap"] + fam["assembly"]) / 2)
        assert a["micro"][rep] == pytest.approx((5 * fam["recap"] + 4 * fam["assembly"]) / 9)


def test_headline_ci_deterministic_and_independent_of_other_groups(mk) -> None:
    """A group's CI depends only on its own results and the seed, not on the other groups in the table."""
    one = [
        mk(t, "recap", s, path=f"r{rep}", rep=rep)
        for rep in (1, 2)
        for t, s in zip(range(1, 7), (0.1, 0.9, 0.4, 0.6, 1.0, 0.0), strict=True)
    ]
    other = [mk(t, "recap", 0.5, path="x", model="other") for t in range(1, 7)]
    alone = headlines(one, resamples=300, seed=3)
    both = headlines(one + other, resamples=300, seed=3)
    mine = next(g for g in both if g.model == "m")
    assert alone[0].families["recap"].ci_low == mine.families["recap"].ci_low
    assert alone[0].macro_ci == mine.macro_ci == headlines(one, resamples=300, seed=3)[0].macro_ci
    lo, hi = mine.macro_ci
    assert lo < mine.macro < hi
    flat = next(g for g in both if g.model == "other")
    assert flat.macro_ci == pytest.approx((0.5, 0.5))
    assert [g.model for g in both] == ["m", "other"]  # best macro first (0.5 each: tie broken by name)


def test_group_headline_refuses_mixed_groups(mk) -> None:
    """One headline per (harness, model): mixing groups is a programming error, not a silent average."""
    with pytest.raises(ValueError, match="several"):
        group_headline(
            [mk(1, "recap", 1, model="a", path="1"), mk(1, "recap", 1, model="b", path="2")],
            task_universe([mk(1, "recap", 1)]),
        )


def test_nan_aware_bootstrap_matches_a_plain_python_loop() -> None:
    """Excluded cells (nan) take the nan-aware path: each replicate's family mean is over the resampled cells that
    are left (none drawn: no mean, nan; a family with no kept cell at all: 0), macro their mean, micro all kept cells
    pooled. Recomputed here with plain Python
    lists over the same draws, so a slip in the vectorised nan handling (e.g. nan counted as 0, or the wrong
    denominator) shows."""
    rng = np.random.default_rng(3)
    scores = {"recap": rng.random((2, 4)), "repair": rng.random((2, 3)), "assembly": np.full((2, 2), np.nan)}
    scores["recap"][0, 1] = scores["recap"][1, 3] = np.nan
    scores["repair"][:, 0] = np.nan
    got = bootstrap(scores, resamples=40, seed=5)
    ref = np.random.default_rng(5)
    run_idx = ref.integers(0, 2, size=(40, 2))
    task_idx = {f: ref.integers(0, scores[f].shape[1], size=(40, scores[f].shape[1])) for f in scores}
    for rep in range(40):
        kept: dict[str, list[float]] = {}
        for f, mat in scores.items():
            cells = [float(mat[i, j]) for i in run_idx[rep] for j in task_idx[f][rep]]
            kept[f] = [c for c in cells if c == c]  # nan != nan
        has = {f: bool((~np.isnan(m)).any()) for f, m in scores.items()}
        means = {f: (sum(v) / len(v) if v else (np.nan if has[f] else 0.0)) for f, v in kept.items()}
        pooled = [c for v in kept.values() for c in v]
        assert (
            got["assembly"][rep] == 0.0
        )  # a family with every cell excluded shows 0, as `avb harbor metric`
        for f in scores:
            assert got[f][rep] == pytest.approx(means[f], nan_ok=True)
        assert got["macro"][rep] == pytest.approx(sum(means.values()) / 3, nan_ok=True)
        assert got["micro"][rep] == pytest.approx(
            sum(pooled) / len(pooled) if pooled else np.nan, nan_ok=True
        )


@pytest.mark.parametrize("cluster", [False, True])
def test_one_kept_cell_gives_its_own_value_not_an_interval_down_to_0(mk, cluster: bool) -> None:
    """Three sequencing cells, one excluded (an infrastructure failure, or a flag under --exclude-flagged), the others
    0.2: the family's headline is 0.2, and its interval was [0.00, 0.20], because replicates that drew only the
    excluded cell counted 0. A replicate with no kept cell has no mean and is left out: the interval is [0.2, 0.2]."""
    out = mk(37, "sequencing", 0.0, path="run")
    out.status, out.reason = "excluded", "infrastructure failure"
    results = [out, mk(38, "sequencing", 0.2, path="run"), mk(39, "sequencing", 0.2, path="run")]
    films = {
        37: "film:a",
        38: "film:b",
        39: "film:b",
    }  # the excluded cell's cluster alone: drawn twice, none kept
    clusters = {("sequencing", t): f for t, f in films.items()} if cluster else None
    g = group_headline(results, task_universe(results), resamples=400, seed=1, clusters=clusters)
    fam = g.families["sequencing"]
    assert fam.mean == pytest.approx(0.2) and (fam.ci_low, fam.ci_high) == pytest.approx((0.2, 0.2))
    assert g.macro_ci == pytest.approx((0.2, 0.2)) and g.micro_ci == pytest.approx((0.2, 0.2))
