"""Source-material clusters: which tasks were cut from the same material, and the clustered bootstrap.

Tasks cut from one film (or one repair source) tend to succeed or fail together, so an interval that treats them
as independent is too narrow. `source_clusters(tasks)` groups them by the material they were cut from: a family
that declares a `cluster` hook in the verifier registry (`verifiers.cluster_hook`) keys its tasks by it (repair:
its source video, `verifiers.repair.profiles.source_cluster`, key `repair-source:<file>` or `repair-group:vN`);
every other task by its film (`film`, else `provenance.film`), key `film:<title>`: sequencing by
`provenance.film`, assembly by `film`; recap tasks record no film, so each stays alone, as does every task whose
source is unknown (`task:<family>-<id>`). The prefixes keep a repair source and a film of the same name apart; a
film used by sequencing and assembly is the same material and is one key across families.

`resolve_clustering` decides, once for `avb compare`, `avb power` and the leaderboard, whether the clusters are
known: from the tasks given (a dataset), else from the one local dataset every result's provenance names; off
with `enabled=False` (`--no-cluster`). Its `Clustering.label` is what every table prints, and it says when
clustering changed nothing (every task has a source of its own).

`cluster_bootstrap` is the leaderboard's bootstrap when clusters are known: within each family its clusters are
drawn with replacement (the runs, as before, once per replicate for all families), and each replicate's family
mean is over the drawn clusters' cells (excluded cells left out). With few clusters the percentile interval of a
cluster bootstrap is too narrow (its variance is about `(G-1)/G` of the unbiased one, and it has normal rather than
t tails), so each family's replicates are stretched about the estimate (`stretch`) until their percentile
interval has the half width `t_df * SE` of the CR2 / Bell-McCaffrey t interval of the family mean
(`paired.cluster_se` on the task means, clusters as given): the same small-sample rule `avb compare` uses, while
macro and micro (means of the stretched family replicates) keep the bootstrap's joint draw of runs. Matching the
half width, not the sd, matters with 2-3 clusters, where the replicates take a few values and their percentile
interval is narrower than `z` sds. Stretching rather than replacing the
percentile interval keeps one interval rule for every leaderboard cell, clustered or not. For 2 equal clusters
and one run the factor is 12.7 (df 1), for 36 singletons about 1.05 (the old `sqrt(G/(G-1)) t_{G-1} / z` gave 9.2
for 2 clusters, and with unequal clusters it overstated the df).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats as _st

from agenticvbench.results.model import Result
from agenticvbench.verifiers import cluster_hook

#: What tables say the clusters are.
SOURCE_LABEL = "source material (film / repair source)"


@dataclass(frozen=True)
class Clustering:
    """The clusters every command uses (None: every task its own) and the sentence tables print about them."""

    clusters: dict[tuple[str, int], str] | None
    reason: str  # why there are no clusters ('' when there are)

    def label(self, tasks: Iterable[tuple[str, int]]) -> str:
        """What the table's caption says about clustering over `tasks` (family, task id)."""
        keys = list(tasks)
        if self.clusters is None:
            return f"task ({self.reason})" if self.reason else "task"
        groups = {self.clusters.get(k, f"task:{k[0]}-{k[1]}") for k in keys}
        text = f"{SOURCE_LABEL}, {len(groups)} cluster(s) for {len(keys)} task(s)"
        if len(groups) == len(keys):
            text += "; clustering changed nothing: every task has a source of its own"
        return text


def _text(value: Any) -> str:
    """`value` stripped when it is a non-empty string, else ''."""
    return value.strip() if isinstance(value, str) else ""


def _film(task: Any) -> str:
    """The film a task was cut from (`film`, else `provenance.film`), '' when none is recorded."""
    film = _text(getattr(task, "film", ""))
    prov = getattr(task, "provenance", None)
    if not film and isinstance(prov, Mapping):
        film = _text(prov.get("film"))
    return f"film:{film}" if film else ""


def source_clusters(tasks: Iterable[Any]) -> dict[tuple[str, int], str]:
    """(family, task id) -> cluster key from the tasks' source material (rules in the module docstring)."""
    out: dict[tuple[str, int], str] = {}
    for t in tasks:
        fam, tid = str(t.family), int(t.task_id)
        key = (cluster_hook(fam) or _film)(t)
        out[(fam, tid)] = key or f"task:{fam}-{tid}"
    return out


def local_dataset(results: Sequence[Result]) -> str | None:
    """The one local dataset (mirror or parquet path that exists) every result naming a dataset names, else None.
    A result that names none (an `error` whose verifier crashed before it recorded provenance) does not veto."""
    found: set[str] = set()
    for r in results:
        d = (r.provenance or {}).get("dataset")
        if d is None:
            continue
        if not isinstance(d, dict) or d.get("kind") not in ("mirror", "parquet", "local"):
            return None
        found.add(str(d.get("dataset")))
    if len(found) != 1:
        return None
    path = next(iter(found))
    return path if Path(path).exists() else None


def resolve_clustering(
    results: Sequence[Result],
    *,
    tasks: Any = None,
    dataset: str | None = None,
    revision: str | None = None,
    enabled: bool = True,
) -> Clustering:
    """The clusters of `results`' tasks: from `tasks` (Task objects), else `dataset`, else the local dataset the
    results' provenance names; none with `enabled=False` or when the source material is unknown. A dataset
    given explicitly that cannot be read raises (the loader's one-line error); one only named by the results
    is skipped with the reason."""
    if not enabled:
        return Clustering(None, "--no-cluster")
    from agenticvbench.dataset.loader import load_tasks
    from agenticvbench.errors import AVBError

    if tasks is not None and not isinstance(tasks, Mapping):
        return Clustering(source_clusters(tasks), "")
    if dataset:
        return Clustering(source_clusters(load_tasks(dataset=dataset, revision=revision)), "")
    named = local_dataset(results)
    if named is None:
        return Clustering(None, "source material unknown: give --dataset to cluster")
    try:
        return Clustering(source_clusters(load_tasks(dataset=named)), "")
    except AVBError as exc:
        return Clustering(
            None, f"source material unknown: the dataset the results name is unreadable ({exc})"
        )


def family_clusters(
    clusters: Mapping[tuple[str, int], str] | None, universe_tasks: Mapping[str, Sequence[int]]
) -> dict[str, list[str]] | None:
    """Per family, the cluster key of each task (in order); None when every task is alone in every family (the
    clustered bootstrap would change nothing)."""
    if not clusters:
        return None
    out = {f: [clusters.get((f, int(t)), f"task:{f}-{t}") for t in ids] for f, ids in universe_tasks.items()}
    return out if any(len(set(v)) < len(v) for v in out.values()) else None


def stretch(se: float, df: float, half: float, level: float) -> float:
    """The factor that turns bootstrap replicates whose percentile interval (at `level`) has half width `half` into
    ones whose interval has the half width `t_df * se` of the t interval; 1 when either is 0."""
    if not (math.isfinite(half) and half > 0 and se > 0):
        return 1.0
    return float(_st.t.ppf(1 - (1 - level) / 2, df)) * se / half


def _counts(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    """(resamples x n) how often each of n units is drawn when n are drawn with replacement."""
    draws = rng.integers(0, n, size=(resamples, n)) + n * np.arange(resamples)[:, None]
    return np.bincount(draws.ravel(), minlength=resamples * n).reshape(resamples, n).astype(float)


def replicate_means(sums: np.ndarray, kept: np.ndarray, *, any_kept: bool) -> np.ndarray:
    """Replicate means `sums / kept`. A replicate that drew no kept cell has no mean (nan: the percentile interval
    leaves it out, so it is the bootstrap given at least one kept cell); when the data have no kept cell at all, every
    replicate is 0, the headline's own rule for a family with no cell left."""
    if not any_kept:
        return np.zeros_like(sums, dtype=float)
    return np.where(kept > 0, sums / np.maximum(kept, 1e-300), np.nan)


def percentile_interval(samples: np.ndarray, level: float) -> tuple[float | None, float | None]:
    """The percentile interval of the replicates that have a value (None, None when none has)."""
    alpha = (1.0 - level) / 2.0
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return None, None
    lo, hi = np.quantile(finite, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def cluster_bootstrap(
    scores: Mapping[str, np.ndarray],
    clusters: Mapping[str, Sequence[str]],
    *,
    resamples: int,
    seed: int,
    level: float,
) -> dict[str, np.ndarray]:
    """Replicates of every family mean, macro and micro, resampling clusters within families (module docstring).

    `scores`: family -> runs x tasks (nan = excluded cell); `clusters`: family -> a key per task."""
    from agenticvbench.analysis.paired import cluster_se

    rng = np.random.default_rng(seed)
    fams = [f for f in scores if scores[f].size]
    if not fams or resamples <= 0:
        return {}
    run_w = _counts(rng, scores[fams[0]].shape[0], resamples)
    out: dict[str, np.ndarray] = {}
    kept_of: dict[str, np.ndarray] = {}
    for fam in fams:
        mat = scores[fam]
        _, c_idx = np.unique(np.array([str(k) for k in clusters[fam]]), return_inverse=True)
        g = int(c_idx.max()) + 1
        task_w = _counts(rng, g, resamples)[:, c_idx.reshape(-1)]
        filled, kept = np.nan_to_num(mat, nan=0.0), (~np.isnan(mat)).astype(float)
        sums = ((run_w @ filled) * task_w).sum(axis=1)
        kept_of[fam] = ((run_w @ kept) * task_w).sum(axis=1)
        n_kept = kept.sum()
        reps = replicate_means(sums, kept_of[fam], any_kept=bool(n_kept))
        est = float(filled.sum() / n_kept) if n_kept else 0.0
        has = ~np.all(np.isnan(mat), axis=0)  # the CR2 interval of the task means (module docstring)
        found = (
            cluster_se(np.nanmean(mat[:, has], axis=0), clusters=list(c_idx.reshape(-1)[has]))
            if has.sum() >= 2
            else None
        )
        lo, hi = percentile_interval(reps, level)
        factor = (
            1.0
            if found is None or lo is None or hi is None
            else stretch(found[0], found[1], (hi - lo) / 2, level)
        )
        out[fam] = est + factor * (reps - est)
    stacked = np.stack([out[f] for f in fams])
    weights = np.stack([kept_of[f] for f in fams])
    out["macro"] = stacked.mean(axis=0)
    total = weights.sum(axis=0)
    # micro weighs each family's replicate by the kept cells it drew: a family that drew none (nan) weighs nothing
    micro_sums = (np.nan_to_num(stacked) * weights).sum(axis=0)
    out["micro"] = replicate_means(
        micro_sums, total, any_kept=any(bool((~np.isnan(scores[f])).any()) for f in fams)
    )
    return out
