"""Guard rails for commands that write: what `avb verify` refuses before it scores anything.

A run directory must hold task folders (`RUN/<task_id>/`); a dataset mirror, a results folder or a single task
folder is refused (nothing is ever written into them), and `--out` must be writable. Each refusal is one line
(a `SubmissionError`, exit 3) that says what the path looks like and what was probably meant.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from agenticvbench.errors import SubmissionError
from agenticvbench.submission import RESULTS_DIRNAME

#: Files an agent writes into a task folder (any family).
TASK_OUTPUT_FILES = ("final.mp4", "solution.json", "solution.mp4", "fixed.mp4", "report.md")
#: How many entries of a folder the checks look at (a hostile folder may hold millions).
MAX_ENTRIES = 5000


def _entries(path: Path) -> list[Path]:
    out: list[Path] = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                out.append(Path(entry.path))
                if len(out) >= MAX_ENTRIES:
                    break
    except OSError:
        return []
    return out


def _has_task_folders(path: Path) -> bool:
    return any(p.name.isdigit() and p.is_dir() for p in _entries(path))


def what_is(path: Path) -> str:
    """'mirror', 'results', 'task' or '' (nothing special) for a folder."""
    if (path / "data").is_dir() and any(p.suffix == ".parquet" for p in _entries(path / "data")):
        return "mirror"
    if path.name == RESULTS_DIRNAME:
        return "results"
    entries = _entries(path)
    if path.name.isdigit() and not _has_task_folders(path) \
            and any(p.name in TASK_OUTPUT_FILES or p.name == "output" for p in entries):
        return "task"
    if entries and not _has_task_folders(path) and all(p.suffix == ".json" and p.stem.isdigit() for p in entries):
        return "results"
    return ""


def check_run_dir(path: str | Path) -> None:
    """Raise `SubmissionError` unless `path` is a folder that holds at least one task folder."""
    p = Path(path).expanduser()
    if not p.is_dir():
        raise SubmissionError(f"{p}: run directory not found" + (" (it is a file)" if p.exists() else ""))
    kind = what_is(p)
    if kind == "mirror":
        raise SubmissionError(f"{p}: this is a dataset mirror (it has data/*.parquet), not a run directory; "
                              "pass it as --dataset and give the run directories to score")
    if kind == "results":
        raise SubmissionError(f"{p}: this is a results folder, not a run directory; pass the run directory "
                              f"that holds it ({p.resolve().parent})")
    if kind == "task":
        raise SubmissionError(f"{p}: this is one task's folder, not a run directory; pass the run directory "
                              f"{p.resolve().parent} (and --tasks {p.name} to score only this task)")
    if _has_task_folders(p):
        return
    runs = [c for c in _entries(p) if c.is_dir() and _has_task_folders(c)]
    hint = f"; did you mean {p}/* ({len(runs)} run directories inside)?" if runs else \
        "; a run directory holds one folder per task, named by task id (e.g. RUN/37/)"
    raise SubmissionError(f"{p}: no task folders{hint}")


def _protected(path: Path) -> str:
    """Why writing at `path` is refused ('' when fine): it is inside a dataset mirror or a task folder."""
    for parent in [path, *path.parents]:
        if parent.is_dir():
            kind = what_is(parent)
            if kind == "mirror":
                return f"it is inside the dataset mirror {parent}"
            if kind == "task" and parent.parent.is_dir() and _has_task_folders(parent.parent):
                return f"it is inside the task folder {parent}"
    return ""


def check_out_dir(out: str | Path) -> Path:
    """Make sure results can be written to `out` before scoring: it is (or can become) a writable folder
    outside any dataset mirror or task folder. Returns the resolved path."""
    p = Path(out).expanduser().resolve()
    why = _protected(p)
    if why:
        raise SubmissionError(f"--out {p}: refused, {why}; results are never written into the dataset or a task")
    if p.exists() and not p.is_dir():
        raise SubmissionError(f"--out {p}: exists and is not a folder")
    try:
        p.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=p, prefix=".avb-write-check-"):
            pass
    except OSError as exc:
        raise SubmissionError(f"--out {p}: not writable ({exc.strerror or exc})") from None
    return p
