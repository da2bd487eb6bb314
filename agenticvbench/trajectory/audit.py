"""The audit of runs: every task folder's trajectories read (`locate`), every step judged by the rules
(`rules.RULES`), and the findings per (run, task).

A task is `audited` when at least one of its logs was read; `unreadable` when logs were found but none could be
read (the notes say why); `not audited` when none was found (the word `provenance.trajectory.status`, `avb view`
and the guides use). An `audited` task may still have logs that could not be read, or not to their end (an
Inspect log past the task's budget, `locate.unread_part`): `TaskAudit.unreadable` names them, and every surface says so next to the status (`status_text`: "audited, 1 log(s) unreadable"). A run with no
trajectory at all is `not audited`, never clean: the audit cannot see what was not logged. At most
`MAX_FINDINGS` findings are listed per task; the rest are counted (`TaskAudit.unlisted`). Nothing here writes
anything.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.submission import TASK_DIR_RE
from agenticvbench.sanitize import one_line
from agenticvbench.trajectory.context import AuditContext
from agenticvbench.trajectory.locate import candidates, read_log, unread_part
from agenticvbench.trajectory.model import Step, cap
from agenticvbench.trajectory.rules import hits

MAX_FINDINGS = 100  # per task
QUOTE_CHARS = 200
AUDITED, UNREADABLE, NOT_AUDITED = "audited", "unreadable", "not audited"


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One flag: which rule, in which log and step, why, and the call quoted on one sanitised line."""

    rule: str
    task_id: int
    log: str  # the log's path relative to the run
    step: int  # the step's index in that log
    tool: str
    why: str
    quote: str

    def to_text(self) -> str:
        """`rule  step N (tool): why: quote`, one line."""
        return one_line(f"{self.rule}  {self.log} step {self.step} ({self.tool}): {self.why}: {self.quote}")


@dataclass(kw_only=True)
class TaskAudit:
    """One task folder of a run: the logs read (format, path, steps), the logs of the task that could not be read
    (path, why), the findings (at most `MAX_FINDINGS`; `unlisted` counts the rest) and the notes."""

    task_id: int
    status: str = NOT_AUDITED
    logs: list[dict[str, Any]] = field(default_factory=list)
    unreadable: list[dict[str, str]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    unlisted: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def found(self) -> int:
        """How many findings the audit made, listed or not."""
        return len(self.findings) + self.unlisted


def status_text(status: str, unreadable: int) -> str:
    """A task's status as `avb audit`, `avb view` and the guides show it: the status word, and for an `audited`
    task with `unreadable` logs that could not be read, how many ("audited, 1 log(s) unreadable")."""
    return f"{status}, {unreadable} log(s) unreadable" if status == AUDITED and unreadable > 0 else status


@dataclass(kw_only=True)
class RunAudit:
    """One run: its tasks' audits and the run's own notes."""

    run: str
    tasks: list[TaskAudit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def audited(self) -> bool:
        """Whether any task of the run had a trajectory that could be read."""
        return any(t.status == AUDITED for t in self.tasks)

    @property
    def findings(self) -> list[Finding]:
        """Every finding of the run, task by task."""
        return [f for t in self.tasks for f in t.findings]

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "run": self.run,
            "audited": self.audited,
            "tasks": [{**asdict(t), "findings": [asdict(f) for f in t.findings]} for t in self.tasks],
            "notes": list(self.notes),
        }


def quote(step: Step, needle: str) -> str:
    """The call on one sanitised line, at most `QUOTE_CHARS`, centred on `needle` when it is far in (read in the
    call's full text, `Step.text`, so a match past what is shown is quoted)."""
    text = one_line(" ".join((step.text or step.arguments).split()))
    at = text.find(one_line(needle)) if needle else -1
    if at > QUOTE_CHARS // 2:
        text = "..." + text[at - 40 :]
    return cap(text, QUOTE_CHARS)


def _task_folders(job: JobDir, notes: list[str]) -> list[tuple[str, int]]:
    out = []
    for name in job.listdir():
        if TASK_DIR_RE.fullmatch(name):
            if job.is_dir(name):
                out.append((name, int(name)))
            else:
                notes.append(f"{one_line(name)}: not a folder (or a symlink); not audited")
    return sorted(out, key=lambda x: (x[1], x[0]))


def audit_task(job: JobDir, folder: str, task_id: int, ctx: AuditContext, run: str) -> TaskAudit:
    """The audit of one task folder of an open run."""
    audit = TaskAudit(task_id=task_id)
    found = 0  # the logs that are the task's (a run-level Inspect log without its samples is not)
    for parts in candidates(job, folder):
        traj = read_log(job, parts, task_id)
        if not traj.of_task:
            continue
        found += 1
        audit.notes += traj.notes
        if traj.format == "unknown":
            audit.unreadable.append({"path": traj.path, "why": _why_unread(traj.path, traj.notes)})
            continue
        audit.logs.append({"format": traj.format, "path": traj.path, "steps": len(traj.steps)})
        if (cut := unread_part(job, traj)) is not None:  # read in part: its budget spent
            audit.unreadable.append({"path": traj.path, "why": cap(one_line(cut), 300)})
        for step in traj.steps:
            for hit in hits(step, task_id, ctx, traj.cwd, run):
                if len(audit.findings) >= MAX_FINDINGS:
                    audit.unlisted += 1
                    continue
                audit.findings.append(
                    Finding(
                        rule=hit.rule,
                        task_id=task_id,
                        log=one_line(traj.path),
                        step=step.index,
                        tool=one_line(step.tool or step.role),
                        why=one_line(hit.why),
                        quote=quote(step, hit.needle),
                    )
                )
    if audit.unlisted:
        audit.notes.append(f"more than {MAX_FINDINGS} findings; the rest not listed ({audit.unlisted} more)")
    audit.status = AUDITED if audit.logs else (UNREADABLE if found else NOT_AUDITED)
    return audit


def _why_unread(path: str, notes: list[str]) -> str:
    """Why log `path` was not read, on one line: its reader's notes, without the path they start with."""
    head = f"{one_line(path)}: "
    why = "; ".join(one_line(n).removeprefix(head) for n in notes[:3]) or "not read"
    return cap(why, 300)


def audit_run(run: str | Path, ctx: AuditContext, *, task_ids: set[int] | None = None) -> RunAudit:
    """The audit of one run directory (only `task_ids` when given); `SubmissionError` when it is not a readable
    folder."""
    path = Path(run).resolve()
    out = RunAudit(run=str(path))
    with JobDir(path) as job:
        for folder, tid in _task_folders(job, out.notes):
            if task_ids is not None and tid not in task_ids:
                continue
            if tid not in ctx.inputs:
                out.notes.append(f"{folder}: task {tid} is not in the dataset; audited without its inputs")
            out.tasks.append(audit_task(job, folder, tid, ctx, str(path)))
    if not out.tasks and not out.notes:
        raise SubmissionError(f"{path}: no task folders (RUN/<task_id>/) to audit")
    return out


__all__ = [
    "AUDITED",
    "NOT_AUDITED",
    "UNREADABLE",
    "Finding",
    "RunAudit",
    "TaskAudit",
    "audit_run",
    "audit_task",
    "status_text",
]
