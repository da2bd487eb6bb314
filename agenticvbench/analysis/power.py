"""Planning a comparison: how many tasks or repetitions detect a difference of X points at 80% power.

The paired difference of one task between stacks A and B, each averaged over `r` repetitions, has variance
`sigma_d^2(r) = between + within / r`:

- `within` is the repetition noise of the two stacks together (`s_wA^2 + s_wB^2`, each the pooled variance of a
  task's scores across repetitions); repetitions average it away;
- `between` is the part repetitions cannot remove: with two stacks, the variance of the per-task differences
  minus their repetition noise (`var(d) - s_wA^2/r_A - s_wB^2/r_B`, at least 0), i.e. how differently the two
  stacks find the same tasks hard; with one stack, assuming the other stack has the same variance and the two
  are *uncorrelated* task by task (`2 * s_task^2`, with `s_task^2 = var(task means) - s_w^2/r` the spread of task
  difficulty): an upper bound, since real stacks find the same tasks hard and pairing then helps.

A paired t test over `n` tasks then has standard error `sigma_d(r) / sqrt(n)` on `n - 1` degrees of freedom, and
`paired.min_detectable` / `tasks_needed` solve the noncentral t for the power asked. With a single repetition
`within` cannot be separated from `between`: all the variance is counted as `between` and more repetitions are
shown as not helping (a conservative reading).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agenticvbench.analysis.paired import DEFAULT_LEVEL, DEFAULT_POWER, min_detectable, t_test_power

MAX_TASKS = 100000


@dataclass(frozen=True)
class Components:
    """Variance components of a per-task paired difference (score units, i.e. fractions of 1)."""

    between: float
    within: float
    n_tasks: int
    reps: tuple[int, ...]
    basis: str

    def sd(self, reps: int) -> float:
        """Standard deviation of one task's paired difference when each stack runs `reps` repetitions."""
        return math.sqrt(max(0.0, self.between + self.within / reps))


def _within(matrix: np.ndarray) -> float:
    """Pooled variance across repetitions (runs x tasks matrix); 0 with one repetition."""
    if matrix.shape[0] < 2:
        return 0.0
    return float(np.mean(np.var(matrix, axis=0, ddof=1)))


def one_stack(matrix: np.ndarray) -> Components:
    """Components from one stack's runs x tasks scores (the uncorrelated-stack bound of the module docstring)."""
    r = matrix.shape[0]
    s_w = _within(matrix)
    s_task = max(0.0, float(np.var(matrix.mean(axis=0), ddof=1)) - s_w / r) if matrix.shape[1] > 1 else 0.0
    return Components(
        2 * s_task,
        2 * s_w,
        matrix.shape[1],
        (r,),
        "one stack, assuming a second stack with the same variance, uncorrelated by task",
    )


def two_stacks(a: np.ndarray, b: np.ndarray) -> Components:
    """Components from two stacks' runs x tasks scores on the same tasks (columns aligned)."""
    ra, rb = a.shape[0], b.shape[0]
    wa, wb = _within(a), _within(b)
    d = a.mean(axis=0) - b.mean(axis=0)
    var_d = float(np.var(d, ddof=1)) if d.size > 1 else 0.0
    return Components(
        max(0.0, var_d - wa / ra - wb / rb), wa + wb, int(d.size), (ra, rb), "two stacks, paired by task"
    )


def tasks_needed(
    sd: float, delta: float, *, level: float = DEFAULT_LEVEL, power: float = DEFAULT_POWER
) -> int:
    """Smallest number of tasks at which a paired t test detects `delta` with probability `power`."""
    if delta <= 0:
        raise ValueError("delta must be positive")
    if sd <= 0:
        return 2

    def ok(n: int) -> bool:
        return t_test_power(delta * math.sqrt(n) / sd, n - 1, level=level) >= power

    lo, hi = 2, 4
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > MAX_TASKS:
            return MAX_TASKS
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid + 1, hi)
    return lo


def mdd(sd: float, n_tasks: int, *, level: float = DEFAULT_LEVEL, power: float = DEFAULT_POWER) -> float:
    """Minimum detectable difference with `n_tasks` tasks (score units)."""
    return min_detectable(sd / math.sqrt(n_tasks), n_tasks - 1, level=level, power=power)


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
        if mdd(comp.sd(r), n_tasks, level=level, power=power) <= delta:
            return r
    return None
