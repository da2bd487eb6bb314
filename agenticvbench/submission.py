"""Run directories: find each task's folder and the run's `run.json`.

Layout: `RUN/<task_id>/` holds one task's outputs; an `output/` subfolder inside it is accepted too, because
harnesses write to `/workspace/output`. `RUN/run.json` (optional) names the harness, model and repetition.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError

RESULTS_DIRNAME = "avb-results"


@dataclass(frozen=True)
class Submission:
    """One task's outputs inside a run (the folder may not exist: then every file is missing)."""

    task_id: int
    folder: Path | None

    def file(self, name: str) -> Path | None:
        """The path of output file `name` if it exists (a regular file), else None."""
        if self.folder is None:
            return None
        p = self.folder / name
        return p if p.is_file() else None

    def expected_path(self, name: str) -> Path:
        """Where output file `name` would be (for messages naming a missing file)."""
        return (self.folder or Path(f"<run>/{self.task_id}")) / name


@dataclass
class RunDir:
    """A run directory: its task folders and its metadata."""

    path: Path
    meta: dict[str, Any] = field(default_factory=dict)
    task_folders: dict[int, Path] = field(default_factory=dict)
    meta_error: str = ""

    @property
    def harness(self) -> str:
        """Harness name from run.json (or 'unknown')."""
        return str(self.meta.get("harness") or "unknown")

    @property
    def model(self) -> str:
        """Model name from run.json (or 'unknown')."""
        return str(self.meta.get("model") or "unknown")

    def submission(self, task_id: int) -> Submission:
        """The submission for `task_id` (folder None when the run has no folder for it)."""
        return Submission(task_id, self.task_folders.get(task_id))


def _task_folder(d: Path) -> Path:
    out = d / "output"
    return out if out.is_dir() else d


def open_run(path: str | Path) -> RunDir:
    """Read a run directory: every `<int>/` folder is a task folder; `run.json` is parsed if present."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise SubmissionError(f"{root}: run directory not found" + (" (it is a file)" if root.exists() else ""))
    root = root.resolve()  # absolute: workers with another working directory (Dask) must find the same files
    run = RunDir(path=root)
    meta_path = root / "run.json"
    if meta_path.is_file():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if isinstance(meta, dict):
                run.meta = meta
            else:
                run.meta_error = f"{meta_path}: top level is not an object; ignored"
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            run.meta_error = f"{meta_path}: invalid JSON ({exc}); ignored"
    for child in sorted(root.iterdir()):
        if child.is_dir() and child.name.isdigit():
            run.task_folders[int(child.name)] = _task_folder(child)
    return run
