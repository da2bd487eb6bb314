"""Hints for the run-directory errors `avb verify` gets from the engine's run plan (`agenticvbench.runs.run_plan`).

The engine decides what a run directory is and where results may be written; this module never checks or
writes anything itself. It only recognises what a refused folder probably was (a dataset mirror, a results
folder, one task's folder, a folder of runs) and appends what was probably meant to the engine's one-line error.
"""

from __future__ import annotations

from pathlib import Path

from agenticvbench.dataset.tasks import OUTPUT_FILES
from agenticvbench.runs.run_plan import RunPlanError, entries, has_task_folders, is_mirror
from agenticvbench.runs.submission import RESULTS_DIRNAME, TASK_DIR_RE

#: Files an agent writes into a task folder (any family).
TASK_OUTPUT_FILES = frozenset(name for names in OUTPUT_FILES.values() for name in names)
#: Refusals whose message already says what to do (no guess about what was meant is added).
EXPLICIT_KINDS = frozenset(
    {"results_symlink", "results_not_folder", "out_protected", "out_not_folder", "not_writable", "not_found"}
)


def what_is(path: Path) -> str:
    """'mirror', 'results', 'task' or '' (nothing special) for a folder."""
    if is_mirror(path):
        return "mirror"
    if path.name == RESULTS_DIRNAME:
        return "results"
    found = entries(path)
    if (
        TASK_DIR_RE.fullmatch(path.name)
        and not has_task_folders(path)
        and any(p.name in TASK_OUTPUT_FILES or p.name == "output" for p in found)
    ):
        return "task"
    if (
        found
        and not has_task_folders(path)
        and all(p.suffix == ".json" and TASK_DIR_RE.fullmatch(p.stem) for p in found)
    ):
        return "results"
    return ""


def hint(exc: RunPlanError) -> str:
    """The engine's message plus what the user probably meant (the message alone when there is no hint)."""
    p = exc.path
    msg = str(exc)
    if exc.kind in EXPLICIT_KINDS:
        return msg
    kind = exc.kind if exc.kind in ("mirror", "results") else what_is(p)
    if kind == "mirror":
        return (
            f"{p}: this is a dataset mirror (it has data/*.parquet), not a run directory; pass it as --dataset "
            "and give the run directories to score"
        )
    if kind == "results":
        return (
            f"{p}: this is a results folder, not a run directory; pass the run directory that holds it "
            f"({p.resolve().parent})"
        )
    if kind == "task":
        return (
            f"{p}: this is one task's folder, not a run directory; pass the run directory {p.resolve().parent} "
            f"(and --tasks {p.name} to score only this task)"
        )
    runs = [c for c in entries(p) if c.is_dir() and has_task_folders(c)]
    if runs:
        return f"{msg}; did you mean {p}/* ({len(runs)} run directories inside)?"
    return (
        f"{msg}; a run directory holds one folder per task, named by task id in ASCII digits (e.g. RUN/37/)"
    )


def with_hint(exc: RunPlanError) -> RunPlanError:
    """The same error with the hint appended (for re-raising at the CLI)."""
    return RunPlanError(exc.path, exc.kind, hint(exc))
