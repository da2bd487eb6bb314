"""Plan a run before anything is scored: the run folder, its task folders and its checked results folder.

This is the one place that decides what a run directory is and where its results may be written. `avb verify`
(and `verify_run`) plan every run once, here; the CLI only adds hints to the errors raised here
(`cli/guards.py`), so the pre-flight check and the engine can never disagree.

- A run folder is a folder holding at least one task folder, by the rule of `submission.open_run` (plain ASCII
  digits: `٣٧` is not a task folder). A dataset mirror (`data/*.parquet`) or a results folder is never a run.
- Its results folder is `RUN/avb-results` (refused when it is a symlink, leads out of the run or is not a folder)
  or the operator's `--out` (refused inside a dataset mirror or a task folder). It is checked *before* anything is
  created, then created and probed with one temporary file: nothing is ever written through a link the
  submission controls.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from agenticvbench.errors import SubmissionError
from agenticvbench.runs.submission import RESULTS_DIRNAME, TASK_DIR_RE, RunDir, open_run

#: How many entries of a folder the layout checks look at (a hostile folder may hold millions).
MAX_ENTRIES = 5000


class RunPlanError(SubmissionError):
    """A run (or `--out`) cannot be scored or written; `kind` says why, for the CLI's hint.

    Kinds: `not_found`, `mirror`, `results`, `no_task_folders`, `results_symlink`, `results_not_folder`,
    `out_protected`, `out_not_folder`, `not_writable`, `out_other_run` (the scorer refuses it: the folder's
    signed record names another run).
    """

    def __init__(self, path: Path, kind: str, message: str) -> None:
        self.path = path
        self.kind = kind
        super().__init__(message)


@dataclass(frozen=True)
class RunPlan:
    """One run ready to score: the opened run directory and the checked, writable results folder."""

    run: RunDir
    results_dir: Path

    @property
    def path(self) -> Path:
        """The run folder (absolute)."""
        return self.run.path


def entries(path: Path) -> list[Path]:
    """Up to `MAX_ENTRIES` entries of a folder ([] when it cannot be listed)."""
    try:
        with os.scandir(path) as it:
            return [Path(entry.path) for entry in islice(it, MAX_ENTRIES)]
    except OSError:
        return []


def has_task_folders(path: Path) -> bool:
    """True when `path` holds a task folder by the run rule (an ASCII-digit name that is a folder)."""
    return any(TASK_DIR_RE.fullmatch(p.name) and p.is_dir() for p in entries(path))


def is_mirror(path: Path) -> bool:
    """True when `path` is a dataset mirror (it has `data/*.parquet`)."""
    return (path / "data").is_dir() and any(p.suffix == ".parquet" for p in entries(path / "data"))


def open_planned_run(path: str | Path) -> RunDir:
    """Open one run folder, raising `RunPlanError` when it is not one (missing, a mirror, no task folders)."""
    p = Path(path).expanduser()
    if not p.is_dir():
        raise RunPlanError(
            p, "not_found", f"{p}: run directory not found" + (" (it is a file)" if p.exists() else "")
        )
    if is_mirror(p):
        raise RunPlanError(
            p, "mirror", f"{p}: this is a dataset mirror (it has data/*.parquet), not a run directory"
        )
    if p.name == RESULTS_DIRNAME:
        raise RunPlanError(p, "results", f"{p}: this is a results folder, not a run directory")
    run = open_run(p)
    if not run.task_roots:
        raise RunPlanError(p, "no_task_folders", f"{p}: no task folders")
    return run


def _probe_writable(d: Path, label: str) -> None:
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=d, prefix=".avb-write-check-"):
            pass
    except OSError as exc:
        raise RunPlanError(d, "not_writable", f"{label} {d}: not writable ({exc.strerror or exc})") from None


def own_results_dir(run: RunDir, *, create: bool = True) -> Path:
    """`RUN/avb-results`, checked (not a symlink, inside the run, a folder if present), then (with `create`)
    created and probed."""
    d = run.path / RESULTS_DIRNAME
    if os.path.islink(d) or (os.path.lexists(d) and os.path.realpath(d) != str(d)):
        raise RunPlanError(
            d,
            "results_symlink",
            f"{d}: is a symlink (to {os.path.realpath(d)}); refusing to write "
            "results through it (remove it, or choose a results folder with --out)",
        )
    if os.path.lexists(d) and not d.is_dir():
        raise RunPlanError(
            d, "results_not_folder", f"{d}: exists and is not a folder; remove it or use --out"
        )
    if not create:
        return d
    _probe_writable(d, "results folder")
    if os.path.islink(d) or not d.is_dir():  # swapped for a link while it was being created
        raise RunPlanError(d, "results_symlink", f"{d}: changed into a link or file while it was checked")
    return d


def _protected(path: Path) -> str:
    """Why writing at `path` is refused ('' when fine): it is inside a dataset mirror or a task folder."""
    for parent in [path, *path.parents]:
        if parent.is_dir():
            if is_mirror(parent):
                return f"it is inside the dataset mirror {parent}"
            if TASK_DIR_RE.fullmatch(parent.name) and has_task_folders(parent.parent):
                return f"it is inside the task folder {parent}"
    return ""


def check_out_dir(out: str | Path, *, create: bool = True) -> Path:
    """Check the operator's results folder: outside any mirror or task folder, a folder (or creatable), writable
    (created and probed with `create`). Returns the resolved path; raises `RunPlanError`."""
    p = Path(out).expanduser().resolve()
    why = _protected(p)
    if why:
        raise RunPlanError(
            p,
            "out_protected",
            f"--out {p}: refused, {why}; results are never written into the dataset or a task",
        )
    if p.exists() and not p.is_dir():
        raise RunPlanError(p, "out_not_folder", f"--out {p}: exists and is not a folder")
    if create:
        _probe_writable(p, "--out")
    return p


def _out_subdir(out: Path, run: RunDir, names: list[str]) -> Path:
    name = run.path.name
    if names.count(name) == 1:
        return out / name
    return out / f"{name}-{hashlib.sha256(str(run.path).encode()).hexdigest()[:8]}"


def plan_runs(
    run_dirs: Sequence[str | Path], out: str | Path | None = None, *, create: bool = True
) -> tuple[list[RunPlan], list[RunPlanError]]:
    """Plan every run: (the runs that can be scored, one error per run that cannot). `create=False` checks
    without creating or probing any folder (`--dry-run`).

    A run that cannot be planned never stops the others. A bad `--out` concerns every run and raises
    `RunPlanError`. Results go to `RUN/avb-results`, to `out` itself for one run, or to `out/<run name>` (plus a
    path hash when two runs share a name).
    """
    out_dir = check_out_dir(out, create=create) if out is not None else None
    runs: list[RunDir] = []
    refused: list[RunPlanError] = []
    for d in run_dirs:
        try:
            runs.append(open_planned_run(d))
        except RunPlanError as exc:
            refused.append(exc)
    names = [r.path.name for r in runs]
    plans: list[RunPlan] = []
    for run in runs:
        try:
            if out_dir is None:
                results = own_results_dir(run, create=create)
            elif len(run_dirs) == 1:
                results = out_dir
            else:
                results = _out_subdir(out_dir, run, names)
                if create:
                    _probe_writable(results, "--out")
            plans.append(RunPlan(run, results))
        except RunPlanError as exc:
            refused.append(exc)
    return plans, refused
