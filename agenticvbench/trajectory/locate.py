"""Where a run's trajectories are found, and reading each one with the format its first bytes name.

Searched, for every task folder `RUN/<task_id>/` (the folders `avb verify` scores: ASCII digits):

- `RUN/<id>/` and `RUN/<id>/agent/`: `trajectory.json` (ATIF; Harbor trials keep it at `agent/trajectory.json`),
  `claude-code.txt` and `codex.txt` (the names Harbor's adapters give Claude Code's and Codex's JSON output),
  every `*.jsonl` file, and every `*.eval` file (an Inspect log);
- below `RUN/<id>/agent/` (at most `usage_stores.MAX_DEPTH` folders deep, as `cost.usage_stores.find_stores`
  looks): `opencode.db`, and `*.jsonl` files in a `sessions/` folder (OpenClaw);
- the run's own Inspect logs, `RUN/logs/*.eval` and `RUN/logs/*.json` (at most `MAX_RUN_LOGS`; Inspect's
  listing files `logs.json` and `listing.json` are not logs): candidates of every task folder, each read for the
  task's samples only (`trajectory.formats.inspect_log`), and not the task's log when it holds none. A file
  there that is not an Inspect log is not read (it would be every task's). What a task's Inspect logs may cost
together is bounded (`trajectory.formats.inspect_budget`): past it, the rest is a note (`unread_part`).

Nothing else is opened (outputs such as `solution.json` are not logs). Each file is read through `JobDir` over
the run folder: a symlink anywhere on the way, a FIFO or a device is refused with a note, never followed.
"""

from __future__ import annotations

from agenticvbench.cost.usage_stores import find_stores
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.sanitize import one_line
from agenticvbench.trajectory import formats, source
from agenticvbench.trajectory.formats import inspect_budget, inspect_log
from agenticvbench.trajectory.formats.inspect_log import RUN_FOLDER
from agenticvbench.trajectory.model import Trajectory

LOG_NAMES = ("trajectory.json", "claude-code.txt", "codex.txt")
LOG_SUFFIXES = (".jsonl", ".eval")
RUN_LOG_SUFFIXES = (".eval", ".json")
NOT_RUN_LOGS = frozenset({"logs.json", "listing.json"})  # Inspect's listings of a log folder
MAX_LOGS = 32  # per task
MAX_RUN_LOGS = 16  # in RUN/logs/


def candidates(job: JobDir, folder: str) -> list[tuple[str, ...]]:
    """The log files of task folder `folder` (module docstring), in a stable order, at most `MAX_LOGS`."""
    found: list[tuple[str, ...]] = []
    for parts in ((folder,), (folder, "agent")):
        for name in job.listdir(*parts):
            if name in LOG_NAMES or name.endswith(LOG_SUFFIXES):
                found.append((*parts, name))
    dbs, sessions = find_stores(job, folder)
    found += [p for p in dbs + sessions if p not in found]
    run_logs = [n for n in job.listdir(RUN_FOLDER) if n.endswith(RUN_LOG_SUFFIXES) and n not in NOT_RUN_LOGS]
    return found[: MAX_LOGS - min(len(run_logs), MAX_RUN_LOGS)] + [
        (RUN_FOLDER, n) for n in run_logs[:MAX_RUN_LOGS]
    ]


def sniff_log(job: JobDir, parts: tuple[str, ...]) -> formats.Format | str:
    """The format log `parts` sniffs as (from its first bytes), or the one-line note saying why it is not read
    (it cannot be opened, no reader knows it, or it sits in the run's log folder and is not an Inspect log)."""
    where = "/".join(parts)
    try:
        first, _ = source.head(job, parts)
    except OSError as exc:
        why = exc.strerror or str(exc)
        if "symbolic link" in why.lower() or "not a directory" in why.lower():
            why = "a symlink: not followed"
        return f"{one_line(where)}: not read ({one_line(why)[:200]})"
    fmt = formats.sniff(first, parts[-1])
    if fmt is None or (parts[0] == RUN_FOLDER and fmt.name != inspect_log.NAME):
        what = "an Inspect log" if fmt is not None else "a trajectory format this audit reads"
        return f"{one_line(where)}: not {what}"
    return fmt


def read_log(job: JobDir, parts: tuple[str, ...], task_id: int | None = None) -> Trajectory:
    """One log read, for task `task_id`, by the format it sniffs as (`sniff_log`); a log no reader knows, or one
    that cannot be opened, is a `Trajectory` with format `unknown` and a one-line note."""
    where = "/".join(parts)
    fmt = sniff_log(job, parts)
    if isinstance(fmt, str):
        t = Trajectory(format="unknown", path=where)
        t.note(fmt)
        return t
    traj = Trajectory(format=fmt.name, path=where, task_id=task_id)
    try:
        fmt.read(job, parts, traj)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: a hostile log is a note, not a traceback
        traj.steps = []
        traj.note(f"{one_line(where)}: not read ({type(exc).__name__}: {one_line(str(exc))[:200]})")
    return traj


def unread_part(job: JobDir, traj: Trajectory) -> str | None:
    """Why log `traj`, read (`read_log`) for its task, was not read to its end, or None: an Inspect log whose
    samples passed what the task's Inspect logs may cost together (`inspect_budget`)."""
    return inspect_budget.unread_part(job, traj.task_id, traj.path)
