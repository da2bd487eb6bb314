"""Headline aggregation: per-family means over runs x tasks, macro/micro, bootstrap CIs.

The rule: a family's headline is the mean of `headline_score`
(adjusted for sequencing/assembly, final for repair/recap) over that family's tasks; with several runs of one
(harness, model) it is the mean over the runs x tasks matrix. A task with no result, or with status missing,
malformed or error, counts 0 (an `error` is also reported loudly by the report, never silently hidden). A
`scored` result whose `headline_score` is not finite (nan, infinity: the schema's range check lets a nan through)
is read as an `error` cell counting 0, with the reason saying so (`as_cell`), by every surface (leaderboard,
compare, power), since they all read cells through `score_matrices`.
A cell with status `excluded` (an infrastructure failure the run declares left out, `avb harbor import
--infra-policy exclude`) is left out instead: the family mean is over the remaining cells, micro over all remaining
cells, macro over the family headlines; a family with no cell left has headline 0 (as `avb harbor metric`), still
weighs in macro and weighs nothing in micro. A bootstrap replicate that draws no remaining cell of a family has no
mean for it and is left out of that family's (and macro's) percentiles (`clusters.replicate_means`): the interval is
the bootstrap given at least one remaining cell, so one kept cell of 0.2 gives [0.20, 0.20], not [0.00, 0.20]. Every row lists its infrastructure failures (excluded, or counted 0
under the default `zero` policy) for rerun.

Which tasks count (the task universe: dataset, full benchmark or observed) is `agenticvbench.analysis.task_universe`.

Overall numbers, both always labelled: **macro** = mean of the family headlines (each family weighs the same);
**micro** = mean over all run x task cells (each task weighs the same, so recap's 36 tasks dominate).

Bootstrap (percentile, 95 % by default, `DEFAULT_RESAMPLES` replicates, fixed `DEFAULT_SEED`): each replicate
draws the group's runs with replacement (one draw shared by all families, since a run is one unit) and, within
each family independently, its tasks with replacement (stratified by family, so family sizes stay fixed); the
statistic is recomputed on the resampled runs x tasks matrix. Every group starts from a fresh generator seeded
with `seed`, so a group's interval does not depend on which other groups are in the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from agenticvbench.analysis.clusters import (
    cluster_bootstrap,
    family_clusters,
    percentile_interval,
    replicate_means,
)
from agenticvbench.analysis.task_universe import TaskUniverse, task_universe
from agenticvbench.results.model import INVALID_STATUS, STATUSES, Result
from agenticvbench.runs.identity import RunIdentity
from agenticvbench.runs.trial_outcomes import INFRA_TEXT
from agenticvbench.verifiers import headline_name

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95
NO_RESULT = "no_result"
#: Every status a run x task cell can have: the result statuses, an invalid result file, and no result file at all.
CELL_STATUSES: tuple[str, ...] = (*STATUSES, INVALID_STATUS, NO_RESULT)


@dataclass(kw_only=True, frozen=True, order=True)
class RunRef:
    """One run as the report sorts and groups it: a `RunIdentity` with its rep as text (the path identifies it).

    Built from a result's identity by `RunRef.of` only, so the report and the result files agree."""

    harness: str
    model: str
    rep: str
    path: str

    @classmethod
    def of(cls, identity: RunIdentity) -> RunRef:
        """The report's key of `identity`, with the folder-name fallback applied (`RunIdentity.named`)."""
        named = identity.named()
        return cls(harness=named.harness, model=named.model, rep=named.rep_label, path=named.path)

    @property
    def group(self) -> tuple[str, str]:
        """The (harness, model) this run belongs to."""
        return (self.harness, self.model)

    @property
    def short(self) -> str:
        """A compact label for tables and plots."""
        rep = f" rep {self.rep}" if self.rep not in ("", "None") else ""
        tail = self.path.rstrip("/").rsplit("/", 1)[-1] if self.path else ""
        return f"{self.harness}/{self.model}{rep}" + (f" ({tail})" if tail and tail != self.model else "")


def run_ref(result: Result) -> RunRef:
    """The run a result belongs to, from `Result.run` (written by the engine: options, run.json or folder name).

    Results written before the folder-name fallback existed say model "unknown"; they get the folder name too,
    so runs without a run.json never merge into one "unknown/unknown" row. A `run` block with wrong types (a
    crafted file) reads as absent fields, never as an error.
    """
    return RunRef.of(result.identity)


def integrity_of(result: Result) -> list[str]:
    """The result's integrity flags (e.g. `audio_only`, `identical_to_input`); [] for results without them."""
    flags = getattr(result, "integrity", None)
    return [str(f) for f in flags] if isinstance(flags, (list, tuple)) else []


@dataclass(kw_only=True)
class FamilyHeadline:
    """One family's headline for one (harness, model): the runs x tasks mean and its interval."""

    family: str
    mean: float
    ci_low: float | None
    ci_high: float | None
    n_tasks: int
    n_runs: int
    run_means: list[float]
    status_counts: dict[str, int]
    aggregation: str


@dataclass(kw_only=True)
class GroupHeadline:
    """All headlines of one (harness, model) over its runs."""

    harness: str
    model: str
    runs: list[RunRef]
    families: dict[str, FamilyHeadline]
    macro: float
    macro_ci: tuple[float | None, float | None]
    micro: float
    micro_ci: tuple[float | None, float | None]
    macro_label: str
    micro_label: str
    status_counts: dict[str, int] = field(default_factory=dict)
    #: family (or "macro"/"micro") -> keys of `analysis.comparability.MARKS`; set by `comparability.annotate`
    marks: dict[str, list[str]] = field(default_factory=dict)
    mark_notes: list[str] = field(default_factory=list)
    coverage: dict[str, int] = field(default_factory=dict)  # {"with_result": n, "counted": runs x tasks}
    judge: dict[str, dict[str, Any]] = field(default_factory=dict)  # run path -> judge calls, tokens, cost
    #: `results.signatures.signature_counts` of its results
    signatures: dict[str, int] = field(default_factory=dict)
    #: Infrastructure failures to rerun, "run path: task N (excluded|counted 0)" (`infra_failures`)
    infra: list[str] = field(default_factory=list)

    @property
    def n_errors(self) -> int:
        """Cells whose verifier failed (status error): never silently a 0, so tables flag them."""
        return self.status_counts.get("error", 0)

    @property
    def n_invalid(self) -> int:
        """Cells whose result file is invalid (they count 0; the file is named among the problems)."""
        return self.status_counts.get(INVALID_STATUS, 0)

    @property
    def n_excluded(self) -> int:
        """Cells left out of the means (status excluded: infrastructure failures under `--infra-policy exclude`)."""
        return self.status_counts.get("excluded", 0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


#: The reason of a cell `--exclude-flagged` left out (`settings.leave_out_flagged`): excluded, but not an
#: infrastructure failure to rerun.
FLAGGED_OUT = "left out by --exclude-flagged: integrity flag "


def is_infra_failure(result: Result) -> bool:
    """True for a cell whose trial failed in the infrastructure: excluded, or counted 0 under the `zero` policy
    (its reason starts with the import's infrastructure-failure text)."""
    if result.status == "excluded":
        return not result.reason.startswith(FLAGGED_OUT)
    return result.status != "scored" and result.reason.startswith(INFRA_TEXT)


def infra_failures(results: Iterable[Result]) -> list[str]:
    """One line per infrastructure failure among `results`, in run/task order, for the rerun list."""
    bad = sorted((r for r in results if is_infra_failure(r)), key=lambda r: (run_ref(r).path, int(r.task_id)))
    return [
        f"{run_ref(r).path}: task {r.task_id} ({'excluded' if r.status == 'excluded' else 'counted 0'})"
        for r in bad
    ]


def group_results(results: Iterable[Result]) -> dict[tuple[str, str], list[Result]]:
    """Results by (harness, model), groups in sorted order."""
    out: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        out.setdefault(run_ref(r).group, []).append(r)
    return dict(sorted(out.items()))


#: The reason an `as_cell` error carries (the score's text appended).
NOT_FINITE = "headline_score is not a finite number in a scored result; counted as an error (0)"


def as_cell(result: Result) -> Result:
    """The result as a cell counts it: itself, or, for a `scored` result whose `headline_score` is nan or
    infinite, an `error` with score 0 and a one-line reason (module docstring)."""
    if result.status != "scored" or math.isfinite(float(result.headline_score)):
        return result
    return replace(
        result, status="error", headline_score=0.0, reason=f"{NOT_FINITE}: {result.headline_score!r}"
    )


def score_matrices(
    results: Iterable[Result], runs: Sequence[RunRef], universe: TaskUniverse
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per family: (scores, statuses), each runs x tasks; a cell without a result is (0.0, "no_result"), an
    excluded cell is (nan, "excluded"); a scored result with a non-finite score is an error (`as_cell`)."""
    index = {(run_ref(r).path, int(r.task_id)): as_cell(r) for r in results}
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for fam in universe.families:
        ids = universe.tasks[fam]
        scores = np.zeros((len(runs), len(ids)), dtype=float)
        statuses = np.full((len(runs), len(ids)), NO_RESULT, dtype=object)
        for i, run in enumerate(runs):
            for j, tid in enumerate(ids):
                r = index.get((run.path, tid))
                if r is not None:
                    statuses[i, j] = r.status
                    scores[i, j] = {"scored": r.headline_score, "excluded": np.nan}.get(r.status, 0.0)
        out[fam] = (scores, statuses)
    return out


def combine_run_means(run_means: Sequence[float], n_tasks: Sequence[int] | None = None) -> float:
    """The runs x tasks mean from per-run means (each run weighted by its task count; equal counts: plain mean).

    This is how a published per-run table (e.g. the codex_cli + gpt-5.5 assembly worked example) turns into
    the headline.
    """
    weights = np.ones(len(run_means)) if n_tasks is None else np.asarray(n_tasks, dtype=float)
    if len(run_means) == 0 or weights.sum() == 0:
        return 0.0
    return float(np.dot(np.asarray(run_means, dtype=float), weights) / weights.sum())


def _nanmean(mat: np.ndarray, axis: Any = None) -> Any:
    """Mean over the cells that are not excluded (nan); 0 where none is left. Without nan: `mat.mean`."""
    if not np.isnan(mat).any():
        return mat.mean(axis=axis)
    kept = (~np.isnan(mat)).sum(axis=axis)
    total = np.nansum(mat, axis=axis)
    return np.where(kept > 0, total / np.maximum(kept, 1), 0.0)


def bootstrap(
    scores: Mapping[str, np.ndarray],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    clusters: Mapping[str, Sequence[str]] | None = None,
    level: float = DEFAULT_LEVEL,
) -> dict[str, np.ndarray]:
    """Bootstrap replicates of every family mean and of macro/micro (scheme in the module docstring).

    `scores` maps family -> runs x tasks matrix (all with the same number of runs). Returns arrays of
    length `resamples` keyed by family, "macro" and "micro". With `clusters` (family -> a cluster key per task)
    clusters are resampled within families instead of tasks (`clusters.cluster_bootstrap`).
    """
    if clusters is not None:
        return cluster_bootstrap(scores, clusters, resamples=resamples, seed=seed, level=level)
    rng = np.random.default_rng(seed)
    fams = [f for f in scores if scores[f].size]
    if not fams or resamples <= 0:
        return {}
    n_runs = scores[fams[0]].shape[0]
    run_idx = rng.integers(0, n_runs, size=(resamples, n_runs))
    out: dict[str, np.ndarray] = {}
    task_idx_of: dict[str, np.ndarray] = {}
    for fam in fams:
        mat = scores[fam]
        task_idx = task_idx_of[fam] = rng.integers(0, mat.shape[1], size=(resamples, mat.shape[1]))
        out[fam] = mat[run_idx[:, :, None], task_idx[:, None, :]].mean(axis=(1, 2))
    stacked = np.stack([out[f] for f in fams])
    out["macro"] = stacked.mean(axis=0)
    if not any(np.isnan(scores[f]).any() for f in fams):
        sizes = np.array([scores[f].shape[1] for f in fams], dtype=float)
        out["micro"] = (stacked * sizes[:, None]).sum(axis=0) / sizes.sum()
        return out
    # excluded cells (nan): each family's replicate mean over its remaining resampled cells, micro over all of them
    sums = np.zeros(resamples)
    kept = np.zeros(resamples)
    for fam in fams:
        mat = scores[fam]
        cells = mat[run_idx[:, :, None], task_idx_of[fam][:, None, :]].reshape(resamples, -1)
        fam_sums, fam_kept = np.nansum(cells, axis=1), (~np.isnan(cells)).sum(axis=1)
        sums, kept = sums + fam_sums, kept + fam_kept
        out[fam] = replicate_means(fam_sums, fam_kept, any_kept=bool((~np.isnan(mat)).any()))
    out["macro"] = np.stack([out[f] for f in fams]).mean(axis=0)
    out["micro"] = replicate_means(sums, kept, any_kept=bool(any((~np.isnan(scores[f])).any() for f in fams)))
    return out


def _counts(statuses: np.ndarray) -> dict[str, int]:
    values, counts = np.unique(statuses.astype(str), return_counts=True)
    found = {str(v): int(c) for v, c in zip(values, counts, strict=True)}
    return {s: found.get(s, 0) for s in CELL_STATUSES}


def group_headline(
    results: Iterable[Result],
    universe: TaskUniverse,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    clusters: Mapping[tuple[str, int], str] | None = None,
) -> GroupHeadline:
    """Headlines of one (harness, model): the results of all its runs (every result must share the group).
    `clusters` ((family, task id) -> source key) makes the bootstrap resample source clusters within families
    whenever some family has a cluster of 2+ tasks."""
    results = list(results)
    runs = sorted({run_ref(r) for r in results}, key=lambda r: (len(r.rep), r.rep, r.path))  # rep 2 before 10
    if not runs:
        raise ValueError("group_headline needs at least one result")
    if len({r.group for r in runs}) != 1:
        raise ValueError("group_headline got results of several (harness, model) groups; use headlines()")
    mats = score_matrices(results, runs, universe)
    fam_cl = family_clusters(clusters, universe.tasks)
    boot = bootstrap(
        {f: m[0] for f, m in mats.items()}, resamples=resamples, seed=seed, clusters=fam_cl, level=level
    )
    over = "source clusters (within families)" if fam_cl else "tasks"
    pct = f"{level:.0%}"
    fams: dict[str, FamilyHeadline] = {}
    for fam, (scores, statuses) in mats.items():
        ci = percentile_interval(boot[fam], level) if fam in boot else (None, None)
        fams[fam] = FamilyHeadline(
            family=fam,
            mean=float(_nanmean(scores)),
            ci_low=ci[0],
            ci_high=ci[1],
            n_tasks=scores.shape[1],
            n_runs=scores.shape[0],
            run_means=[float(x) for x in _nanmean(scores, axis=1)],
            status_counts=_counts(statuses),
            aggregation=f"mean of {headline_name(fam)} over "
            f"{scores.shape[0]} run(s) x {scores.shape[1]} task(s); no result/invalid/missing/malformed/error = 0; "
            + (f"{n_out} excluded cell(s) left out; " if (n_out := int(np.isnan(scores).sum())) else "")
            + (
                f"{pct} CI: percentile bootstrap over runs and {over} ({resamples} resamples, seed {seed})"
                if boot
                else "no CI (0 resamples)"
            ),
        )
    sizes = np.array([fams[f].n_tasks for f in fams], dtype=float)
    means = np.array([fams[f].mean for f in fams])
    macro = float(means.mean())
    micro = float((means * sizes).sum() / sizes.sum())
    if any(np.isnan(m[0]).any() for m in mats.values()):  # excluded cells: micro over the remaining cells
        kept = np.array([int((~np.isnan(mats[f][0])).sum()) for f in fams], dtype=float)
        micro = float((means * kept).sum() / kept.sum()) if kept.sum() else 0.0
    macro_ci = percentile_interval(boot["macro"], level) if boot else (None, None)
    micro_ci = percentile_interval(boot["micro"], level) if boot else (None, None)
    total: dict[str, int] = {s: sum(f.status_counts[s] for f in fams.values()) for s in CELL_STATUSES}
    return GroupHeadline(
        harness=runs[0].harness,
        model=runs[0].model,
        runs=runs,
        families=fams,
        macro=macro,
        macro_ci=macro_ci,
        micro=micro,
        micro_ci=micro_ci,
        macro_label=f"macro: unweighted mean of the {len(fams)} family headlines ({', '.join(fams)})",
        micro_label=f"micro: mean over all {int(sizes.sum())} tasks x {len(runs)} run(s) (each task weighs the same)",
        status_counts=total,
        infra=infra_failures(results),
    )


def headlines(
    results: Iterable[Result],
    universe: TaskUniverse | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    clusters: Mapping[tuple[str, int], str] | None = None,
) -> list[GroupHeadline]:
    """Headlines of every (harness, model) group, best macro first. Universe defaults to `observed`;
    `clusters` as in `group_headline`."""
    results = list(results)
    universe = universe or task_universe(results)
    out = [
        group_headline(rs, universe, resamples=resamples, seed=seed, level=level, clusters=clusters)
        for rs in group_results(results).values()
    ]
    return sorted(out, key=lambda g: (-g.macro, g.harness, g.model))
