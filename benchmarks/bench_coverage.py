"""Benchmark: coverage of the leaderboard's and `avb compare`'s intervals, and the verdict's false-positive rate,
at the benchmark's real layout, before (old few-cluster factor) and after (CR2 / Bell-McCaffrey).

Layout: recap 36 tasks, each its own source; sequencing 28 tasks from 27 sources (one film holds 2); repair 18
tasks over 6 sources (3 each); assembly 18 tasks from 9 films (2 each). Variants move repair to 3 sources (6 each)
or 2 sources (9 each), the few-cluster case. Scores are bounded, with many exact 0s and 1s: a stack's score on
task j of source c in repetition k is `clip(mu_f + a_c + b_j + i_c + i_j + e_jk, 0, 1)` with a shared source
difficulty `a_c` (sd 0.35), a shared task difficulty `b_j` (sd 0.25), the stack's own source and task interaction
`i_c` (sd 0.15) and `i_j` (sd 0.1), and repetition noise `e` (sd 0.2): about a third of the cells are exactly 0 or 1.

Leaderboard cells (one stack): does the percentile interval of `aggregate.bootstrap` (clustered, 400 resamples)
hold the family's population mean `E clip(...)` (and macro, micro)? Before = the replicates stretched by the old
`sqrt(G/(G-1)) t_{G-1} / z`; after = the shipped stretch to the half width of the CR2/BM t interval.

Compare rows (two stacks with the same distribution: the true difference is 0): coverage of 0 by each row's
interval, and how often the verdict ('A better'/'B better': Holm p < 0.05 for a family, plain p for macro/micro,
and the interval excluding 0) is given. Before = the old `G_h/(G_h-1)` factor on `G - H` df; after =
`paired.cluster_se` (CR2 / BM). p = `paired.sign_flip_p` (exact up to 16 clusters, else 999 random flips).

`S` simulated benchmarks per configuration (default 500, seeded): the Monte Carlo standard error of a proportion
near 0.95 (or 0.05) is sqrt(0.95 x 0.05 / S) = 0.010 at S = 500. Usage: `python benchmarks/bench_coverage.py
[--sims 500]`. Runs in about 2 minutes on one core.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from collections.abc import Callable, Iterator

import numpy as np
from scipy import stats

import agenticvbench.analysis.clusters as clusters_mod
from agenticvbench.analysis.aggregate import bootstrap
from agenticvbench.analysis.paired import cluster_se, holm, sign_flip_p

FAMILIES = ("recap", "sequencing", "repair", "assembly")
MU = {"recap": 0.45, "sequencing": 0.5, "repair": 0.4, "assembly": 0.55}
SD = {"a": 0.35, "b": 0.25, "ic": 0.15, "ij": 0.1, "e": 0.2}
LEVEL = 0.95


def layout(repair_sources: int) -> tuple[np.ndarray, np.ndarray]:
    """(family per task, cluster index per task) of the 100 tasks with repair over `repair_sources` sources."""
    fams: list[str] = []
    keys: list[str] = []
    for t in range(36):
        fams.append("recap")
        keys.append(f"r{t}")
    for t in range(28):
        fams.append("sequencing")
        keys.append(f"s{min(t, 26)}")
    for t in range(18):
        fams.append("repair")
        keys.append(f"p{t % repair_sources}")
    for t in range(18):
        fams.append("assembly")
        keys.append(f"a{t // 2}")
    return np.array(fams), np.unique(keys, return_inverse=True)[1].reshape(-1)


def truth() -> dict[str, float]:
    """Each family's population mean score `E clip(N(mu_f, total variance), 0, 1)` (closed form)."""
    sd = math.sqrt(sum(v**2 for v in SD.values()))
    out = {}
    for f, mu in MU.items():
        a, b = (0 - mu) / sd, (1 - mu) / sd
        inside = mu * (stats.norm.cdf(b) - stats.norm.cdf(a)) + sd * (stats.norm.pdf(a) - stats.norm.pdf(b))
        out[f] = float(inside + stats.norm.sf(b))
    return out


def stacks(
    rng: np.random.Generator, fams: np.ndarray, c_idx: np.ndarray, reps: int, n: int
) -> list[np.ndarray]:
    """`n` stacks' reps x tasks scores sharing the source and task difficulty."""
    g = int(c_idx.max()) + 1
    mu = np.array([MU[f] for f in fams])
    shared = mu + rng.normal(0, SD["a"], g)[c_idx] + rng.normal(0, SD["b"], fams.size)
    out = []
    for _ in range(n):
        own = rng.normal(0, SD["ic"], g)[c_idx] + rng.normal(0, SD["ij"], fams.size)
        out.append(np.clip(shared + own + rng.normal(0, SD["e"], (reps, fams.size)), 0, 1))
    return out


def old_se(d: np.ndarray, w: np.ndarray, strata: np.ndarray, c_idx: np.ndarray) -> tuple[float, int]:
    """The replaced rule: `Var = sum_h G_h/(G_h-1) sum_g (sum_t w_t e_t)^2`, df = clusters - strata."""
    _, s_idx = np.unique(strata, return_inverse=True)
    _, c = np.unique(c_idx, return_inverse=True)
    g = int(c.max()) + 1
    h_of = np.zeros(g, dtype=int)
    h_of[c] = s_idx
    sizes = np.bincount(h_of)
    means = np.bincount(s_idx, weights=w * d) / np.bincount(s_idx, weights=w)
    u = np.bincount(c, weights=w * (d - means[s_idx]), minlength=g)
    factor = sizes[h_of] / (sizes[h_of] - 1)
    return math.sqrt(float(np.sum(factor * u**2))), g - int(np.count_nonzero(sizes))


def old_stretch(gs: Iterator[int]) -> Callable[..., float]:
    """A stand-in for `clusters.stretch` that applies the old factor of the next family's cluster count."""

    def factor(se: float, df: float, half: float, level: float) -> float:
        g = next(gs)
        q = 1 - (1 - level) / 2
        return math.sqrt(g / (g - 1)) * float(stats.t.ppf(q, g - 1)) / float(stats.norm.ppf(q))

    return factor


def one_config(repair_sources: int, reps: int, sims: int) -> dict[str, dict[str, float]]:
    """Coverage and verdict rates of one layout x repetitions."""
    fams, c_idx = layout(repair_sources)
    true = truth()
    true["macro"] = float(np.mean([true[f] for f in FAMILIES]))
    true["micro"] = float(sum(true[f] * np.sum(fams == f) for f in FAMILIES) / fams.size)
    cells = [*FAMILIES, "macro", "micro"]
    keys = {f: [str(k) for k in c_idx[fams == f]] for f in FAMILIES}
    g_of = {f: len(set(keys[f])) for f in FAMILIES}
    weights = {
        "macro": np.array([1 / (4 * np.sum(fams == f)) for f in fams]),
        "micro": np.full(fams.size, 1 / fams.size),
    }
    tally = {
        k: dict.fromkeys(cells, 0.0) for k in ("lb_old", "lb_new", "cov_old", "cov_new", "fp_old", "fp_new")
    }
    shipped = clusters_mod.stretch
    extremes = 0.0
    for s in range(sims):
        rng = np.random.default_rng(s)
        one, a, b = stacks(rng, fams, c_idx, reps, 3)
        extremes += float(np.mean((one == 0) | (one == 1))) / sims
        scores = {f: one[:, fams == f] for f in FAMILIES}
        for tag in ("old", "new"):
            if tag == "old":
                clusters_mod.stretch = old_stretch(iter([g_of[f] for f in FAMILIES]))
            try:
                boot = bootstrap(scores, resamples=400, seed=s, clusters=keys, level=LEVEL)
            finally:
                clusters_mod.stretch = shipped
            for cell in cells:
                lo, hi = np.quantile(boot[cell], [0.025, 0.975])
                tally[f"lb_{tag}"][cell] += (lo <= true[cell] <= hi) / sims
        d = a.mean(axis=0) - b.mean(axis=0)
        rows = {}
        for f in FAMILIES:
            m = fams == f
            rows[f] = (d[m], np.full(int(m.sum()), 1 / m.sum()), fams[m], c_idx[m])
        for cell in ("macro", "micro"):
            rows[cell] = (d, weights[cell], fams, c_idx)
        p = {
            c: sign_flip_p(x, weights=w, clusters=list(cl), permutations=999, seed=s)[0]
            for c, (x, w, _, cl) in rows.items()
        }
        p.update(zip(FAMILIES, holm([p[f] for f in FAMILIES]), strict=True))
        for cell, (x, w, st, cl) in rows.items():
            est = float(w @ x)
            for tag, (se, df) in (
                ("old", old_se(x, w, st, cl)),
                ("new", cluster_se(x, weights=w, strata=list(st), clusters=list(cl))),
            ):
                half = float(stats.t.ppf(0.975, df)) * se
                covered = abs(est) <= half
                tally[f"cov_{tag}"][cell] += covered / sims
                tally[f"fp_{tag}"][cell] += (not covered and p[cell] < 0.05) / sims  # type: ignore[operator]
    tally["extremes"] = {"share": extremes}
    return tally


def main() -> None:
    """Run every configuration and print one Markdown table per measure."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sims", type=int, default=500)
    args = parser.parse_args()
    start = time.perf_counter()
    configs = list(itertools.product((6, 3, 2), (1, 3)))
    results = {c: one_config(*c, args.sims) for c in configs}
    mc = math.sqrt(0.95 * 0.05 / args.sims)
    print(f"S = {args.sims} per configuration; MC standard error near 0.95: {mc:.3f}, near 0.05: {mc:.3f}")
    share = np.mean([r["extremes"]["share"] for r in results.values()])
    print(f"cells exactly 0 or 1: {share:.0%}; {time.perf_counter() - start:.0f} s\n")
    cells = [*FAMILIES, "macro", "micro"]
    for measure, title in (
        ("lb", "leaderboard interval covers the population mean"),
        ("cov", "compare interval covers the true difference 0"),
        ("fp", "compare verdict given (false positive; nominal <= 0.05)"),
    ):
        print(f"### {title} (before -> after)\n")
        print("| repair sources | reps | " + " | ".join(cells) + " |")
        print("|---|---|" + "---|" * len(cells))
        for (src, reps), r in results.items():
            vals = " | ".join(f"{r[f'{measure}_old'][c]:.3f} -> {r[f'{measure}_new'][c]:.3f}" for c in cells)
            print(f"| {src} | {reps} | {vals} |")
        print()


if __name__ == "__main__":
    main()
