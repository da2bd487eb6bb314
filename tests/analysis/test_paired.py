"""The paired statistics against independent computations: scipy's permutation test, a closed form worked by
hand, Holm by hand, and the textbook paired t interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from agenticvbench.analysis.paired import (
    cluster_se,
    cr2_terms,
    holm,
    min_detectable,
    paired_stat,
    sign_flip_p,
)


def _scipy_p(x: np.ndarray, y: np.ndarray, n_resamples: float, seed: int = 0) -> float:
    res = stats.permutation_test(
        (x, y),
        lambda a, b, axis=-1: np.mean(a - b, axis=axis),
        vectorized=True,
        permutation_type="samples",
        n_resamples=n_resamples,
        alternative="two-sided",
        random_state=seed,
    )
    return float(res.pvalue)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_sign_flip_p_equals_scipy_permutation_test(seed):
    """With every task its own cluster, the sign flip is scipy's paired ('samples') permutation test; for 12
    tasks both enumerate all 4096 patterns, so the p-values agree exactly."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, 12)
    y = np.clip(x - 0.1 + rng.normal(0, 0.2, 12), 0, 1)
    ours, method = sign_flip_p(x - y)
    assert method.startswith("exact")
    assert ours == pytest.approx(_scipy_p(x, y, np.inf), abs=1e-12)


def test_monte_carlo_sign_flip_p_is_close_to_scipy():
    """40 tasks are too many to enumerate: both draw 20000 random flips; the p-values agree to Monte Carlo error."""
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 1, 40)
    y = np.clip(x - 0.05 + rng.normal(0, 0.25, 40), 0, 1)
    ours, method = sign_flip_p(x - y, permutations=20000)
    assert method.startswith("Monte Carlo")
    theirs = _scipy_p(x, y, 20000)
    assert 0.001 < theirs < 0.999
    assert ours == pytest.approx(theirs, abs=4 * math.sqrt(theirs * (1 - theirs) / 20000) + 1e-3)


def test_clustered_interval_matches_the_closed_form_worked_by_hand():
    """Four tasks, A - B = [0.1, 0.3, 0.0, 0.2]; tasks 1 and 2 share a film (cluster X), 3 and 4 are alone.

    mean = 0.6 / 4 = 0.15; residuals e = [-0.05, 0.15, -0.15, 0.05]; w e (w = 1/4) = [-0.0125, 0.0375,
    -0.0375, 0.0125]; per cluster: X = 0.025, Y = -0.0375, Z = 0.0125; CR2 divides each square by 1 - (the
    cluster's share of the weight): 0.025^2 / 0.5 + 0.0375^2 / 0.75 + 0.0125^2 / 0.75 = 0.00125 + 0.001875 +
    0.000208333 = 0.003333333, SE = 0.0577350; Bell-McCaffrey df 1.8 (the unequal clusters carry less
    information than 3 equal ones would: 2 df).
    Sign flips of the cluster sums of w d (X = 0.1, Y = 0.0, Z = 0.05): the 8 patterns give +-0.15 (4 times)
    and +-0.05 (4 times); |T| >= 0.15 in 4 of 8, p = 0.5.
    The floor: every task its own cluster gives (0.0125^2 + 0.0375^2 + 0.0375^2 + 0.0125^2) / 0.75 = 0.0041667,
    more than the clustered 0.0033333 (tasks 1 and 2 pull in opposite directions), so SE = sqrt(0.0041667) on the
    clustered df 1.8.
    """
    terms, _ = cr2_terms(
        np.array([0.1, 0.3, 0.0, 0.2]), np.full(4, 0.25), np.zeros(4, dtype=int), np.array([0, 0, 1, 2])
    )
    assert float(np.sum(terms**2)) == pytest.approx(0.0033333333)
    s = paired_stat([0.1, 0.3, 0.0, 0.2], clusters=["X", "X", "Y", "Z"])
    assert s.estimate == pytest.approx(0.15)
    assert s.se == pytest.approx(math.sqrt(0.0041666667)) and s.df == pytest.approx(1.8)
    half = stats.t.ppf(0.975, 1.8) * math.sqrt(0.0041666667)
    assert (s.ci_low, s.ci_high) == pytest.approx((0.15 - half, 0.15 + half), abs=1e-6)
    assert s.p_value == pytest.approx(0.5)
    assert s.n_clusters == 3 and not s.detectable


def test_unclustered_interval_is_the_paired_t_interval():
    """Every task its own cluster: the interval is scipy's one-sample t interval of the differences."""
    d = np.array([0.1, 0.3, 0.0, 0.2, 0.25, -0.05, 0.4])
    s = paired_stat(d)
    lo, hi = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
    assert (s.ci_low, s.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    assert s.se == pytest.approx(stats.sem(d))


def test_mdd_is_where_the_t_test_has_80_percent_power():
    """The MDD is the shift at which a two-sided t test of the mean has power 0.8, checked by simulation: 20000
    experiments of 30 normal differences with that true mean reject at 5% about 80% of the time; and it is close
    to the textbook approximation (t_0.975 + t_0.8) * SE."""
    sd, n = 0.2, 30
    se, df = sd / math.sqrt(n), n - 1
    mdd = min_detectable(se, df)
    rng = np.random.default_rng(0)
    sims = rng.normal(mdd, sd, size=(20000, n))
    p = stats.ttest_1samp(sims, 0.0, axis=1).pvalue
    assert float(np.mean(p < 0.05)) == pytest.approx(0.8, abs=0.01)
    assert mdd == pytest.approx((stats.t.ppf(0.975, df) + stats.t.ppf(0.8, df)) * se, rel=0.02)


def test_weighted_strata_residuals_are_taken_within_each_family():
    """Two families with different mean differences: the stratified residuals remove each family's mean, so a
    constant difference per family has zero standard error even though the family means differ."""
    d = [0.1, 0.1, 0.1, 0.3, 0.3]
    w = [1 / 6] * 3 + [1 / 4] * 2  # macro: each family weighs 1/2
    se, _ = cluster_se(d, weights=w, strata=["a", "a", "a", "b", "b"])
    assert se == pytest.approx(0.0)
    assert paired_stat(d, weights=w, strata=["a", "a", "a", "b", "b"]).estimate == pytest.approx(0.2)


def test_stratified_variance_matches_the_textbook_stratified_formula():
    """Two families of two tasks, d = [0.1, 0.3 | 0.5, 0.9], each family weighs 1/2. Textbook stratified
    variance sum_h W_h^2 s_h^2 / n_h: s_1^2 = 0.02, s_2^2 = 0.08, so 0.25 * 0.02 / 2 + 0.25 * 0.08 / 2 =
    0.0025 + 0.01 = 0.0125, SE = 0.1118034, with 4 clusters - 2 strata = 2 degrees of freedom."""
    se, df = cluster_se([0.1, 0.3, 0.5, 0.9], weights=[0.25] * 4, strata=["a", "a", "b", "b"])
    assert se == pytest.approx(math.sqrt(0.0125)) and df == 2


def test_a_cluster_spanning_two_families_drops_the_strata():
    """A film used by a sequencing and an assembly task: the strata cannot hold the cluster, so the variance
    is taken around the overall estimate (one stratum) - wider, never narrower."""
    d, w, strata = [0.1, 0.3, 0.5, 0.9], [0.25] * 4, ["a", "a", "b", "b"]
    se, df = cluster_se(d, weights=w, strata=strata, clusters=["f1", "t2", "f1", "t4"])
    # overall estimate 0.45; w e = [-0.0875, -0.0375, 0.0125, 0.1125]; clusters f1 = -0.075, t2 = -0.0375,
    # t4 = 0.1125, holding 1/2, 1/4, 1/4 of the weight; CR2: 0.075^2/0.5 + 0.0375^2/0.75 + 0.1125^2/0.75 = 0.03
    assert se == pytest.approx(math.sqrt(0.075**2 / 0.5 + 0.0375**2 / 0.75 + 0.1125**2 / 0.75))
    assert df == pytest.approx(1.8)


def test_holm_by_hand():
    """p = [0.01, 0.04, 0.03, 0.20]: sorted 0.01, 0.03, 0.04, 0.20 times 4, 3, 2, 1 = 0.04, 0.09, 0.08, 0.20;
    the running maximum makes them 0.04, 0.09, 0.09, 0.20. None stays None and does not count."""
    assert holm([0.01, 0.04, 0.03, None, 0.20]) == pytest.approx([0.04, 0.09, 0.09, None, 0.20])
    assert holm([0.6, 0.9]) == [1.0, 1.0]


def test_fewer_than_two_clusters_gives_no_interval():
    """One cluster has no spread to estimate: no interval, no MDD, and 'no detectable difference'."""
    s = paired_stat([0.2, 0.4], clusters=["film", "film"])
    assert s.se is None and s.ci_low is None and s.mdd is None and not s.detectable


def test_two_clusters_that_agree_keep_the_spread_of_their_tasks():
    """Why: with 2 clusters whose means coincide (bounded scores near 0 make this common) the clustered variance is
    0 and the interval collapsed to a point, while the tasks differ by up to 0.4; the coverage simulation found
    such cells at 0.92. The standard error is floored at the unclustered one (here the paired t's sd / sqrt(n)),
    keeping the clustered df (1 for 2 equal clusters)."""
    d = [0.0, 0.4, 0.4, 0.0]
    se, df = cluster_se(d, clusters=["a", "a", "b", "b"])
    assert se == pytest.approx(float(np.std(d, ddof=1)) / 2) and se > 0 and df == pytest.approx(1.0)
