"""The audit as `avb verify` records it, for one task folder: its logs hashed (the result's fingerprint covers
them, so a changed log is rescored) and audited (`audit.audit_task`), the findings becoming the result's
integrity flags with one warning each (at most `MAX_WARNINGS`), and its provenance: the logs read (path, format,
steps, SHA-256), the logs that could not be read (path, SHA-256, why), how many findings, and every listed
finding's rule, log, step and why (`flagged_steps`, at most `audit.MAX_FINDINGS`), which `avb view` reads to know
which steps were flagged (`recorded_findings`; a result written before that field existed is read from its
warnings). The provenance is not part of the fingerprint, so a result scored before a field was added is reused
as it is.

A task folder without any log is recorded `not audited`, never clean; `unaudited_runs` says so once per run
whose task folders hold no log at all. Nothing here changes a score: a flag marks the result as the screening's
flags do (docs/guide/audit.md, "In avb verify and the tables"). The audit never fails a task: a log that cannot be
hashed or read is a note, and an unexpected error of the audit itself is one warning.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.results.model import Result
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.submission import LOGS_DIRNAME
from agenticvbench.sanitize import one_line
from agenticvbench.trajectory.audit import AUDITED, MAX_FINDINGS, NOT_AUDITED, audit_task
from agenticvbench.trajectory.context import AuditContext
from agenticvbench.trajectory.locate import MAX_LOGS, candidates
from agenticvbench.trajectory.model import cap
from agenticvbench.trajectory.rules import RULES

#: Bumped when a rule changes what it flags: results whose task has a log are then rescored (`scoring.job`).
AUDIT_VERSION = "2"
#: The integrity flags the audit can raise (one per rule), in `integrity.screen.FLAGS` too.
TRAJECTORY_FLAGS: tuple[str, ...] = tuple(RULES)
MAX_HASH_BYTES = 1 << 30  # a log over this is fingerprinted by its size (the audit's readers cap far lower)
MAX_WARNINGS = 20  # per task; the rest are counted (`avb audit` lists every finding)
_CHUNK = 1 << 20
#: SHA-256 of the run-level logs (RUN/logs/) hashed in this process, by (device, inode, size, mtime), at most
#: `_MAX_HASHED`: each is a log of every task folder of its run.
_hashed: dict[tuple[int, int, int, int], str] = {}
_MAX_HASHED = 1024


@dataclass(kw_only=True)
class TaskCheck:
    """What the audit adds to one result: integrity flags, one warning per finding, the `trajectory`
    provenance block."""

    flags: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)


def _digest(fd: int) -> str:
    os.set_blocking(fd, True)
    h = hashlib.sha256()
    while chunk := os.read(fd, _CHUNK):
        h.update(chunk)
    return h.hexdigest()


def log_sha256(job: JobDir, parts: tuple[str, ...]) -> str:
    """The SHA-256 of log `parts` of the open run `job` (`size:N` over `MAX_HASH_BYTES`): what the provenance
    records, and what `avb view` compares before it shows a log as audited; a run-level log (`RUN/logs/`) is
    hashed once per process. `OSError` when it cannot be opened (a symlink, not a regular file)."""
    fd, size = job.open_file(*parts)
    try:
        if size > MAX_HASH_BYTES:
            return f"size:{size}"
        if parts[0] != LOGS_DIRNAME:
            return _digest(fd)
        st = os.fstat(fd)  # a log of every task folder (RUN/logs/): hashed once
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if key not in _hashed:
            if len(_hashed) >= _MAX_HASHED:
                _hashed.clear()
            _hashed[key] = _digest(fd)
        return _hashed[key]
    finally:
        os.close(fd)


def task_logs(task_root: Path) -> dict[str, str]:
    """{log path relative to the run: its SHA-256} for the logs the audit reads in `task_root` (`RUN/<id>`,
    `locate.candidates`); {} when there is none. A log that cannot be opened is `unreadable: why`."""
    out: dict[str, str] = {}
    try:
        with JobDir(task_root.parent) as job:
            for parts in candidates(job, task_root.name):
                try:
                    out["/".join(parts)] = log_sha256(job, parts)
                except OSError as exc:
                    out["/".join(parts)] = f"unreadable: {one_line(exc.strerror or str(exc))[:120]}"
    except OSError:
        return {}
    return out


_WARNING_TAIL = "; official score kept, review the trajectory"
_MORE = re.compile(r"INTEGRITY ([0-9]+) more trajectory finding")


def _warning(finding: Any) -> str:
    return one_line(
        f"INTEGRITY {finding.rule}: {finding.log} step {finding.step} ({finding.tool}) {finding.why}: "
        f"{finding.quote}{_WARNING_TAIL}"
    )


@dataclass(frozen=True, kw_only=True)
class RecordedFinding:
    """One finding as a result records it: the rule, the log, the step index, and why the rule fired (`why`,
    from `provenance.trajectory.flagged_steps`) or the rest of the warning line (`rest`, `(tool) why: quote`,
    from a result written before that list existed)."""

    rule: str
    log: str
    step: int
    why: str = ""
    rest: str = ""

    def reason(self, tool: str) -> str:
        """Why the rule fired; from a warning line, given the step's `tool` as the warning names it ('' when the
        line does not read `(tool) why: ...`)."""
        if self.why:
            return self.why
        head = f"({one_line(tool)}) "
        return self.rest[len(head) :].split(": ", 1)[0] if self.rest.startswith(head) else ""


def trajectory_block(result: Result | None) -> dict[str, Any] | None:
    """The `provenance.trajectory` block of a result (None without one: no result, or scored before the
    audit). A result file is read defensively: every field may have any shape."""
    prov = result.provenance if result is not None and isinstance(result.provenance, dict) else {}
    block = prov.get("trajectory")
    return block if isinstance(block, dict) else None


def recorded_logs(result: Result | None) -> list[tuple[str, str]]:
    """(path relative to the run, SHA-256) of every log the audit read for `result`, in the order recorded."""
    block = trajectory_block(result)
    logs = block.get("logs") if block else None
    out = []
    for log in logs[:MAX_LOGS] if isinstance(logs, list) else []:
        if isinstance(log, dict) and isinstance(log.get("path"), str) and isinstance(log.get("sha256"), str):
            out.append((log["path"][:500], log["sha256"][:200]))
    return out


def recorded_unreadable(result: Result | None) -> dict[str, str] | None:
    """{path relative to the run: why} of the task's logs the audit found but could not read (an `audited` task
    can have some); None when the result does not record them (written before the field existed)."""
    block = trajectory_block(result)
    logs = block.get("unreadable") if block else None
    if not isinstance(logs, list):
        return None
    return {
        log["path"][:500]: one_line(log["why"])[:300] if isinstance(log.get("why"), str) else ""
        for log in logs[:MAX_LOGS]
        if isinstance(log, dict) and isinstance(log.get("path"), str)
    }


def _count(value: Any) -> int:
    return min(value, 10**6) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _from_warnings(result: Result, paths: list[str]) -> tuple[list[RecordedFinding], int]:
    """The findings the warnings `check_task` wrote name (at most `MAX_WARNINGS`), and the count line's number."""
    out: list[RecordedFinding] = []
    more = 0
    for line in result.warnings if isinstance(result.warnings, list) else []:
        if not isinstance(line, str) or not line.startswith("INTEGRITY "):
            continue
        if m := _MORE.match(line):
            more += int(m.group(1)[:6])
            continue
        rule, _, tail = line[len("INTEGRITY ") :].partition(": ")
        if rule not in RULES:
            continue
        for log in paths:
            m = re.match(re.escape(log) + r" step ([0-9]{1,6}) (.*)", tail, re.S)
            if m:
                rest = m.group(2).removesuffix(_WARNING_TAIL)
                out.append(RecordedFinding(rule=rule, log=log, step=int(m.group(1)), rest=rest))
                break
    return out, more


def _from_provenance(listed: list[Any], paths: list[str]) -> list[RecordedFinding]:
    known = set(paths)
    out = []
    for f in listed[:MAX_FINDINGS]:
        if not isinstance(f, dict) or f.get("rule") not in RULES or f.get("log") not in known:
            continue
        step, why = f.get("step"), f.get("why")
        if isinstance(step, int) and not isinstance(step, bool) and 0 <= step < 10**6:
            why = one_line(why)[:300] if isinstance(why, str) else ""
            out.append(RecordedFinding(rule=str(f["rule"]), log=str(f["log"]), step=step, why=why))
    return out


def recorded_findings(result: Result | None) -> tuple[list[RecordedFinding], int]:
    """The findings `result` records for the logs its provenance names, and how many more it says exist that
    these do not locate. They come from `provenance.trajectory.flagged_steps` (every listed finding), else from the
    warnings (`check_task` wrote them; at most `MAX_WARNINGS`). A finding must name a known rule and a recorded
    log path, so text an agent put in a call cannot forge a finding for another step. The count is the largest
    of: the warnings' "N more" line, the recorded number of findings less those located, and 1 when the notes say
    the audit hit its cap: a reader that must not show a flagged step's text withholds every step then."""
    block = trajectory_block(result)
    if result is None or block is None:
        return [], 0
    paths = sorted({one_line(p) for p, _ in recorded_logs(result)}, key=len, reverse=True)
    listed = block.get("flagged_steps")
    if isinstance(listed, list):
        out, more = _from_provenance(listed, paths), 0
    else:
        out, more = _from_warnings(result, paths)
    more = max(more, _count(block.get("findings")) - len(out))
    notes = block.get("notes")
    capped = f"more than {MAX_FINDINGS} findings"
    if isinstance(notes, list) and any(isinstance(n, str) and n.startswith(capped) for n in notes[:50]):
        more = max(more, 1)
    return out, more


def check_task(task_root: Path, task_id: int, ctx: AuditContext, logs: dict[str, str]) -> TaskCheck:
    """The audit of task folder `task_root` for `avb verify`; `logs` from `task_logs` (their SHA-256 go into
    the provenance)."""
    if not logs:
        return TaskCheck(provenance={"status": NOT_AUDITED, "why": "no agent log in the task folder"})
    run = task_root.parent
    try:
        with JobDir(run) as job:
            audit = audit_task(job, task_root.name, task_id, ctx, str(run.resolve()))
    except Exception as exc:  # noqa: BLE001 - the audit must never cost a task its score
        why = f"the trajectory audit failed: {type(exc).__name__}: {one_line(str(exc))[:200]}"
        return TaskCheck(warnings=[why], provenance={"status": NOT_AUDITED, "why": why})
    flags = list(dict.fromkeys(f.rule for f in audit.findings))
    warnings = [_warning(f) for f in audit.findings[:MAX_WARNINGS]]
    if audit.found > MAX_WARNINGS:
        warnings.append(
            f"INTEGRITY {audit.found - MAX_WARNINGS} more trajectory finding(s); `avb audit` lists them"
        )
    return TaskCheck(
        flags=flags,
        warnings=warnings,
        provenance={
            "status": audit.status,
            "audit_version": AUDIT_VERSION,
            "logs": [{**log, "sha256": logs.get(log["path"], "")} for log in audit.logs],
            "unreadable": [{**log, "sha256": logs.get(log["path"], "")} for log in audit.unreadable],
            "findings": audit.found,
            "flagged_steps": [
                {"rule": f.rule, "log": f.log, "step": f.step, "why": cap(f.why, 300)} for f in audit.findings
            ],
            "notes": [one_line(n) for n in audit.notes[:10]],
        },
    )


def _status(result: Result) -> str:
    block = trajectory_block(result)
    return str(block.get("status", NOT_AUDITED)) if block else NOT_AUDITED


def unaudited_runs(results: Iterable[Result]) -> list[str]:
    """One summary line per run none of whose results had a log the audit could read (`avb verify`)."""
    runs: dict[str, bool] = {}
    for r in results:
        path = str(r.run.get("path", "")) if isinstance(r.run, dict) else ""
        runs[path] = runs.get(path, False) or _status(r) == AUDITED
    return [
        f"{path}: no agent trajectory read in any task folder; trajectories not audited "
        "(docs/guide/audit.md, where logs are found)"
        for path, audited in runs.items()
        if not audited
    ]


def audit_context(
    tasks: list[Any],
    runs: Iterable[Path],
    cache_dir: Path | None,
    dataset: str | os.PathLike[str] | None = None,
) -> AuditContext:
    """The audit's context for scoring `tasks` of `runs`: every task of the dataset they come from counts (a
    sibling of another family is still another task), the selected tasks alone when it cannot be loaded;
    `dataset` is the dataset as it was given (`AuditContext.build`)."""
    from agenticvbench.dataset.loader import DatasetSource, load_tasks
    from agenticvbench.errors import AVBError

    universe = tasks
    src = next((t.source for t in tasks if isinstance(t.source, DatasetSource)), None)
    if src is not None:
        try:
            universe = load_tasks(
                dataset=src.dataset,
                revision=src.revision if src.kind == "hub" else None,
                cache_dir=src.cache_dir,
            )
        except AVBError:
            universe = tasks
    return AuditContext.build(universe, runs=list(runs), cache_dir=cache_dir, dataset=dataset)


__all__ = [
    "AUDIT_VERSION",
    "NOT_AUDITED",
    "TRAJECTORY_FLAGS",
    "RecordedFinding",
    "TaskCheck",
    "audit_context",
    "check_task",
    "log_sha256",
    "recorded_findings",
    "recorded_logs",
    "recorded_unreadable",
    "task_logs",
    "trajectory_block",
    "unaudited_runs",
]
