"""`compare_runs`: stack A against stack B, task by task (paired), per family and overall.

On the tasks both stacks have a result for (`paired_tasks`, the rule `avb power` uses too): each stack's
repetitions are averaged within each task (a run without a result for that task counts 0, an excluded cell is
left out: the leaderboard's rules), the per-task differences `A - B` over the tasks both stacks kept (a task
every repetition of one stack excluded is left out of the pair) are combined per family (every task weighs the same), for macro (every family weighs the same) and for micro
(every task weighs the same), with the clustered interval, sign-flip p-value and minimum detectable difference of
`agenticvbench.analysis.paired`. Family p-values are Holm-adjusted across the families compared. The A and B
columns are what the leaderboard prints for each stack over the compared tasks (`stack_headline`: its mean over
its own kept cells), so a task one stack excluded still counts in the other stack's column.

Clusters: `clusters` ((family, task id) -> key, from `clusters.source_clusters`, re-exported here) groups tasks
cut from the same source material; without it every task is its own cluster (`unclustered_reason` says why in the
caption). The commands find the clusters with `clusters.resolve_clustering`, so they cluster whenever the source
material is known.

A comparison is refused (`SubmissionError`, one line) when the stacks share no task, or their results mix
dataset revisions or (within a family) verifier versions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from agenticvbench.analysis.aggregate import (
    GroupHeadline,
    group_headline,
    group_results,
    run_ref,
    score_matrices,
)
from agenticvbench.analysis.clusters import Clustering, source_clusters  # noqa: F401 - public name, re-exported
from agenticvbench.analysis.comparability import dataset_key, verifier_key
from agenticvbench.analysis.compare_table import (  # noqa: F401 - public names, re-exported
    ALPHA,
    FORMATS,
    RANGE_MARK,
    TIE,
    CompareRow,
    Comparison,
    _p,
)
from agenticvbench.analysis.paired import (
    DEFAULT_LEVEL,
    DEFAULT_PERMUTATIONS,
    DEFAULT_POWER,
    DEFAULT_SEED,
    PairedStat,
    holm,
    paired_stat,
)
from agenticvbench.analysis.power import Design, rep_spread
from agenticvbench.analysis.task_universe import TaskUniverse
from agenticvbench.dataset.tasks import FAMILIES
from agenticvbench.errors import SubmissionError
from agenticvbench.results.model import INVALID_STATUS, Result


def _refuse_mixed(results: Sequence[Result]) -> None:
    datasets = {dataset_key(r) for r in results if (r.provenance or {}).get("dataset") is not None}
    if len(datasets) > 1:
        raise SubmissionError(f"cannot compare: the results mix {len(datasets)} dataset revisions")
    for fam in FAMILIES:
        versions = {verifier_key(r) for r in results if r.family == fam and r.status == "scored"}
        if len(versions) > 1:
            raise SubmissionError(f"cannot compare: the {fam} results mix {len(versions)} verifier versions")


def _label(results: Sequence[Result]) -> str:
    groups = sorted({run_ref(r).group for r in results})
    return ", ".join(f"{h}/{m}" for h, m in groups)


def _matrices(results: Sequence[Result], universe: TaskUniverse) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return score_matrices(results, sorted({run_ref(r) for r in results}), universe)


def stack_matrix(results: Sequence[Result], universe: TaskUniverse) -> np.ndarray:
    """Runs x tasks scores of one stack over `universe`, families concatenated in order (excluded cells nan, a
    cell without a result 0: `aggregate.score_matrices`)."""
    mats = _matrices(results, universe)
    return np.concatenate([mats[f][0] for f in universe.families], axis=1)


def no_result_cells(results: Sequence[Result], universe: TaskUniverse) -> int:
    """How many run x task cells of one stack over `universe` have no result (they count 0)."""
    return sum(int(np.sum(st == "no_result")) for _, st in _matrices(results, universe).values())


def _have(results: Sequence[Result]) -> set[tuple[str, int]]:
    """The (family, task id) a stack has a result for (an invalid result file is none)."""
    return {(r.family, int(r.task_id)) for r in results if r.status != INVALID_STATUS}


def _universe(tasks: Iterable[tuple[str, int]]) -> TaskUniverse:
    by_fam: dict[str, list[int]] = {}
    for fam, tid in sorted(tasks):
        by_fam.setdefault(fam, []).append(tid)
    order = [f for f in FAMILIES if f in by_fam] + sorted(f for f in by_fam if f not in FAMILIES)
    return TaskUniverse({f: tuple(by_fam[f]) for f in order}, "observed")


@dataclass(frozen=True)
class PairedTasks:
    """The tasks a comparison (or a plan) is over: `shared` (every stack has a result), `kept` (every stack has
    a cell that is not excluded: the paired differences), `compared` (the shared tasks of the families `kept`
    still holds: each stack's own means), and per family the shared tasks left out of `kept`."""

    shared: TaskUniverse
    kept: TaskUniverse
    compared: TaskUniverse
    excluded: dict[str, int]


def paired_tasks(stacks: Sequence[Sequence[Result]]) -> PairedTasks:
    """The `PairedTasks` of stacks: one rule for `avb compare` and `avb power` (`SubmissionError` when the stacks
    share no task, or every shared task is excluded by one of them)."""
    shared = _universe(set.intersection(*map(_have, stacks)))
    if not shared.families:
        raise SubmissionError(
            f"cannot compare: {' and '.join(_label(res) or name for res, name in zip(stacks, 'AB', strict=False))} "
            "share no task with a result"
        )
    ok = np.all([np.any(np.isfinite(stack_matrix(res, shared)), axis=0) for res in stacks], axis=0)
    flat = [(f, t) for f in shared.families for t in shared.tasks[f]]
    kept = _universe(k for k, good in zip(flat, ok, strict=True) if good)
    excluded = {f: len(shared.tasks[f]) - len(kept.tasks.get(f, ())) for f in shared.families}
    if not kept.families:
        raise SubmissionError("cannot compare: every shared task is excluded (infrastructure failures)")
    compared = TaskUniverse({f: shared.tasks[f] for f in kept.families}, "observed")
    return PairedTasks(shared, kept, compared, excluded)


def stack_headline(results: Sequence[Result], universe: TaskUniverse) -> GroupHeadline:
    """What the leaderboard prints for one stack over `universe` (`aggregate.group_headline`, no bootstrap): each
    family the mean of the stack's own kept cells, macro and micro by the leaderboard's rules. A stack of
    several (harness, model) rows is taken as one."""
    if len({run_ref(r).group for r in results}) > 1:
        results = [replace(r, run={**(r.run or {}), "harness": "stack", "model": "stack"}) for r in results]
    return group_headline(results, universe, resamples=0)


def compare_runs(
    results_a: Sequence[Result],
    results_b: Sequence[Result],
    *,
    clusters: Mapping[tuple[str, int], str] | None = None,
    level: float = DEFAULT_LEVEL,
    power: float = DEFAULT_POWER,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
    unclustered_reason: str = "",
) -> Comparison:
    """Compare stack A (`results_a`, one or several runs) with stack B, paired by task (module docstring)."""
    _refuse_mixed([*results_a, *results_b])
    tasks = paired_tasks([results_a, results_b])
    universe, order = tasks.kept, list(tasks.kept.families)
    heads = [stack_headline(res, tasks.compared) for res in (results_a, results_b)]
    diffs = np.nanmean(stack_matrix(results_a, universe), axis=0) - np.nanmean(
        stack_matrix(results_b, universe), axis=0
    )
    key = (lambda f, t: clusters.get((f, t), f"task:{f}-{t}")) if clusters else (lambda f, t: f"task:{f}-{t}")
    kw: dict[str, Any] = {"level": level, "power": power, "permutations": permutations, "seed": seed}
    all_f = [f for f in order for _ in universe.tasks[f]]
    all_c = [key(f, t) for f in order for t in universe.tasks[f]]
    fam_of = np.array(all_f)
    rows: list[CompareRow] = []
    for fam in order:
        d = diffs[fam_of == fam]
        cl = [c for c, f in zip(all_c, all_f, strict=True) if f == fam]
        means = (heads[0].families[fam].mean, heads[1].families[fam].mean)
        rows.append(_row(fam, means, d, paired_stat(d, clusters=cl, **kw), tasks.excluded[fam]))
    for r, p in zip(rows, holm([r.stat.p_value for r in rows]), strict=True):
        r.p_holm = p
        r.holm_m = len(rows)
    sizes = {f: len(universe.tasks[f]) for f in order}
    design = Design.macro(all_f, all_c)
    spreads = [
        found.sentence()
        for label, res in (("A", results_a), ("B", results_b))
        if (found := rep_spread(label, stack_matrix(res, universe), design))
    ]
    for cell, w in (
        ("macro", [1.0 / (len(order) * sizes[f]) for f in all_f]),
        ("micro", [1.0 / len(all_f)] * len(all_f)),
    ):
        means = (float(getattr(heads[0], cell)), float(getattr(heads[1], cell)))
        stat = paired_stat(diffs, weights=np.asarray(w), strata=all_f, clusters=all_c, **kw)
        rows.append(_row(cell, means, diffs, stat, sum(tasks.excluded.values())))
    have_a, have_b = _have(results_a), _have(results_b)
    return Comparison(
        label_a=_label(results_a),
        label_b=_label(results_b),
        runs_a=sorted({run_ref(r).path for r in results_a}),
        runs_b=sorted({run_ref(r).path for r in results_b}),
        rows=rows,
        tasks={f: list(universe.tasks[f]) for f in order},
        clustering=Clustering(dict(clusters) if clusters else None, unclustered_reason).label(
            (f, t) for f in order for t in universe.tasks[f]
        ),
        level=level,
        power=power,
        no_result_cells={
            "a": no_result_cells(results_a, tasks.compared),
            "b": no_result_cells(results_b, tasks.compared),
        },
        only_a=len(have_a - have_b),
        only_b=len(have_b - have_a),
        excluded=tasks.excluded,
        rep_spread=spreads,
    )


def _row(cell: str, means: tuple[float, float], d: np.ndarray, stat: PairedStat, excluded: int) -> CompareRow:
    """One row before Holm: the two stacks' means, the paired statistic and the tasks A won / lost / tied."""
    return CompareRow(
        cell=cell,
        mean_a=means[0],
        mean_b=means[1],
        stat=stat,
        p_holm=None,
        won=int(np.sum(d > TIE)),
        lost=int(np.sum(d < -TIE)),
        tied=int(np.sum(np.abs(d) <= TIE)),
        excluded=excluded,
    )


def paired_columns(
    groups: Iterable[Any], results: Sequence[Result], reference: str, **kwargs: Any
) -> dict[str, dict[tuple[str, str], str]]:
    """The leaderboard's `--compare-to ROW` column: each row's paired macro difference (row - reference, points)
    with its interval and p-value, on the tasks both have; 'reference' on the reference row; the refusal's
    reason when a pair cannot be compared. `reference` is 'harness/model'."""
    by_group = {"/".join(k): v for k, v in group_results(results).items()}
    if reference not in by_group:
        raise SubmissionError(f"--compare-to {reference}: no such row (rows: {', '.join(sorted(by_group))})")
    col: dict[tuple[str, str], str] = {}
    for g in groups:
        name = f"{g.harness}/{g.model}"
        if name == reference:
            col[(g.harness, g.model)] = "reference"
            continue
        try:
            macro = next(
                r
                for r in compare_runs(by_group.get(name, []), by_group[reference], **kwargs).rows
                if r.cell == "macro"
            )
        except SubmissionError as exc:
            col[(g.harness, g.model)] = str(exc).replace("cannot compare: ", "not compared: ")
            continue
        s = macro.stat
        ci = "" if s.ci_low is None else f" [{100 * s.ci_low:+.1f}, {100 * s.ci_high:+.1f}]"  # type: ignore[operator]
        col[(g.harness, g.model)] = f"{100 * s.estimate:+.1f}{ci} p={_p(s.p_value)} ({s.n_tasks} tasks)"
    return {f"vs {reference} (paired macro, pts)": col}
