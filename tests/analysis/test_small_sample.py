"""The small-sample rules of `avb compare` and `avb power`: the CR2 variance and Bell-McCaffrey degrees of freedom
checked against a direct matrix computation, and 'no verdict possible' where the sign-flip p has a floor that no
difference can get under."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import linalg

from agenticvbench.analysis.compare import compare_runs
from agenticvbench.analysis.paired import cluster_se, min_p_value, paired_stat
from agenticvbench.cli.main import main


def _reference(d: np.ndarray, w: np.ndarray, strata: list[str], clusters: list[str]) -> tuple[float, float]:
    """CR2 and Bell-McCaffrey written out on the regression of d on stratum dummies (OLS: the weights are equal
    within each stratum), independently of `paired`: V = c' B Σ_g X_g' A_g e_g e_g' A_g X_g B c with
    A_g = (I - H_gg)^{-1/2} (by eigen-decomposition), B = (X'X)^{-1} and c the strata's total weights; the df is
    Satterthwaite's 2 E[V]^2 / Var[V] for V = Σ_g (p_g' d)^2 with d ~ N(., I): (Σ_g p_g'p_g)^2 / Σ_gh (p_g'p_h)^2,
    where p_g = (I - H)' S_g' A_g X_g B c."""
    levels = sorted(set(strata))
    x = np.array([[1.0 if s == lv else 0.0 for lv in levels] for s in strata])
    b = np.linalg.inv(x.T @ x)
    c = np.array([w[np.array(strata) == lv].sum() for lv in levels])
    h = x @ b @ x.T
    resid = d - h @ d
    ps, var = [], 0.0
    for g in sorted(set(clusters)):
        idx = np.array([k == g for k in clusters])
        vals, vecs = linalg.eigh(np.eye(idx.sum()) - h[np.ix_(idx, idx)])
        a_g = vecs @ np.diag(vals**-0.5) @ vecs.T
        sel = np.zeros((idx.sum(), d.size))
        sel[:, np.flatnonzero(idx)] = np.eye(idx.sum())
        ps.append((np.eye(d.size) - h).T @ sel.T @ a_g @ x[idx] @ b @ c)
        var += float((c @ b @ x[idx].T @ a_g @ resid[idx]) ** 2)
    p = np.array(ps)
    gram = p @ p.T
    return var, float(np.trace(gram) ** 2 / np.sum(gram**2))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cr2_and_bell_mccaffrey_match_a_direct_matrix_computation(seed):
    """Three families with unequal clusters (sizes 1 to 4; one family of 2 clusters), macro and micro weights:
    `cluster_se`'s closed form (each cluster's squared residual sum over 1 - its weight share, df tr(M)^2 /
    |M|^2) equals the textbook matrix CR2 with (I - H_gg)^{-1/2} and the Satterthwaite df written out here."""
    rng = np.random.default_rng(seed)
    sizes = {"recap": [1, 1, 1, 1, 1, 1], "sequencing": [3, 1, 2, 4], "repair": [2, 3]}
    strata = [f for f, ks in sizes.items() for k in ks for _ in range(k)]
    clusters = [f"{f}{i}" for f, ks in sizes.items() for i, k in enumerate(ks) for _ in range(k)]
    d = rng.uniform(-1, 1, len(strata))
    n = {f: strata.count(f) for f in sizes}
    for w in (np.array([1 / (3 * n[f]) for f in strata]), np.full(len(strata), 1 / len(strata))):
        se, df = cluster_se(d, weights=w, strata=strata, clusters=clusters, floor=False)
        var, ref_df = _reference(d, w, strata, clusters)
        assert se**2 == pytest.approx(var, rel=1e-10) and df == pytest.approx(ref_df, rel=1e-10)


def test_two_equal_clusters_get_one_degree_of_freedom():
    """One family of 2 equal clusters: BM df is 1 (the old clusters - families rule said so too, but for 3 unequal
    clusters it said 2 where BM gives fewer); the interval then uses t_1 (12.7), which is what covers."""
    s = paired_stat([0.3, 0.5, -0.1, 0.1], clusters=["a", "a", "b", "b"])
    assert s.df == pytest.approx(1.0)
    unequal = cluster_se([0.3, 0.5, 0.2, -0.1, 0.1], clusters=["a", "a", "a", "b", "c"])
    assert unequal is not None and unequal[1] < 2


def _stacks(mk, fams: dict[str, list[int]], gain: float):
    """A ahead of B by `gain` plus 0 to 9 points varying by task (so intervals have a width)."""
    a = [
        mk(t, f, 0.2 + gain + 0.03 * (t % 4), harness="ha", path="/r/a") for f, ts in fams.items() for t in ts
    ]
    b = [mk(t, f, 0.2 + 0.01 * (t % 3), harness="hb", path="/r/b") for f, ts in fams.items() for t in ts]
    return a, b


def test_five_clusters_can_never_give_a_verdict_and_six_can(mk):
    """The exact sign-flip p of G clusters cannot go below 2/2^G: 0.0625 for 5 clusters, so a +60-point difference
    on 5 recap tasks is 'no verdict possible (5 clusters)' in the MDD column and the verdict, where before the
    table printed an MDD no difference could meet. With 6 tasks (floor 0.031, one family so Holm multiplies by 1)
    the same difference is a verdict."""
    a, b = _stacks(mk, {"recap": [1, 2, 3, 4, 5]}, 0.6)
    recap = next(r for r in compare_runs(a, b).rows if r.cell == "recap")
    assert recap.stat.min_p == pytest.approx(2 / 32) and not recap.reachable
    assert recap.mdd_text == "no verdict possible (5 clusters)"
    assert "no verdict possible" in recap.verdict and recap.stat.detectable
    comp = compare_runs(*_stacks(mk, {"recap": [1, 2, 3, 4, 5, 6]}, 0.6))
    six = next(r for r in comp.rows if r.cell == "recap")
    assert six.reachable and six.verdict == "A better"
    row = next(r for r in json.loads(comp.render("json"))["rows"] if r["cell"] == "recap")
    assert row["reachable"] is True and row["stat"]["min_p"] == pytest.approx(2 / 64)


def test_holm_makes_six_clusters_unreachable_among_four_families(mk):
    """A family of 6 clusters among 4 families compared: 2/64 x 4 = 0.125, so no verdict is possible for it; the
    macro (Holm does not multiply it) over 24 clusters is reachable."""
    fams = {"recap": [1, 2, 3, 4, 5, 6], "sequencing": [37, 38, 39, 40, 41, 42]}
    fams |= {"repair": [65, 66, 67, 68, 69, 70], "assembly": [83, 84, 85, 86, 87, 88]}
    rows = {r.cell: r for r in compare_runs(*_stacks(mk, fams, 0.5)).rows}
    assert not rows["recap"].reachable and rows["recap"].holm_m == 4
    assert rows["macro"].reachable and rows["macro"].verdict == "A better"


def test_min_p_floor_by_enumeration_and_monte_carlo():
    """The floor is 2/2^G when the clusters are enumerated (G <= 16) and 1/(B + 1) by Monte Carlo."""
    assert min_p_value(5) == pytest.approx(1 / 16) and min_p_value(16) == pytest.approx(2 / 2**16)
    assert min_p_value(17, permutations=999) == pytest.approx(1 / 1000)


def test_power_says_no_verdict_possible_for_a_planned_design(capsys):
    """`avb power --sd 10 --tasks 5`: 5 tasks (each its own cluster) cannot reach p < 0.05, so the table says no
    verdict is possible instead of an MDD, and the JSON marks it; at 6 tasks it prints a number."""
    assert main(["power", "--sd", "10", "--tasks", "5", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    assert "no verdict possible (5 clusters)" in out and "No verdict possible at 5 tasks" in out
    assert main(["power", "--sd", "10", "--tasks", "6", "--reps", "1", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["reachable"] == {"6": True} and row["mdd_points"]["6"] > 0
