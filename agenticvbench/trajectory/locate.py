"""Where a run's trajectories are found, and reading each one with the format its first bytes name.

Searched, for every task folder `RUN/<task_id>/` (the folders `avb verify` scores: ASCII digits):

- `RUN/<id>/` and `RUN/<id>/agent/`: `trajectory.json` (ATIF; Harbor trials keep it at `agent/trajectory.json`),
  `claude-code.txt` and `codex.txt` (the names Harbor's adapters give Claude Code's and Codex's JSON output),
  and every `*.jsonl` file;
- below `RUN/<id>/agent/` (at most `usage_stores.MAX_DEPTH` folders deep, as `cost.usage_stores.find_stores`
  looks): `opencode.db`, and `*.jsonl` files in a `sessions/` folder (OpenClaw).

Nothing else is opened (outputs such as `solution.json` are not logs). Each file is read through `JobDir` over
the run folder: a symlink anywhere on the way, a FIFO or a device is refused with a note, never followed.
"""

from __future__ import annotations

from agenticvbench.cost.usage_stores import find_stores
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.sanitize import one_line
from agenticvbench.trajectory import formats, source
from agenticvbench.trajectory.model import Trajectory

LOG_NAMES = ("trajectory.json", "claude-code.txt", "codex.txt")
LOG_SUFFIX = ".jsonl"
MAX_LOGS = 32  # per task


def candidates(job: JobDir, folder: str) -> list[tuple[str, ...]]:
    """The log files of task folder `folder` (module docstring), in a stable order, at most `MAX_LOGS`."""
    found: list[tuple[str, ...]] = []
    for parts in ((folder,), (folder, "agent")):
        for name in job.listdir(*parts):
            if name in LOG_NAMES or name.endswith(LOG_SUFFIX):
                found.append((*parts, name))
    dbs, sessions = find_stores(job, folder)
    found += [p for p in dbs + sessions if p not in found]
    return found[:MAX_LOGS]


def sniff_log(job: JobDir, parts: tuple[str, ...]) -> formats.Format | str:
    """The format log `parts` sniffs as (from its first bytes), or the one-line note saying why it is not read
    (it cannot be opened, or no reader knows it)."""
    where = "/".join(parts)
    try:
        first, _ = source.head(job, parts)
    except OSError as exc:
        why = exc.strerror or str(exc)
        if "symbolic link" in why.lower() or "not a directory" in why.lower():
            why = "a symlink: not followed"
        return f"{one_line(where)}: not read ({one_line(why)[:200]})"
    fmt = formats.sniff(first, parts[-1])
    return fmt if fmt is not None else f"{one_line(where)}: not a trajectory format this audit reads"


def read_log(job: JobDir, parts: tuple[str, ...]) -> Trajectory:
    """One log read by the format it sniffs as (`sniff_log`); a log no reader knows, or one that cannot be
    opened, is a `Trajectory` with format `unknown` and a one-line note."""
    where = "/".join(parts)
    fmt = sniff_log(job, parts)
    if isinstance(fmt, str):
        t = Trajectory(format="unknown", path=where)
        t.note(fmt)
        return t
    traj = Trajectory(format=fmt.name, path=where)
    try:
        fmt.read(job, parts, traj)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: a hostile log is a note, not a traceback
        traj.steps = []
        traj.note(f"{one_line(where)}: not read ({type(exc).__name__}: {one_line(str(exc))[:200]})")
    return traj
