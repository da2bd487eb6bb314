"""`baselines()`: write every trivial strategy's outputs into run folders and score them with the normal engine.

Layout: `ROOT/<strategy>/` (and `ROOT/<strategy>-<rep>/` for seeded repetitions) is an ordinary run directory,
with `run.json` = {harness: "baseline", model: <strategy>, rep} and one task folder per task the strategy applies
to; results land in `avb-results/` as for any run. ROOT defaults to `<cache>/baselines/<dataset key>`, the key
hashing the dataset's identity (id, kind, revision, resolved revision).

A rerun is instant: a task's outputs are rewritten only when the writer version or the task's stamp (its rubric,
and the name, size and modification time of each input file) changed since they were written (recorded in
`run.json` under `config`), and the engine then reuses every result whose fingerprint is unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from agenticvbench.baselines.strategies import RANDOM_REPS, STRATEGIES, WRITER_VERSION, Strategy, get_strategy
from agenticvbench.baselines.table import HARNESS, BaselineTable
from agenticvbench.dataset.loader import default_cache_dir, default_dataset, load_tasks
from agenticvbench.dataset.tasks import FAMILIES, Task
from agenticvbench.fsutil import atomic_write_json
from agenticvbench.results.model import Result
from agenticvbench.runs.submission import RUN_JSON_MAX_BYTES
from agenticvbench.runs.trial_outcomes import get_path, run_meta
from agenticvbench.scoring.executors import Executor, make_executor

__all__ = ["RANDOM_REPS", "baselines", "default_root", "pending_jobs", "run_folders", "scoring_estimate"]

#: CPU seconds of one baseline scoring job per family: (fixed part, part per MB of the task's input files),
#: measured on the small demo (one core); plus `POOL_START_S` once. A guide for the notice printed before implicit
#: scoring, not a promise (docs/baselines.md says how it was measured).
JOB_COST_S: dict[str, tuple[float, float]] = {
    "recap": (0.2, 1.5),
    "sequencing": (0.05, 0.0),
    "repair": (0.2, 2.5),
    "assembly": (0.05, 0.02),
}
POOL_START_S = 2.0


def dataset_key(tasks: Sequence[Task], dataset: str | os.PathLike[str]) -> str:
    """A short hash of the dataset's identity (from the first task's source), naming its baselines folder."""
    src = next((t.source for t in tasks if t.source is not None), None)
    ident: Any = src.provenance() if src is not None else {"dataset": str(dataset)}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:16]


def default_root(
    tasks: Sequence[Task], dataset: str | os.PathLike[str], cache_dir: str | Path | None
) -> Path:
    """`<cache>/baselines/<dataset key>`."""
    cache = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    return cache / "baselines" / dataset_key(tasks, dataset)


def run_folders(strategy: Strategy, root: Path) -> list[tuple[Path, int]]:
    """(run folder, rep) of each repetition of `strategy` under `root`."""
    if strategy.reps == 1:
        return [(root / strategy.name, 1)]
    return [(root / f"{strategy.name}-{rep}", rep) for rep in range(1, strategy.reps + 1)]


def task_stamp(task: Task) -> str:
    """What a task's baseline outputs depend on: writer version, rubric, and each input file's name/size/mtime."""
    files = []
    for p in task.materials():
        st = p.stat()
        files.append([p.name, st.st_size, st.st_mtime_ns])
    payload = [WRITER_VERSION, task.family, task.rubric_json, files]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def pending_jobs(
    tasks: Sequence[Task], root: Path, strategies: Sequence[str] | None = None
) -> list[tuple[str, Task]]:
    """(run folder name, task) of every baseline job under `root` that `baselines()` would score afresh: no
    result file yet, or outputs that would be rewritten (the task's stamp changed)."""
    from agenticvbench.results.model import result_path
    from agenticvbench.runs.submission import RESULTS_DIRNAME

    chosen = [get_strategy(n) for n in strategies] if strategies else list(STRATEGIES)
    stamps = {int(t.task_id): task_stamp(t) for t in tasks}
    out: list[tuple[str, Task]] = []
    for s in chosen:
        mine = [t for t in tasks if t.family in s.families]
        for run, _rep in run_folders(s, root) if mine else []:
            old = _stamps(run)
            for t in mine:
                cached = result_path(run / RESULTS_DIRNAME, int(t.task_id)).is_file()
                if not cached or old.get(str(t.task_id)) != stamps[int(t.task_id)]:
                    out.append((run.name, t))
    return out


def scoring_estimate(
    jobs: Sequence[tuple[str, Task]], workers: int, *, cores: int | None = None, load: float = 0.0
) -> float:
    """Rough wall seconds to score `jobs` with `workers` processes on `cores` cores (default: `workers`) while
    `load` other processes want the CPU (the 1-minute load average): the `JOB_COST_S` CPU seconds by family and
    input size, shared as the kernel shares the cores, plus `POOL_START_S`."""
    if not jobs:
        return 0.0
    total = 0.0
    sizes: dict[int, float] = {}
    for _run, t in jobs:
        if int(t.task_id) not in sizes:
            sizes[int(t.task_id)] = sum(p.stat().st_size for p in t.materials()) / 1e6
        fixed, per_mb = JOB_COST_S.get(t.family, (0.2, 2.5))
        total += fixed + per_mb * sizes[int(t.task_id)]
    w = max(1, min(workers, len(jobs)))
    c = max(1, cores or w)
    share = min(w, c) if load + w <= c else c * w / (load + w)  # cores this pool gets on a busy machine
    return POOL_START_S + total / share


def _stamps(run: Path) -> dict[str, str]:
    """The task stamps recorded in `run/run.json` (empty when absent or unreadable: everything is rewritten)."""
    stamps = get_path(run_meta(run, RUN_JSON_MAX_BYTES), "config", "stamps")
    return {str(k): str(v) for k, v in stamps.items()} if isinstance(stamps, dict) else {}


def write_run(strategy: Strategy, run: Path, rep: int, tasks: Sequence[Task], *, force: bool = False) -> int:
    """Write `strategy`'s outputs for `tasks` into the run folder `run`; returns how many tasks were (re)written."""
    run.mkdir(parents=True, exist_ok=True)
    old = {} if force else _stamps(run)
    stamps = dict(old)
    written = 0
    for task in tasks:
        stamp = task_stamp(task)
        folder = run / str(task.task_id)
        if old.get(str(task.task_id)) == stamp and folder.is_dir():
            continue
        if folder.exists():
            shutil.rmtree(folder)
        strategy.write(task, folder, rep)
        stamps[str(task.task_id)] = stamp
        written += 1
    atomic_write_json(
        run / "run.json",
        {
            "harness": HARNESS,
            "model": strategy.name,
            "rep": rep,
            "config": {
                "strategy": strategy.name,
                "description": strategy.description,
                "writer_version": WRITER_VERSION,
                "stamps": dict(sorted(stamps.items())),
            },
        },
    )
    return written


class _KeptOpen:
    """An executor shared by several `verify_run` calls: their `close()` is a no-op, the owner closes `inner`."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner

    def map_unordered(self, fn: Callable[[Any], Any], jobs: list[Any]) -> Iterator[Any]:
        """Delegate to the shared executor."""
        return self.inner.map_unordered(fn, jobs)

    def close(self) -> None:
        """Leave the shared executor running."""


def baselines(
    *,
    dataset: str | os.PathLike[str] | None = None,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
    family: str | None = None,
    task_ids: list[int] | None = None,
    tasks: list[Task] | None = None,
    out: str | Path | None = None,
    strategies: Sequence[str] | None = None,
    jobs: int | None = None,
    executor: str = "process",
    judge: Any = None,
    force: bool = False,
    progress: bool | Callable[[int], Any] = False,
) -> BaselineTable:
    """Write the trivial strategies' outputs for the selected tasks and score them; returns the table.

    `tasks` (already loaded) wins over `dataset`/`family`/`task_ids`. `out` is the baselines root (default
    `default_root`); `strategies` names a subset of `STRATEGIES`. `force` rewrites the outputs and rescores.
    Recap is scored with `judge` (default: none, python checks only, as `avb verify` without a judge).
    """
    from agenticvbench.dataset.selection import validate_jobs
    from agenticvbench.scoring.engine import verify_run

    validate_jobs(jobs)
    dataset = default_dataset() if dataset is None else dataset  # $AVB_DATASET, as the CLI
    if tasks is None:
        tasks = load_tasks(family, task_ids=task_ids, dataset=dataset, revision=revision, cache_dir=cache_dir)
    chosen = [get_strategy(n) for n in strategies] if strategies else list(STRATEGIES)
    root = Path(out).expanduser() if out else default_root(tasks, dataset, cache_dir)
    results: list[Result] = []
    notes: list[str] = []
    groups: dict[tuple[str, ...], list[Path]] = {}
    written = 0
    for s in chosen:
        mine = [t for t in tasks if t.family in s.families]
        if not mine:
            continue
        for run, rep in run_folders(s, root):
            written += write_run(s, run, rep, mine, force=force)
            groups.setdefault(s.families, []).append(run)
    if not written and not force and executor == "process" and jobs is None:
        jobs = 1  # nothing new to score: checking the cached results in-process beats starting workers
    pool = _KeptOpen(make_executor(executor, jobs))  # one pool for every group: workers start once
    try:
        for families, runs in groups.items():
            mine = [t for t in tasks if t.family in families]
            summary = verify_run(
                runs,
                dataset=dataset,
                cache_dir=cache_dir,
                tasks=mine,
                force=force,
                executor=pool,
                judge=judge,
                progress=progress,
            )
            results += summary.results
            notes += [n for n in summary.notes if "INTEGRITY" not in n]
    finally:
        pool.inner.close()
    by_family = {f: tuple(sorted(int(t.task_id) for t in tasks if t.family == f)) for f in FAMILIES}
    return BaselineTable(results, {f: ids for f, ids in by_family.items() if ids}, str(root), notes)
