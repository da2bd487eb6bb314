"""What `avb view` shows, gathered once: the runs' results and report, the tasks, and every file a page may offer.

Files are addressed by their index in `ViewModel.files`, never by a path the client names. Agent outputs are
found with the scoring rules (`RunDir.submission(...).file`: contained in the task folder, a regular file, under
the byte cap of its kind); a file those rules reject is not offered, and the page says why. Task inputs come from
the dataset (`Task.materials`). Verifier-only references (the repair source) are registered only when the model is
built for a local server (`local=True`): a bundle never has them.
"""

from __future__ import annotations

import mimetypes
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.analysis.aggregate import DEFAULT_RESAMPLES, RunRef, integrity_of, run_ref
from agenticvbench.dataset.tasks import OUTPUT_FILES
from agenticvbench.errors import SubmissionError
from agenticvbench.report.summary import Report, build_report
from agenticvbench.results.model import Result
from agenticvbench.results.signing import ResultKey
from agenticvbench.runs.pinned import reopened
from agenticvbench.runs.submission import (
    InputRejected,
    RunDir,
    cap_for,
    media_max_bytes,
    open_run,
)
from agenticvbench.view.checked import Checked, check_output
from agenticvbench.view.disclosure import spellings
from agenticvbench.view.reading import RunReader

MAX_INPUT_FILES = 64  # per task: a sequencing or assembly task has a few dozen clips at most
#: How a Harbor trial outcome that is not `scored` reads on a badge.
OUTCOME_BADGES = {
    "agent_timeout": "timeout",
    "agent_error": "agent error",
    "infra_failure": "infra failure",
    "verifier_error": "verifier error",
    "cancelled": "cancelled",
}


@dataclass(kw_only=True, frozen=True)
class FileRef:
    """One file a page may offer: its display name, checked real path, size and type."""

    name: str
    path: Path
    size: int
    ctype: str
    verifier_only: bool = False
    #: an agent output: what scoring hashed (`view.checked`); None for dataset files
    checked: Checked | None = None

    @property
    def ext(self) -> str:
        """The suffix the file is served under (`.mp4`, `.md`, ...), lower case, or `.bin`."""
        suffix = Path(self.name).suffix.lower()
        return suffix if suffix[1:].isalnum() and len(suffix) <= 6 else ".bin"

    @property
    def is_video(self) -> bool:
        """True for a video the browser can try to play."""
        return self.ctype.startswith("video/")


@dataclass(kw_only=True)
class ViewRun:
    """One run on the page: its position, the report's key and label, and its folder."""

    index: int
    ref: RunRef
    label: str
    folder: RunDir | None


@dataclass(kw_only=True)
class Cell:
    """One run x task cell of the grid."""

    run: int
    task_id: int
    family: str
    status: str
    score: float | None
    flags: list[str]
    n_warnings: int
    result: Result | None
    #: what `avb compare` counts for this cell (`aggregate.score_matrices`): the headline when scored, 0 for a
    #: failed cell or no result, None for an excluded one (no paired difference)
    value: float | None = 0.0
    #: the agent's wall time (run.json usage: agent_started to agent_finished), seconds; None when not recorded
    agent_s: float | None = None
    #: the trial's cost in US dollars (`avb cost`'s pricing of run.json usage); None without usage or a price
    cost_usd: float | None = None
    #: the Harbor trial outcome when it was not `scored` (`runs.trial_outcomes`: agent_timeout, infra_failure,
    #: ...), and its one-line reason; "" for other runs
    outcome: str = ""
    outcome_reason: str = ""

    @property
    def page(self) -> str:
        """The task page of this cell (relative URL)."""
        return f"task-{self.run}-{self.task_id}.html"

    @property
    def outcome_badge(self) -> str:
        """The short badge of a Harbor outcome ('timeout', 'infra failure', ...), '' without one."""
        return OUTCOME_BADGES.get(self.outcome, self.outcome.replace("_", " "))

    @property
    def shade(self) -> str:
        """A CSS class for the score (s0..s10) or the status."""
        if self.score is None:
            return f"st-{self.status}"
        return f"s{max(0, min(10, round(self.score * 10)))}"


@dataclass(kw_only=True)
class Stack:
    """One (harness, model) and its runs (the reps), in the order the runs were given."""

    index: int
    harness: str
    model: str
    runs: list[int]

    @property
    def label(self) -> str:
        """`harness / model`."""
        return f"{self.harness} / {self.model}"

    def page(self, task_id: int) -> str:
        """The page with every rep of this stack for `task_id` (relative URL)."""
        return f"stack-{self.index}-{task_id}.html"


@dataclass(kw_only=True)
class ViewModel:
    """Runs, report, tasks and the file registry behind every page."""

    runs: list[ViewRun]
    report: Report
    tasks: dict[int, Any]
    local: bool
    #: the state of the result files when they were read (`reading.results_stamp`); a page request that finds
    #: another state rebuilds the model (`server.ViewApp.refresh`)
    stamp: tuple[Any, ...] = ()
    #: the folders the model was built from, as given (what `stamp` covers)
    sources: list[str] = field(default_factory=list)
    #: the dataset folder as given (`--dataset`), '' when none was or it is not a folder here
    dataset: str = ""
    notes: list[str] = field(default_factory=list)
    media_cap: int = field(default_factory=media_max_bytes)  # as scoring: $AVB_MAX_MEDIA_MB, else 4096 MiB
    files: list[FileRef] = field(default_factory=list)
    _index: dict[tuple[str, bool, tuple[int, ...] | None], int] = field(default_factory=dict)
    _cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    _references: list[Any] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def stacks(self) -> list[Stack]:
        """The (harness, model) stacks, in the order their first run was given; each with its runs in order."""
        out: dict[tuple[str, str], Stack] = {}
        for run in self.runs:
            key = run.ref.group
            if key not in out:
                out[key] = Stack(index=len(out), harness=key[0], model=key[1], runs=[])
            out[key].runs.append(run.index)
        return list(out.values())

    def stack_of(self, run: int) -> Stack:
        """The stack run index `run` belongs to."""
        return next(s for s in self.stacks if run in s.runs)

    @property
    def task_order(self) -> list[int]:
        """Every task of the universe, family by family (the grid's rows)."""
        return [tid for fam in self.families for tid in self.task_ids(fam)]

    @property
    def families(self) -> list[str]:
        """The families of the task universe, in report order."""
        return list(self.report.universe.families)

    def task_ids(self, family: str) -> list[int]:
        """The universe's tasks of one family."""
        return list(self.report.universe.tasks[family])

    def cell(self, run: int, task_id: int) -> Cell | None:
        """The cell of run index `run` and `task_id`, or None when either is unknown."""
        return self._cells.get((run, task_id))

    def add_file(
        self, name: str, path: Path, *, verifier_only: bool = False, checked: Checked | None = None
    ) -> int | None:
        """Register a regular file (symlinks resolved) and return its index; None when it is not a regular file.
        An agent output comes with what was `checked` of it; every later read goes through `opened`. Pages
        render concurrently in the server, so the look up, append and index hold `lock`."""
        with self.lock:
            real = os.path.realpath(path)
            key = (real, verifier_only, checked.stamp if checked else None)
            if key in self._index:
                return self._index[key]
            try:
                st = os.stat(real)
            except OSError:
                return None
            if not stat.S_ISREG(st.st_mode):
                return None
            ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
            self.files.append(
                FileRef(
                    name=Path(name).name,
                    path=Path(real),
                    size=st.st_size,
                    ctype=ctype,
                    verifier_only=verifier_only,
                    checked=checked,
                )
            )
            self._index[key] = len(self.files) - 1
            return self._index[key]

    def outputs(self, run: int, task_id: int, family: str) -> tuple[list[tuple[str, int]], list[str]]:
        """The run's output files for a task that may be shown (`view.checked`: the bytes scoring checked, nothing
        it refused or flagged) as (name, file index), and a one-line note per file that is not."""
        folder = self.runs[run].folder
        if folder is None:
            return [], []
        sub = folder.submission(task_id, self.media_cap)
        cell = self.cell(run, task_id)
        found: list[tuple[str, int]] = []
        notes: list[str] = []
        for name in OUTPUT_FILES.get(family, ()):
            try:
                p = sub.file(name)
            except InputRejected as exc:
                notes.append(f"{name} not offered: {exc}")
                continue
            if p is None or sub.task_root is None:
                continue
            cap = cap_for(name, self.media_cap)
            verdict = check_output(
                cell.result if cell else None, name, p, sub.task_root, cap, self.is_reference
            )
            if isinstance(verdict, str):
                notes.append(verdict)
            elif (i := self.add_file(name, p, checked=verdict)) is not None:
                found.append((name, i))
        return found, notes

    @contextmanager
    def opened(self, index: int) -> Iterator[str]:
        """A path to read file `index` through: for an agent output, a descriptor reopened by the rules it was
        checked with (`runs.pinned.reopened`, which raises `PinError` when it changed since); else its path."""
        ref = self.files[index]
        if ref.checked is None:
            yield str(ref.path)
            return
        c = ref.checked
        with reopened(ref.path, c.root, c.cap, c.stamp) as source:
            yield source

    def path_roots(self) -> list[tuple[str, str]]:
        """(absolute path, placeholder) of this machine's folders a page can name (`disclosure.spellings` of each:
        as recorded, resolved, and as given to the viewer): each run's folder, the dataset's (as the results
        record it and as `dataset` was given), and the package cache (where the result key lives)."""
        from agenticvbench.dataset.loader import default_cache_dir

        roots = [
            (p, f"[run {run.index + 1}]") for run in self.runs for p in spellings(run.ref.path, self.sources)
        ]
        datasets = [self.dataset] if self.dataset else []
        for r in self.report.results:
            d = (r.provenance or {}).get("dataset")
            if isinstance(d, dict) and isinstance(d.get("dataset"), str) and os.path.isabs(d["dataset"]):
                datasets.append(d["dataset"])
        datasets = list(dict.fromkeys(datasets))
        roots += [(p, "[dataset]") for d in datasets for p in spellings(d, datasets)]
        roots.append((str(default_cache_dir()), "[cache]"))
        return list(dict.fromkeys(roots))

    def is_reference(self, size: int, sha256: str) -> bool:
        """True when `size` bytes hashing to `sha256` are a verifier-only reference of the dataset (the ones found
        on this machine; only references of that size are hashed, once per process)."""
        if self._references is None:
            from agenticvbench.integrity.leaks import dataset_references

            self._references = list(dataset_references(self.tasks.values())[0])
        from agenticvbench.integrity.screen import reference_sha256

        for ref in self._references:
            if ref.size == size:
                try:
                    if reference_sha256(Path(ref.path)) == sha256:
                        return True
                except OSError:
                    continue
        return False

    def inputs(self, task_id: int) -> list[tuple[str, int]]:
        """The task's input files (what the agent was given) as (name, file index); [] when unavailable."""
        return self._task_files(task_id, verifier_only=False)

    def references(self, task_id: int) -> list[tuple[str, int]]:
        """The verifier-only references of a task, only when serving locally; otherwise []."""
        return self._task_files(task_id, verifier_only=True) if self.local else []

    def _task_files(self, task_id: int, *, verifier_only: bool) -> list[tuple[str, int]]:
        task = self.tasks.get(task_id)
        if task is None:
            return []
        try:
            paths = task.verifier_references() if verifier_only else task.materials()
        except Exception as exc:  # offline, no source, a download error: the page works without them
            self.notes.append(f"task {task_id}: files unavailable ({type(exc).__name__})")
            return []
        out: list[tuple[str, int]] = []
        for p in paths:
            for f in sorted(p.rglob("*")) if p.is_dir() else [p]:
                if len(out) >= MAX_INPUT_FILES:
                    return out
                if (i := self.add_file(f.name, f, verifier_only=verifier_only)) is not None:
                    out.append((f.name, i))
        return out


def build_model(
    run_dirs: list[str | Path],
    *,
    dataset: str | Path | None = None,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
    local: bool = True,
    cluster: bool = True,
    resamples: int = DEFAULT_RESAMPLES,
    key: ResultKey | None = None,
    reader: RunReader | None = None,
) -> ViewModel:
    """Read the runs' results (signatures checked with `key`, by default the reader's key `avb verify` finds),
    build the report over the dataset's task universe (`dataset`, else the local dataset the results name) with
    the same settings `avb report` uses (`Aggregation.resolve`: `resamples`, by default 2000, seed 0, clusters
    from the tasks unless `cluster=False`), and index the cells in the order the runs were given. Raises
    `SubmissionError` when no run has results. Given the `reader` of an earlier build (`view.reading.RunReader`),
    only the folders whose result files changed since are read again, and the tasks are not."""
    from agenticvbench.analysis.clusters import local_dataset
    from agenticvbench.analysis.settings import Aggregation
    from agenticvbench.results.signatures import reader_key

    if key is None:
        key, _ = reader_key(None)
    reader = reader if reader is not None else RunReader()
    read = reader.read(run_dirs, key)  # each folder's stamp taken before it is read
    results, skipped = read.results, read.skipped
    named = dataset if dataset is not None else local_dataset(results)
    tasks, note = reader.tasks(named, revision if dataset is not None else None, cache_dir)
    task_list = list(tasks.values()) or None
    aggregation = Aggregation.resolve(
        results, tasks=task_list, cluster=cluster, resamples=resamples, cache_dir=cache_dir
    )
    report = build_report(results, tasks=task_list, key=key, aggregation=aggregation)
    labels = report.run_labels()
    given = [str(Path(p).resolve()) for p in run_dirs]
    refs = sorted(report.runs, key=lambda r: _given_position(r.path, given))
    runs = []
    for i, ref in enumerate(refs):
        try:
            folder: RunDir | None = open_run(ref.path)
        except (SubmissionError, OSError):
            folder = None  # a results folder given on its own: scores without outputs
        runs.append(ViewRun(index=i, ref=ref, label=labels[ref.path], folder=folder))
    model = ViewModel(
        runs=runs,
        report=report,
        tasks=tasks,
        local=local,
        notes=[*skipped, *([note] if note else [])],
        stamp=read.stamp,
        sources=[str(p) for p in run_dirs],
        dataset=str(dataset) if dataset is not None and os.path.isdir(dataset) else "",
    )
    facts = {run.index: read.facts.get(run.ref.path, {}) for run in runs}
    by_key = {(run_ref(r).path, int(r.task_id)): r for r in report.results}
    index = {run.ref.path: run.index for run in runs}
    for (
        row
    ) in report.task_rows():  # the report's cells: status, headline and warnings as every surface has them
        tid, i = row["task_id"], index[row["run_path"]]
        r = by_key.get((row["run_path"], tid))
        time_s, cost, outcome = facts[i].get(tid, (None, None, ("", "")))
        model._cells[(i, tid)] = Cell(
            run=i,
            task_id=tid,
            family=row["family"],
            status=row["status"],
            score=row["headline"] if row["status"] == "scored" else None,
            flags=integrity_of(r) if r else [],
            n_warnings=row["n_warnings"],
            result=r,
            value=None if row["status"] == "excluded" else row["headline"],
            agent_s=time_s,
            cost_usd=cost,
            outcome=outcome[0],
            outcome_reason=outcome[1],
        )
    return model


def _given_position(path: str, given: list[str]) -> tuple[int, str]:
    """Where a run's folder stands among the paths given (a results folder counts as its run directory)."""
    for i, g in enumerate(given):
        if path == g or Path(path).parent == Path(g) or Path(g).parent == Path(path):
            return (i, path)
    return (len(given), path)
