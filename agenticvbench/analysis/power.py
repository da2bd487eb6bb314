"""Planning a comparison: how many tasks or repetitions detect a difference of X points at 80% power.

`avb power` plans with the estimator `avb compare` reports: the macro difference (every family weighs the same;
or one family with `--family`), its variance the stratified cluster-robust one of
`agenticvbench.analysis.paired.cluster_se` (CR2; strata = families, clusters = source material when known), and a
t quantile on its Bell-McCaffrey degrees of freedom, over the tasks and cells `avb compare` uses
(`compare.paired_tasks`, `compare.stack_matrix`). So the same design prints the same MDD in both commands.

The variance of the macro estimate when each stack runs `r` repetitions is split as `V(r) = between + within / r`:

- `within` is the repetition noise, `sum_t w_t^2 (s_A,t^2 + s_B,t^2)` with `s_t^2` a task's variance across
  repetitions (needs 2+ repetitions; 0 with one);
- `between` is what repetitions cannot remove: the clustered variance of the observed estimate minus the
  repetition noise it holds (`Var_obs - sum_t w_t^2 (s_A,t^2/r_A + s_B,t^2/r_B)`). When that is below 0 (the
  repetitions disagree more than the tasks do), `between` is 0 and `within` is scaled down so that at the observed
  repetitions `V` is `Var_obs` again: all of the observed variance is repetition noise, and the MDD at the
  observed design is still compare's (clipping `between` alone made it larger). With one stack,
  the other is assumed to have the same variance and to be *uncorrelated* task by task (twice the stack's own
  clustered variance): an upper bound, since real stacks find the same tasks hard and pairing then helps.

`Components` holds both per task (`n_tasks` x the variance of the estimate), so with `n` tasks the standard
error is `sd(r) / sqrt(n)`; a planned design keeps the observed clusters per task, scales the observed
Bell-McCaffrey df by `n / observed tasks`, and says whether the sign-flip p can reach 0.05 (`reachable`).
With a single repetition `within` cannot be separated from `between`: all the variance is counted as `between`
and more repetitions are shown as not helping (a conservative reading).

`rep_spread`: with 2+ repetitions of a stack, the spread (sd) of its per-run macro. The task-level variance of the
stack's macro already holds the repetition noise divided by `r`, so a run-to-run sd above `SE_task x sqrt(r)` is
more than the task-level interval allows: something shared by all tasks of a run (an outage, a provider change)
moved whole runs, and the interval, which treats tasks as the only units, understates the uncertainty.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agenticvbench.analysis.paired import (
    DEFAULT_LEVEL,
    DEFAULT_PERMUTATIONS,
    DEFAULT_POWER,
    cluster_se,
    min_detectable,
    min_p_value,
    t_test_power,
)

MAX_TASKS = 100000


@dataclass(kw_only=True, frozen=True)
class Components:
    """Variance components of a per-task paired difference (score units, i.e. fractions of 1), with the
    design's clusters per task and number of strata (families) for the degrees of freedom."""

    between: float
    within: float
    n_tasks: int
    reps: tuple[int, ...]
    basis: str
    clusters_per_task: float = 1.0
    strata: int = 1
    #: the Bell-McCaffrey df of the observed design (None: `n - 1`, every task its own cluster)
    df_obs: float | None = None
    #: what Holm multiplies the smallest p by (1 for macro; the families compared when one family is planned)
    holm_m: int = 1

    def sd(self, reps: int) -> float:
        """Standard deviation of one task's paired difference when each stack runs `reps` repetitions."""
        return math.sqrt(max(0.0, self.between + self.within / reps))

    def df(self, n_tasks: int) -> float:
        """Degrees of freedom of a design with `n_tasks` tasks: the observed Bell-McCaffrey df scaled by
        `n_tasks / observed tasks` (at least 1); `n_tasks - 1` without an observed design."""
        if self.df_obs is None or not self.n_tasks:
            return max(1, n_tasks - 1)
        return max(1.0, self.df_obs * n_tasks / self.n_tasks)

    def clusters(self, n_tasks: int) -> int:
        """Clusters of a design with `n_tasks` tasks (the observed clusters per task)."""
        return max(1, round(n_tasks * self.clusters_per_task))

    def reachable(self, n_tasks: int, permutations: int = DEFAULT_PERMUTATIONS, alpha: float = 0.05) -> bool:
        """False when the sign-flip p of a design with `n_tasks` tasks can never be below `alpha` after Holm's
        multiplier (`paired.min_p_value`): no verdict is possible, whatever the difference."""
        return min_p_value(self.clusters(n_tasks), permutations) * self.holm_m < alpha

    def mdd(
        self, reps: int, n_tasks: int, *, level: float = DEFAULT_LEVEL, power: float = DEFAULT_POWER
    ) -> float:
        """Minimum detectable difference of this design with `n_tasks` tasks and `reps` repetitions per stack."""
        return min_detectable(self.sd(reps) / math.sqrt(n_tasks), self.df(n_tasks), level=level, power=power)


@dataclass(frozen=True)
class Design:
    """The weights, strata and clusters of the estimate being planned (one entry per task, in order)."""

    weights: np.ndarray
    strata: list[str]
    clusters: list[str]

    @classmethod
    def macro(cls, families: list[str], clusters: list[str]) -> Design:
        """Every family weighs the same, every task within its family the same (`avb compare`'s macro)."""
        sizes = {f: families.count(f) for f in set(families)}
        w = np.array([1.0 / (len(sizes) * sizes[f]) for f in families])
        return cls(w, list(families), list(clusters))


def _clustered(values: np.ndarray, design: Design) -> tuple[float, float]:
    """(variance, df) of the weighted mean of per-task `values` under `design` (0 and df 1 when undefined)."""
    found = cluster_se(values, weights=design.weights, strata=design.strata, clusters=design.clusters)
    return (0.0, 1.0) if found is None else (found[0] ** 2, found[1])


def filled(matrix: np.ndarray) -> np.ndarray:
    """Runs x tasks scores with excluded cells (nan) filled by the task's mean over its other runs, so a task's
    mean is the mean of its kept cells (as compare takes it)."""
    means = np.nanmean(matrix, axis=0)
    return np.where(np.isnan(matrix), means[None, :], matrix)


def _task_var(matrix: np.ndarray) -> np.ndarray:
    """Each task's variance across repetitions (runs x tasks; 0 with one repetition)."""
    return np.var(matrix, axis=0, ddof=1) if matrix.shape[0] >= 2 else np.zeros(matrix.shape[1])


def _components(
    var_obs: float, df: float, w_obs: float, w_one: float, design: Design, reps: tuple[int, ...], basis: str
) -> Components:
    n = design.weights.size
    between, within = var_obs - w_obs, w_one
    if between < 0:  # all the observed variance is repetition noise (module docstring)
        between, within = 0.0, (w_one * var_obs / w_obs if w_obs > 0 else 0.0)
    return Components(
        between=n * between,
        within=n * within,
        n_tasks=n,
        reps=reps,
        basis=basis,
        clusters_per_task=len(set(design.clusters)) / n,
        strata=len(set(design.strata)),
        df_obs=df,
    )


def design_one_stack(matrix: np.ndarray, design: Design) -> Components:
    """Components from one stack's runs x tasks scores (the uncorrelated-stack bound of the module docstring;
    excluded cells nan)."""
    matrix = filled(matrix)
    r = matrix.shape[0]
    var, df = _clustered(matrix.mean(axis=0), design)
    s2 = _task_var(matrix)
    w2 = design.weights**2
    return _components(
        2 * var,
        df,
        2 * float(w2 @ s2) / r,
        2 * float(w2 @ s2),
        design,
        (r,),
        "one stack, assuming a second stack with the same variance, uncorrelated by task",
    )


def design_two_stacks(a: np.ndarray, b: np.ndarray, design: Design) -> Components:
    """Components from two stacks' runs x tasks scores on the same tasks (columns aligned, excluded cells nan),
    for `design`."""
    a, b = filled(a), filled(b)
    ra, rb = a.shape[0], b.shape[0]
    var, df = _clustered(a.mean(axis=0) - b.mean(axis=0), design)
    sa, sb = _task_var(a), _task_var(b)
    w2 = design.weights**2
    return _components(
        var,
        df,
        float(w2 @ (sa / ra + sb / rb)),
        float(w2 @ (sa + sb)),
        design,
        (ra, rb),
        "two stacks, paired by task",
    )


@dataclass(frozen=True)
class RepSpread:
    """One stack's run-to-run spread of the macro against what its task-level interval allows."""

    label: str
    run_macros: list[float]
    sd: float
    allowed: float

    @property
    def exceeds(self) -> bool:
        """True when the run-to-run sd is more than the task-level standard error x sqrt(reps) allows."""
        return self.sd > self.allowed * (1 + 1e-9)

    def sentence(self) -> str:
        """One line for a caption (points)."""
        runs = ", ".join(f"{100 * m:.1f}" for m in self.run_macros)
        verdict = (
            "more than the task-level interval allows (something moved whole runs; the interval understates "
            "the uncertainty)"
            if self.exceeds
            else "within what the task-level interval allows"
        )
        return (
            f"{self.label}: macro of each of its {len(self.run_macros)} runs {runs}; run-to-run sd "
            f"{100 * self.sd:.1f} points against at most {100 * self.allowed:.1f} (task-level SE x sqrt(reps)): "
            f"{verdict}."
        )


def rep_spread(label: str, matrix: np.ndarray, design: Design) -> RepSpread | None:
    """`RepSpread` of one stack's runs x tasks scores (excluded cells nan, filled with the task's mean over the
    other runs); None with fewer than 2 runs."""
    r = matrix.shape[0]
    if r < 2:
        return None
    full = filled(matrix)
    run_macros = full @ design.weights
    var, _ = _clustered(full.mean(axis=0), design)
    return RepSpread(
        label, [float(x) for x in run_macros], float(np.std(run_macros, ddof=1)), math.sqrt(var * r)
    )


def tasks_needed(
    sd: float,
    delta: float,
    *,
    level: float = DEFAULT_LEVEL,
    power: float = DEFAULT_POWER,
    df: Callable[[int], float] | None = None,
) -> int:
    """Smallest number of tasks at which a paired t test detects `delta` with probability `power`; `df(n)` gives
    the degrees of freedom with n tasks (default `n - 1`; a design's `Components.df`)."""
    if delta <= 0:
        raise ValueError("delta must be positive")
    if sd <= 0:
        return 2
    df_of = df or (lambda n: n - 1)

    def ok(n: int) -> bool:
        return t_test_power(delta * math.sqrt(n) / sd, df_of(n), level=level) >= power

    lo, hi = 2, 4
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > MAX_TASKS:
            return MAX_TASKS
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid + 1, hi)
    return lo


def reps_needed(
    comp: Components,
    n_tasks: int,
    delta: float,
    *,
    max_reps: int = 20,
    level: float = DEFAULT_LEVEL,
    power: float = DEFAULT_POWER,
) -> int | None:
    """Fewest repetitions (<= `max_reps`) detecting `delta` with `n_tasks` tasks; None when reps alone cannot."""
    for r in range(1, max_reps + 1):
        if comp.mdd(r, n_tasks, level=level, power=power) <= delta:
            return r
    return None
