"""The agent's trajectory on a task page of `avb view` (a `pages.TASK_SECTIONS` section), and the runs' audit
summary on the overview.

A log is shown step by step only when it is the log scoring audited: its SHA-256 now equals the one
`provenance.trajectory.logs` records (`trajectory.check.log_sha256`, the same hash, taken again after reading so
a log rewritten meanwhile is refused too); a log changed, added or removed since scoring is named with the
reason and its steps are not shown; a log the audit found but could not read is named "unreadable at scoring"
with the audit's reason. Logs are found and read by the audit's own path (`trajectory.locate`: `candidates`,
`sniff_log`, `read_log`), so the viewer reads exactly what the audit read, under its caps. The flagged steps are
the ones the result records (`trajectory.check.recorded_findings`: `provenance.trajectory.flagged_steps`, or the
warnings of a result written before that list).

Every string of a log is the agent's: it goes through `sanitize.text` / `sanitize.one_line` (`view.steps` draws
each row) and the templates' autoescaping, and is cut. A page holds at most `MAX_ROWS` steps per task (the
first and the last of each log, and every flagged one; a row says what was left out). What a page withholds
(`Withheld`): under a policy without `flagged_steps` (a bundle) a flagged step keeps its tool, its flags and the
URLs and paths it named, and loses its call's text and result; and when the result says there are more findings
than it locates (the audit's cap, or a result listing only its first warnings), every step of the task loses its
texts, since any of them may be an unlocated flagged step. Without `solved_outputs`, a task the run solved
exactly keeps only the shape of its steps (the texts write the answer), and a flagged step there keeps its tool
and flags (their why without its parenthesised detail) but not the URLs and paths it named. Beyond the flagged
steps, a bundle withholds the steps after an answer read and from a step naming another task's folder
(`view.taint`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.analysis.aggregate import integrity_of
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.sanitize import one_line
from agenticvbench.trajectory.audit import AUDITED, UNREADABLE, status_text
from agenticvbench.trajectory.check import (
    NOT_AUDITED,
    TRAJECTORY_FLAGS,
    RecordedFinding,
    log_sha256,
    recorded_findings,
    recorded_logs,
    recorded_unreadable,
    trajectory_block,
)
from agenticvbench.trajectory.locate import RUN_FOLDER, candidates, read_log, sniff_log
from agenticvbench.trajectory.model import Step, Trajectory, cap, parse_time
from agenticvbench.view.disclosure import Disclosure, spellings
from agenticvbench.view.evidence import solved
from agenticvbench.view.model import Cell, ViewModel
from agenticvbench.view.reading import logs_stamp
from agenticvbench.view.steps import MARKS, Gap, StepRow, Withheld, rows, step_anchor
from agenticvbench.view.taint import ANSWER_RULES, Taint

MAX_ROWS = 240  # steps drawn per task page (over all its logs), plus the flagged ones
NO_TRAJECTORY = "no trajectory found (not audited)"
ADDED = "added since scoring: not audited, steps not shown"
UNREAD = "unreadable at scoring (not audited, steps not shown)"


@dataclass(kw_only=True)
class LogView:
    """One log of the task folder: where, its format, whether it is the log scoring audited, and its rows."""

    path: str
    format: str = ""
    state: str = AUDITED  # audited, changed, added, removed, unreadable, unknown
    message: str = ""
    steps: int = 0
    tokens: int | None = None
    span: float | None = None
    rows: list[StepRow | Gap] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _span(steps: list[Step]) -> float | None:
    times = [t for s in steps if (t := parse_time(s.time)) is not None]
    return max(times) - min(times) if len(times) > 1 else None


def _hash(job: JobDir, parts: tuple[str, ...]) -> str:
    try:
        return log_sha256(job, parts)
    except OSError:
        return ""


def _audited(
    job: JobDir, parts: tuple[str, ...], sha: str, view: LogView, task_id: int | None
) -> Trajectory | None:
    """The log read when its bytes are the ones scoring hashed (`sha`) before and after reading, else None with
    `view` saying why (changed, or unreadable with the reader's notes)."""
    before = _hash(job, parts)
    if before and before != sha:
        view.state, view.message = "changed", "the log changed since scoring (its SHA-256 differs): not shown"
        return None
    traj = read_log(job, parts, task_id)
    view.format, view.notes = traj.format, [one_line(n) for n in traj.notes]
    if not before or traj.format == "unknown":
        view.state, view.message = UNREADABLE, "not read (the reader's notes below)"
        return None
    if _hash(job, parts) != before:
        view.state, view.message = "changed", "the log changed while it was read: not shown"
        return None
    return traj


def _unread_at_scoring(where: str, unread: dict[str, str] | None, notes: list[str]) -> str | None:
    """Why log `where` (not among the logs read) could not be read at scoring, None when the result does not
    say it was there: its `unreadable` list, or for a result written before that list, a note naming it."""
    if unread is not None:
        return unread.get(where)
    head = f"{one_line(where)}: "
    return next((n.removeprefix(head) for n in notes if n.startswith(head)), None)


def _read_logs(
    job: JobDir,
    folder: str,
    recorded: tuple[list[tuple[str, str]], dict[str, str] | None, list[str]],
    findings: list[RecordedFinding],
    withheld: tuple[Withheld, Taint],
) -> list[LogView]:
    """Every log of the task folder, in the audit's order, each checked against the recorded hash; `recorded`:
    the logs read at scoring, the ones it could not read (None: not recorded) and the audit's notes;
    `withheld`: what the page withholds of every step, and of some steps (`view.taint`)."""
    read, unread, notes = recorded
    known = {path: (k, sha) for k, (path, sha) in enumerate(read)}
    out: list[LogView] = []
    to_draw: list[tuple[LogView, Trajectory, int]] = []
    task_id = int(folder) if folder.isascii() and folder.isdigit() else None
    for parts in candidates(job, folder):
        where = "/".join(parts)
        if where not in known and parts[0] == RUN_FOLDER and not read_log(job, parts, task_id).of_task:
            continue  # a run-level log with none of this task's samples is another task's, as for the audit
        view = LogView(path=one_line(where))
        out.append(view)
        if where not in known and (why := _unread_at_scoring(where, unread, notes)) is not None:
            view.state, view.message = UNREADABLE, f"{UNREAD}: {why}" if why else UNREAD
        elif where not in known:
            fmt = sniff_log(job, parts)
            view.state, view.message = ("unknown", fmt) if isinstance(fmt, str) else ("added", ADDED)
            view.format = "" if isinstance(fmt, str) else fmt.name
        elif (traj := _audited(job, parts, known[where][1], view, task_id)) is not None and traj.steps:
            view.steps, view.span = len(traj.steps), _span(traj.steps)
            view.tokens = sum(s.tokens or 0 for s in traj.steps) or None
            to_draw.append((view, traj, known[where][0]))
    present = {v.path for v in out}
    out += [LogView(path=one_line(p), state="removed", message="removed since scoring") for p, _ in read]
    out = [v for v in out if v.state != "removed" or v.path not in present]
    budget = max(20, MAX_ROWS // max(1, len(to_draw)))
    for view, traj, k in to_draw:
        flagged: dict[int, list[tuple[str, str]]] = {}
        tools = {s.index: s.tool or s.role for s in traj.steps}
        for f in findings:
            if f.log == view.path and f.step in tools:
                flagged.setdefault(f.step, []).append((f.rule, one_line(f.reason(tools[f.step]))))
        reads = [f.step for f in findings if f.log == view.path and f.rule in ANSWER_RULES]
        taints = withheld[1].reasons(traj.steps, reads)
        view.rows = rows(traj.steps, k, flagged, budget, withheld[0], taints)
    return out


def _withheld(policy: Disclosure, r: Any, more: int) -> Withheld:
    """What a page under `policy` withholds of result `r`'s steps, `more` findings of it not located."""
    flagged = (
        "" if policy.flagged_steps else "call and result withheld from this bundle: a flagged step's text "
    )
    flagged += "can quote answer material" if flagged else ""
    hide_solved = not policy.solved_outputs and r is not None and solved(r)
    steps = ""
    if hide_solved:
        steps = "withheld from this bundle: the run solved this task exactly, and its steps write the answer"
    elif more and not policy.flagged_steps:
        steps = (
            f"call and result withheld from this bundle: the result counts {more} flagged step(s) it does not "
            "locate, and this could be one"
        )
    named = "so are the paths and URLs it named" if hide_solved else ""
    return Withheld(
        flagged=flagged,
        steps=steps,
        named=named,
        short_urls=not policy.flagged_steps,
        short_whys=hide_solved,
    )


def _taint(model: ViewModel, policy: Disclosure, cell: Cell, run: Path) -> Taint:
    """What a page under `policy` withholds beyond the flagged steps (`view.taint`): without the answers, the
    steps after an answer read; without the solved tasks' submissions, the steps from one naming another task's
    folder of the run (`run`, spelled as given too)."""
    folder = model.runs[cell.run].folder
    others = frozenset() if policy.solved_outputs or folder is None else frozenset(folder.task_roots)
    roots = tuple(spellings(str(run), model.sources)) if others else ()
    return Taint(answers=not policy.answers, others=others - {cell.task_id}, roots=roots)


def _headline(block: dict[str, Any] | None, status: str, recorded: int, found: int, unread: int) -> str:
    if block is None:
        return "not audited: the result records no trajectory audit (`avb verify` audits it when it scores again)"
    if not recorded and status == NOT_AUDITED:
        return NO_TRAJECTORY
    n = block.get("findings")
    return f"{status_text(status, unread)}: {n if isinstance(n, int) else found} finding(s)"


def section(model: ViewModel, policy: Disclosure, cell: Cell, *, read: bool = True) -> dict[str, Any]:
    """The trajectory section of a (run, task) page: the audit's status, the flags linked to their steps, and
    each log's timeline (module docstring); without `read` (a page of several runs side by side, which links
    the task page instead), the status and the flags alone, from the result: no log is opened."""
    r = cell.result
    block = trajectory_block(r)
    recorded = recorded_logs(r)
    unread = recorded_unreadable(r)
    findings, more = recorded_findings(r)
    status = str(block.get("status", NOT_AUDITED))[:40] if block else NOT_AUDITED
    out: dict[str, Any] = {"status": status, "logs": [], "flags": [], "notes": [], "marks": MARKS}
    out["recorded"] = len(recorded)
    if r is None:
        out["headline"] = "no result: the trajectory was not audited"
        return out
    notes = (block or {}).get("notes")
    out["notes"] = (
        [cap(one_line(n), 300) for n in notes[:10] if isinstance(n, str)] if isinstance(notes, list) else []
    )
    root = _task_root(model, cell)
    if not read:
        out["logs"] = None
    elif root is None:
        out["notes"].append("the run's task folder is not available here: no log shown")
    else:
        try:
            with JobDir(root.parent) as job:
                what = (recorded, unread, list(out["notes"]))
                withheld = (_withheld(policy, r, more), _taint(model, policy, cell, root.parent))
                out["logs"] = _read_logs(job, root.name, what, findings, withheld)
        except OSError as exc:
            out["notes"].append(f"the run folder cannot be read: {one_line(exc.strerror or str(exc))[:200]}")
    n_unread = (
        len(unread) if unread is not None else sum(v.message.startswith(UNREAD) for v in out["logs"] or [])
    )
    out["headline"] = _headline(block, status, len(recorded), len(findings), n_unread)
    out["flags"] = _flag_list(recorded, findings, out["logs"], integrity_of(r))
    if more:
        out["notes"].append(f"{more} more finding(s) are only counted in the result; `avb audit` lists them")
    out["flag_links"] = {}
    for f in out["flags"]:
        if f["anchor"]:
            out["flag_links"].setdefault(f["rule"], f["anchor"])
    return out


def _task_root(model: ViewModel, cell: Cell) -> Path | None:
    folder = model.runs[cell.run].folder
    return folder.task_roots.get(cell.task_id) if folder is not None else None


def task_stamp(model: ViewModel, cell: Cell) -> tuple[Any, ...]:
    """What says whether the logs a task page's section drew or looked for changed (`reading.logs_stamp`): a
    page kept since is drawn again when it differs, so the SHA-256 check runs on the log as it is now."""
    root = _task_root(model, cell)
    return logs_stamp(root, [p for p, _ in recorded_logs(cell.result)]) if root is not None else ()


def task_section(model: ViewModel, site: Any, cell: Cell, side: bool) -> dict[str, Any]:
    """`section` as a task page's section builder (`pages.TaskSection`): the page's `site.policy`, the logs read
    unless the page sits beside others (`side`)."""
    return section(model, site.policy, cell, read=not side)


def _flag_list(
    recorded: list[tuple[str, str]],
    findings: list[RecordedFinding],
    logs: list[LogView] | None,
    flags: list[str],
) -> list[dict[str, Any]]:
    """Each recorded finding (its anchor set when its step is drawn, or always when the logs were not read:
    `logs` None), then each trajectory flag without one."""
    index = {one_line(p): k for k, (p, _) in enumerate(recorded)}
    drawn = {
        (v.path, row.index): row
        for v in logs or []
        for row in v.rows
        if isinstance(row, StepRow) and v.state == AUDITED
    }
    out = []
    for f in findings:
        row = drawn.get((f.log, f.step))
        out.append(
            {
                "rule": f.rule,
                "log": f.log,
                "step": f.step,
                "tool": row.tool if row else "",
                "why": next((w for rule, w in row.flags if rule == f.rule), "") if row else "",
                "anchor": step_anchor(index[f.log], f.step) if row or logs is None else "",
            }
        )
    named = {f.rule for f in findings}
    for flag in flags:
        rule = flag.split(":", 1)[0]
        if rule in TRAJECTORY_FLAGS and rule not in named:
            out.append({"rule": rule, "log": "", "step": None, "tool": "", "why": "", "anchor": ""})
    return out


def audit_summary(model: ViewModel) -> list[dict[str, Any]]:
    """Per run, from its result files alone: how many tasks the trajectory audit read (`audited`), could not
    read (`unreadable`), or found no log for (`not audited`, results without an audit included), the audited
    tasks with logs it could not read (`partly`: task id, how many, page link), and per rule the tasks it flagged,
    each with the page anchor of its first flagged step."""
    out = []
    for run in model.runs:
        row: dict[str, Any] = {"label": run.label, AUDITED: 0, UNREADABLE: 0, NOT_AUDITED: 0, "no result": 0}
        row["partly"] = []
        flagged: dict[str, list[dict[str, Any]]] = {rule: [] for rule in TRAJECTORY_FLAGS}
        for tid in model.task_order:
            cell = model.cell(run.index, tid)
            if cell is None:
                continue
            if cell.result is None:
                row["no result"] += 1
                continue
            block = trajectory_block(cell.result)
            status = str(block.get("status")) if block else NOT_AUDITED
            row[status if status in (AUDITED, UNREADABLE) else NOT_AUDITED] += 1
            if status == AUDITED and (unread := len(recorded_unreadable(cell.result) or {})):
                row["partly"].append({"task_id": tid, "logs": unread, "href": f"{cell.page}#trajectory"})
            findings, _ = recorded_findings(cell.result)
            order = {one_line(p): k for k, (p, _) in enumerate(recorded_logs(cell.result))}
            for rule in {f.split(":", 1)[0] for f in cell.flags} & set(TRAJECTORY_FLAGS):
                first = next((f for f in findings if f.rule == rule), None)
                anchor = step_anchor(order[first.log], first.step) if first else "trajectory"
                flagged[rule].append({"task_id": tid, "href": f"{cell.page}#{anchor}"})
        row["flagged"] = flagged
        out.append(row)
    return out
