"""Seeded simulation at the benchmark's scale: 100 tasks x 3 repetitions, tasks cut from shared sources.

Design (the paper's family sizes; the source structure is an assumption, since the paper gives only assembly's
9 films): recap 36 tasks, each its own source; sequencing 28 tasks from 7 films (4 each); repair 18 tasks from 6
sources (3 each); assembly 18 tasks from 9 films (2 each): 58 clusters. A stack's score on task j of source c in
repetition r is `mu_f + u_c + v_j + e_rj` with source effect sd 0.15, task effect sd 0.08 and repetition noise
sd 0.1. For a comparison, two stacks share the difficulty and each adds its own source (sd 0.1) and task (sd 0.05)
interaction: the true difference is 0 in every family.

`S = 500` simulated benchmarks: the Monte Carlo standard error of a coverage near 0.95 is
sqrt(0.95 x 0.05 / 500) = 0.0097, of a rejection rate near 0.05 the same 0.0097; so the thresholds (coverage >=
0.93, false-positive rate <= 0.07) sit about 2 standard errors from the nominal 0.95 / 0.05. Seeded, so the
result is the same on every run. Ignoring the clusters (the old default) covers far less; that is asserted too,
so the simulation shows the defect it guards against.
"""

from __future__ import annotations

import numpy as np
import pytest

from agenticvbench.analysis.aggregate import bootstrap
from agenticvbench.analysis.paired import cluster_se, paired_stat, sign_flip_p, t_quantile

DESIGN = {"recap": (36, 1), "sequencing": (7, 4), "repair": (6, 3), "assembly": (9, 2)}
MU = {"recap": 0.3, "sequencing": 0.4, "repair": 0.5, "assembly": 0.35}
S = 500
FAMS = np.array([f for f, (g, k) in DESIGN.items() for _ in range(g * k)])
CLUSTERS = np.array([f"{f}:{c}" for f, (g, k) in DESIGN.items() for c in range(g) for _ in range(k)])
C_IDX = np.unique(CLUSTERS, return_inverse=True)[1].reshape(-1)
N, G = FAMS.size, int(C_IDX.max()) + 1
MACRO_W = np.array([1 / (len(DESIGN) * np.sum(FAMS == f)) for f in FAMS])


def _stack(rng: np.random.Generator) -> np.ndarray:
    """One stack's 3 x 100 scores."""
    mu = np.array([MU[f] for f in FAMS])
    return mu + rng.normal(0, 0.15, G)[C_IDX] + rng.normal(0, 0.08, N) + rng.normal(0, 0.1, (3, N))


def _null_difference(rng: np.random.Generator) -> np.ndarray:
    """Per-task A - B (each averaged over 3 repetitions) for two stacks whose true means are equal."""
    base = rng.normal(0, 0.15, G)[C_IDX] + rng.normal(0, 0.08, N)

    def one() -> np.ndarray:
        return base + rng.normal(0, 0.1, G)[C_IDX] + rng.normal(0, 0.05, N) + rng.normal(0, 0.1, (3, N))

    return one().mean(axis=0) - one().mean(axis=0)


@pytest.mark.slow
def test_compare_macro_covers_and_holds_its_size_when_clustered():
    """`avb compare`'s macro (stratified, clustered by source, t on clusters - families df; sign-flip p over
    whole clusters) covers the true 0 in >= 93% of the benchmarks and rejects at p < 0.05 in <= 7%. The same
    estimator with every task its own cluster covers less than 0.93 and rejects more than 0.07. (The interval
    and p are built from `cluster_se` and `sign_flip_p`, the two functions `paired_stat` uses, skipping its
    MDD solve for speed; the first benchmark checks that they agree with `paired_stat` itself.)"""
    hits = {True: 0, False: 0}
    rejections = {True: 0, False: 0}
    for s in range(S):
        d = _null_difference(np.random.default_rng(s))
        for clustered in (True, False):
            cl = list(CLUSTERS) if clustered else None
            se, df = cluster_se(d, weights=MACRO_W, strata=list(FAMS), clusters=cl)
            est, half = float(MACRO_W @ d), t_quantile(0.975, df) * se
            hits[clustered] += est - half <= 0 <= est + half
            p, _ = sign_flip_p(d, weights=MACRO_W, clusters=cl, permutations=1000, seed=s)
            rejections[clustered] += p < 0.05
            if s == 0:
                full = paired_stat(d, weights=MACRO_W, strata=list(FAMS), clusters=cl, permutations=1000)
                assert full.ci_low == pytest.approx(est - half) and full.df == df
    assert hits[True] / S >= 0.93 and rejections[True] / S <= 0.07
    assert hits[False] / S < 0.93 and rejections[False] / S > 0.07


@pytest.mark.slow
def test_leaderboard_family_cells_cover_when_the_bootstrap_clusters():
    """The leaderboard's bootstrap resampling source clusters within families (with the small-sample stretch)
    covers every family's true mean in >= 93% of the benchmarks, i.e. a false-positive rate (interval missing
    the truth) <= 7%; resampling tasks one by one covers sequencing (7 films of 4 tasks) far less."""
    fams = list(DESIGN)
    by_fam = {f: list(CLUSTERS[FAMS == f]) for f in fams}
    hits = {True: dict.fromkeys(fams, 0), False: dict.fromkeys(fams, 0)}
    for s in range(S):
        y = _stack(np.random.default_rng(10_000 + s))
        scores = {f: y[:, FAMS == f] for f in fams}
        for clustered in (True, False):
            boot = bootstrap(scores, resamples=500, seed=s, clusters=by_fam if clustered else None)
            for f in fams:
                lo, hi = np.quantile(boot[f], [0.025, 0.975])
                hits[clustered][f] += lo <= MU[f] <= hi
    for f in fams:
        assert hits[True][f] / S >= 0.93, (f, hits[True][f] / S)
    assert hits[False]["sequencing"] / S < 0.85
