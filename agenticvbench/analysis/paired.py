"""Paired, cluster-robust statistics on per-task score differences (stack B minus stack A).

The estimate is a weighted mean of task differences, `sum_t w_t d_t` with `sum_t w_t = 1`, taken within strata
(families): for one family every task weighs `1/n`; for the leaderboard's macro every family weighs the same
(`w_t = 1 / (F n_f)`); for micro every task weighs the same (`w_t = 1/N`).

Interval (stratified cluster-robust, CR2 with Bell-McCaffrey degrees of freedom): with clusters `g` (a task alone,
or every task cut from the same source material), strata `h` (families), `W_g`, `W_h` the weight a cluster and
its stratum hold, and residuals `e_t = d_t - (weighted mean of d in t's stratum)`,
`Var = sum_h sum_{g in h} (sum_{t in g} w_t e_t)^2 / (1 - W_g/W_h)`: the bias-reduced linearisation (CR2,
`(I - H_gg)^{-1/2}` applied to the cluster's residuals of the regression on stratum dummies, which for this
estimator reduces to that factor; with equal clusters it is the familiar `G_h/(G_h-1)`). The interval is
`estimate +- t_{1-a/2, df} * sqrt(Var)` with `df` the Bell-McCaffrey (Satterthwaite) degrees of freedom of that
variance under working independence: writing each cluster's term as `p_g' d` and `M = P P'`,
`df = tr(M)^2 / sum(M * M)` (a real number; `G - 1` for one stratum of equal clusters, about 1 when one stratum of
2 clusters carries the variance). The old factor `G_h/(G_h-1)` on `G - H` degrees of freedom covered 0.91 with 2
clusters (`docs/comparisons.md`). With one stratum and every task its own cluster this is the textbook paired
interval `mean +- t_{n-1} * sd / sqrt(n)`. When a cluster spans two strata (a film used by sequencing and by
assembly) or a stratum has a single cluster, the strata are dropped: one stratum, residuals from the overall
estimate (wider: the spread between family means counts as noise).

p-value: paired permutation (sign flip): under "no difference" the sign of each cluster's differences is
exchangeable, so the whole cluster's differences flip together. Two-sided, `P(|T*| >= |T|)`; exact enumeration
when there are at most `EXACT_MAX_CLUSTERS` clusters, else `DEFAULT_PERMUTATIONS` random flips from a fixed seed
with the `(hits + 1) / (B + 1)` correction (the convention of `scipy.stats.permutation_test`). So the p has a
floor, `min_p`: `2 / 2^G` exact (every sign pattern and its mirror), `1 / (B + 1)` by Monte Carlo; a family whose
floor times its Holm multiplier is not below 0.05 can never reach a verdict, whatever the difference
(`PairedStat.reachable`).

Minimum detectable difference at power `1 - b` for this design: the true difference at which the two-sided t
test (size `a`, `df` degrees of freedom) rejects with probability `1 - b`, from the noncentral t distribution
(close to `(t_{1-a/2, df} + t_{1-b, df}) * SE`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st
from scipy.optimize import brentq as _brentq

EXACT_MAX_CLUSTERS = 16
DEFAULT_PERMUTATIONS = 10000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95
DEFAULT_POWER = 0.80
_TIE = 1e-12
#: per-task values: a sequence or a numpy array
Floats = Sequence[float] | np.ndarray


@dataclass(kw_only=True, frozen=True)
class PairedStat:
    """The paired comparison of one cell (a family, macro or micro): estimate, interval, p-value, MDD."""

    estimate: float
    se: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    mdd: float | None
    n_tasks: int
    n_clusters: int
    p_method: str
    df: float | None = None
    #: the smallest p the sign-flip test can give with these clusters (before any Holm adjustment)
    min_p: float | None = None

    def reachable(self, multiplier: int = 1, alpha: float = 0.05) -> bool:
        """False when no difference can reach p < `alpha` after a Holm `multiplier` (the p's floor times it is
        `alpha` or more): the MDD is then not a difference any verdict can meet."""
        return self.min_p is not None and self.min_p * multiplier < alpha

    @property
    def detectable(self) -> bool:
        """False when the interval spans 0 (or there is no interval): "no detectable difference"."""
        if self.ci_low is None or self.ci_high is None:
            return False
        return self.ci_low > 0 or self.ci_high < 0


def _arrays(
    diffs: Floats, weights: Floats | None, strata: Sequence[object] | None, clusters: Sequence[object] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    d = np.asarray(diffs, dtype=float)
    n = d.size
    if not np.all(np.isfinite(d)):
        bad = int(np.sum(~np.isfinite(d)))
        raise ValueError(
            f"{bad} task difference(s) are not finite (nan or infinity): leave excluded cells out first"
        )
    w = np.full(n, 1.0 / n) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != d.shape or (n and not math.isclose(float(w.sum()), 1.0, rel_tol=1e-9)):
        raise ValueError("weights must have one entry per task and sum to 1")
    s_keys = list(strata) if strata is not None else [0] * n
    c_keys = list(clusters) if clusters is not None else list(range(n))
    if len(s_keys) != n or len(c_keys) != n:
        raise ValueError("strata and clusters need one entry per task")
    _, s_idx = np.unique(np.array([str(k) for k in s_keys]), return_inverse=True)
    _, c_idx = np.unique(np.array([str(k) for k in c_keys]), return_inverse=True)
    return d, w, s_idx.reshape(-1), c_idx.reshape(-1)


def _strata_or_one(s_idx: np.ndarray, c_idx: np.ndarray) -> np.ndarray:
    """The strata index per task, or all zeros when a cluster spans two strata or a stratum has one cluster."""
    g = int(c_idx.max()) + 1
    pairs = np.unique(np.stack([c_idx, s_idx]), axis=1)
    if pairs.shape[1] != g:  # a cluster in two strata
        return np.zeros_like(s_idx)
    per_stratum = np.bincount(pairs[1])
    return s_idx if np.all(per_stratum[per_stratum > 0] >= 2) else np.zeros_like(s_idx)


def cr2_terms(
    d: np.ndarray, w: np.ndarray, s_idx: np.ndarray, c_idx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(terms, P): each cluster's CR2-adjusted term `sqrt(a_g) u_g` (the variance is the sum of their squares) and
    the clusters x tasks matrix `P` with `terms = P @ d` (rows: `sqrt(a_g) (w 1_g - W_g/W_h w 1_h)`). Strata must
    hold 2+ clusters each and clusters be nested in strata (`_strata_or_one`)."""
    g = int(c_idx.max()) + 1
    h_of = np.zeros(g, dtype=int)
    h_of[c_idx] = s_idx
    w_h = np.bincount(s_idx, weights=w)
    share = np.bincount(c_idx, weights=w, minlength=g) / w_h[h_of]
    adj = np.sqrt(1.0 / np.maximum(1.0 - share, 1e-12))
    p = np.zeros((g, d.size))
    p[c_idx, np.arange(d.size)] = w
    p -= share[:, None] * (w[None, :] * (s_idx[None, :] == h_of[:, None]))
    p *= adj[:, None]
    return p @ d, p


def bell_mccaffrey_df(p: np.ndarray) -> float:
    """Satterthwaite degrees of freedom of `sum_g (p_g' d)^2` when the d are independent with equal variance:
    `tr(M)^2 / sum(M * M)` with `M = P P'` (at least 1)."""
    m = p @ p.T
    denom = float(np.sum(m * m))
    return max(1.0, float(np.trace(m)) ** 2 / denom) if denom > 0 else 1.0


def cluster_se(
    diffs: Floats,
    *,
    weights: Floats | None = None,
    strata: Sequence[object] | None = None,
    clusters: Sequence[object] | None = None,
) -> tuple[float, float] | None:
    """(standard error, degrees of freedom) of the weighted mean difference: CR2 with Bell-McCaffrey df (module
    docstring); None without at least 2 clusters."""
    d, w, s_idx, c_idx = _arrays(diffs, weights, strata, clusters)
    g = int(c_idx.max()) + 1 if d.size else 0
    if g < 2:
        return None
    terms, p = cr2_terms(d, w, _strata_or_one(s_idx, c_idx), c_idx)
    return math.sqrt(float(np.sum(terms**2))), bell_mccaffrey_df(p)


def min_p_value(n_clusters: int, permutations: int = DEFAULT_PERMUTATIONS) -> float:
    """The smallest p the sign-flip test can return with `n_clusters` clusters: `2 / 2^G` when it enumerates,
    `1 / (B + 1)` by Monte Carlo (1 without clusters)."""
    if n_clusters < 1:
        return 1.0
    if n_clusters <= EXACT_MAX_CLUSTERS:
        return 2.0 / 2**n_clusters
    return 1.0 / (permutations + 1)


def sign_flip_p(
    diffs: Floats,
    *,
    weights: Floats | None = None,
    clusters: Sequence[object] | None = None,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
) -> tuple[float, str]:
    """Two-sided paired permutation p-value of the weighted mean difference, flipping whole clusters.

    Returns (p, method) where method says "exact (2^G sign patterns)" or "Monte Carlo (B flips, seed s)".
    """
    d, w, _, c_idx = _arrays(diffs, weights, None, clusters)
    g = int(c_idx.max()) + 1 if d.size else 0
    if g == 0:
        return 1.0, "no tasks"
    per_cluster = np.bincount(c_idx, weights=w * d, minlength=g)
    observed = float(per_cluster.sum())
    bound = abs(observed) * (1 - _TIE) - _TIE
    if g <= EXACT_MAX_CLUSTERS:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=g)))
        null = signs @ per_cluster
        return float(np.mean(np.abs(null) >= bound)), f"exact ({2**g} sign patterns)"
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, permutations, 2000):
        b = min(2000, permutations - start)
        signs = rng.choice((-1.0, 1.0), size=(b, g))
        hits += int(np.sum(np.abs(signs @ per_cluster) >= bound))
    return (hits + 1) / (permutations + 1), f"Monte Carlo ({permutations} sign flips, seed {seed})"


def t_quantile(prob: float, df: float) -> float:
    """Student t quantile."""
    return float(_st.t.ppf(prob, df))


def t_test_power(noncentrality: float, df: float, *, level: float = DEFAULT_LEVEL) -> float:
    """Power of a two-sided t test of size `1 - level` with `df` degrees of freedom when the true effect is
    `noncentrality` standard errors: `P(|T| > t_crit)` under the noncentral t distribution."""
    crit = t_quantile(1 - (1 - level) / 2, df)
    dist = _st.nct(df, noncentrality)
    return float(dist.sf(crit) + dist.cdf(-crit))


def min_detectable(
    se: float, df: float, *, level: float = DEFAULT_LEVEL, power: float = DEFAULT_POWER
) -> float:
    """Smallest true difference a two-sided t test (`df` degrees of freedom, size `1 - level`) detects with
    probability `power`, given the standard error `se` of the estimate (solved exactly on the noncentral t)."""
    if se <= 0:
        return 0.0
    approx = t_quantile(1 - (1 - level) / 2, df) + t_quantile(power, df)
    try:
        nc = _brentq(lambda x: t_test_power(x, df, level=level) - power, 0.0, 3.0 * approx + 1.0)
    except ValueError:  # the noncentral t is not evaluable there (tiny df): the textbook approximation
        nc = approx
    return nc * se


def paired_stat(
    diffs: Floats,
    *,
    weights: Floats | None = None,
    strata: Sequence[object] | None = None,
    clusters: Sequence[object] | None = None,
    level: float = DEFAULT_LEVEL,
    power: float = DEFAULT_POWER,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
) -> PairedStat:
    """Estimate, clustered interval, sign-flip p-value and MDD of task differences (rules in the module docstring)."""
    d, w, _, c_idx = _arrays(diffs, weights, strata, clusters)
    if d.size == 0:
        return PairedStat(
            estimate=0.0,
            se=None,
            ci_low=None,
            ci_high=None,
            p_value=None,
            mdd=None,
            n_tasks=0,
            n_clusters=0,
            p_method="no tasks",
        )
    est = float(np.dot(w, d))
    g = int(c_idx.max()) + 1
    found = cluster_se(d, weights=w, strata=strata, clusters=clusters)
    p, method = sign_flip_p(d, weights=w, clusters=clusters, permutations=permutations, seed=seed)
    se, df = found if found is not None else (None, None)
    half = None if se is None or df is None else t_quantile(1 - (1 - level) / 2, df) * se
    return PairedStat(
        estimate=est,
        se=se,
        ci_low=None if half is None else est - half,
        ci_high=None if half is None else est + half,
        p_value=p,
        mdd=None if se is None or df is None else min_detectable(se, df, level=level, power=power),
        n_tasks=int(d.size),
        n_clusters=g,
        p_method=method,
        df=df,
        min_p=min_p_value(g, permutations),
    )


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm step-down adjusted p-values (None entries are skipped and stay None)."""
    idx = [i for i, p in enumerate(p_values) if p is not None]
    order = sorted(idx, key=lambda i: float(p_values[i]))  # type: ignore[arg-type]
    m = len(order)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * float(p_values[i])))  # type: ignore[arg-type]
        out[i] = running
    return out
