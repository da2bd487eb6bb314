"""`compare_runs`: stack A against stack B, task by task (paired), per family and overall.

On the tasks both stacks have a result for: each stack's repetitions are averaged within each task (a run
without a result for that task counts 0, the leaderboard's rule), the per-task differences `A - B` are
combined per family (every task weighs the same), for macro (every family weighs the same) and for micro
(every task weighs the same), with the clustered interval, sign-flip p-value and minimum detectable difference of
`agenticvbench.analysis.paired`. Family p-values are Holm-adjusted across the families compared.

Clusters: `clusters` ((family, task id) -> key, from `clusters.source_clusters`, re-exported here) groups tasks
cut from the same source material; without it every task is its own cluster (`unclustered_reason` says why in the
caption). The commands find the clusters with `clusters.resolve_clustering`, so they cluster whenever the source
material is known.

A comparison is refused (`SubmissionError`, one line) when the stacks share no task, or their results mix
dataset revisions or (within a family) verifier versions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from agenticvbench.analysis.aggregate import run_ref, score_matrices
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


def _task_means(results: Sequence[Result], universe: TaskUniverse) -> tuple[dict[str, np.ndarray], int]:
    """Per family, each task's mean over the runs that did not exclude it (`excluded` cells are nan in the
    score matrix and are left out, the leaderboard's rule); nan where every run excluded the task."""
    runs = sorted({run_ref(r) for r in results})
    mats = score_matrices(results, runs, universe)
    no_result = sum(int(np.sum(st == "no_result")) for _, st in mats.values())
    out: dict[str, np.ndarray] = {}
    for f, (sc, _) in mats.items():
        kept = (~np.isnan(sc)).sum(axis=0)
        out[f] = np.where(kept > 0, np.nansum(sc, axis=0) / np.maximum(kept, 1), np.nan)
    return out, no_result


def _run_matrix(results: Sequence[Result], universe: TaskUniverse) -> np.ndarray:
    """Runs x tasks scores of one stack over the compared tasks, families concatenated (excluded cells nan)."""
    mats = score_matrices(results, sorted({run_ref(r) for r in results}), universe)
    return np.concatenate([mats[f][0] for f in universe.families], axis=1)


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
    have_a = {(r.family, int(r.task_id)) for r in results_a if r.status != INVALID_STATUS}
    have_b = {(r.family, int(r.task_id)) for r in results_b if r.status != INVALID_STATUS}
    shared = have_a & have_b
    if not shared:
        raise SubmissionError(
            f"cannot compare: {_label(results_a) or 'A'} and {_label(results_b) or 'B'} "
            "share no task with a result"
        )
    by_fam: dict[str, list[int]] = {}
    for fam, tid in sorted(shared):
        by_fam.setdefault(fam, []).append(tid)
    order = [f for f in FAMILIES if f in by_fam] + sorted(f for f in by_fam if f not in FAMILIES)
    universe = TaskUniverse({f: tuple(by_fam[f]) for f in order}, "observed")
    means_a, none_a = _task_means(results_a, universe)
    means_b, none_b = _task_means(results_b, universe)
    excluded: dict[str, int] = {}
    for fam in list(order):
        keep = np.isfinite(means_a[fam]) & np.isfinite(means_b[fam])
        excluded[fam] = int(np.sum(~keep))
        means_a[fam], means_b[fam] = means_a[fam][keep], means_b[fam][keep]
        by_fam[fam] = [t for t, k in zip(by_fam[fam], keep, strict=True) if k]
        if not by_fam[fam]:
            order.remove(fam)
    if not order:
        raise SubmissionError("cannot compare: every shared task is excluded (infrastructure failures)")
    universe = TaskUniverse({f: tuple(by_fam[f]) for f in order}, "observed")
    key = (lambda f, t: clusters.get((f, t), f"task:{f}-{t}")) if clusters else (lambda f, t: f"task:{f}-{t}")
    kw: dict[str, Any] = {"level": level, "power": power, "permutations": permutations, "seed": seed}
    rows: list[CompareRow] = []
    all_d, all_f, all_c, all_a, all_b = [], [], [], [], []
    for fam in order:
        d = means_a[fam] - means_b[fam]
        cl = [key(fam, t) for t in universe.tasks[fam]]
        rows.append(
            CompareRow(
                fam,
                float(means_a[fam].mean()),
                float(means_b[fam].mean()),
                paired_stat(d, clusters=cl, **kw),
                None,
                *_wlt(d),
                excluded[fam],
            )
        )
        all_d += list(d)
        all_f += [fam] * len(d)
        all_c += cl
        all_a += list(means_a[fam])
        all_b += list(means_b[fam])
    for r, p in zip(rows, holm([r.stat.p_value for r in rows]), strict=True):
        r.p_holm = p
    sizes = {f: len(universe.tasks[f]) for f in order}
    d_all = np.asarray(all_d)
    design = Design.macro(all_f, all_c)
    spreads = [
        found.sentence()
        for label, res in (("A", results_a), ("B", results_b))
        if (found := rep_spread(label, _run_matrix(res, universe), design))
    ]
    for cell, w in (
        ("macro", [1.0 / (len(order) * sizes[f]) for f in all_f]),
        ("micro", [1.0 / len(all_d)] * len(all_d)),
    ):
        wa = np.asarray(w)
        rows.append(
            CompareRow(
                cell,
                float(np.dot(wa, all_a)),
                float(np.dot(wa, all_b)),
                paired_stat(d_all, weights=wa, strata=all_f, clusters=all_c, **kw),
                None,
                *_wlt(d_all),
                sum(excluded.values()),
            )
        )
    return Comparison(
        _label(results_a),
        _label(results_b),
        sorted({run_ref(r).path for r in results_a}),
        sorted({run_ref(r).path for r in results_b}),
        rows,
        {f: list(universe.tasks[f]) for f in order},
        Clustering(dict(clusters) if clusters else None, unclustered_reason).label(
            (f, t) for f in order for t in universe.tasks[f]
        ),
        level,
        power,
        {"a": none_a, "b": none_b},
        len(have_a - have_b),
        len(have_b - have_a),
        excluded,
        spreads,
    )


def _wlt(d: np.ndarray) -> tuple[int, int, int]:
    return int(np.sum(d > TIE)), int(np.sum(d < -TIE)), int(np.sum(np.abs(d) <= TIE))


def paired_columns(
    groups: Iterable[Any], results: Sequence[Result], reference: str, **kwargs: Any
) -> dict[str, dict[tuple[str, str], str]]:
    """The leaderboard's `--compare-to ROW` column: each row's paired macro difference (row - reference, points)
    with its interval and p-value, on the tasks both have; 'reference' on the reference row; the refusal's
    reason when a pair cannot be compared. `reference` is 'harness/model'."""
    by_group: dict[str, list[Result]] = {}
    for r in results:
        by_group.setdefault("/".join(run_ref(r).group), []).append(r)
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
