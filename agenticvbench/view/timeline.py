"""The agent's trajectory on a task page of `avb view` (a `pages.TASK_SECTIONS` section), and the runs' audit
summary on the overview.

A log is shown step by step only when it is the log scoring audited: its SHA-256 now equals the one
`provenance.trajectory.logs` records (`trajectory.check.log_sha256`, the same hash, taken again after reading so
a log rewritten meanwhile is refused too); a log changed, added or removed since scoring is named with the
reason and its steps are not shown. Logs are found and read by the audit's own path (`trajectory.locate`:
`candidates`, `sniff_log`, `read_log`), so the viewer reads exactly what the audit read, under its caps. The
flagged steps are the ones the result's warnings name (`trajectory.check.recorded_findings`).

Every string of a log is the agent's: it goes through `sanitize.text` / `sanitize.one_line` here and the
templates' autoescaping there, and is cut to `SHOWN_CHARS`. A page holds at most `MAX_ROWS` steps per task (the
first and the last of each log, and every flagged one; a row says what was left out). Under a policy without
`flagged_steps` (a bundle) a flagged step keeps its tool, its flags and the URLs and paths it named, and loses its
call's text and result; without `solved_outputs`, a task the run solved exactly keeps only the shape of its
steps (the texts write the answer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.analysis.aggregate import integrity_of
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.sanitize import one_line, text
from agenticvbench.trajectory.audit import AUDITED, UNREADABLE
from agenticvbench.trajectory.check import (
    NOT_AUDITED,
    TRAJECTORY_FLAGS,
    RecordedFinding,
    log_sha256,
    recorded_findings,
    recorded_logs,
    trajectory_block,
)
from agenticvbench.trajectory.locate import RUN_FOLDER, candidates, read_log, sniff_log
from agenticvbench.trajectory.model import Step, Trajectory, cap, parse_time
from agenticvbench.view.disclosure import Disclosure
from agenticvbench.view.evidence import solved
from agenticvbench.view.model import Cell, ViewModel
from agenticvbench.view.reading import logs_stamp

MAX_ROWS = 240  # steps drawn per task page (over all its logs), plus the flagged ones
TAIL_SHARE = 4  # a quarter of a log's rows are its last steps
SHOWN_CHARS = 1500  # of a step's call or result on the page
SUMMARY_CHARS = 100
NO_TRAJECTORY = "no trajectory found (not audited)"
ADDED = "added since scoring: not audited, steps not shown"
#: What each step marker means (the legend under the timeline; one meaning per mark).
MARKS: dict[str, str] = {
    "probe": "probed a media file (ffprobe, mediainfo, exiftool, or a *probe* tool)",
    "frames": "extracted frames (ffmpeg writing images or single frames, OpenCV/decord/PyAV frame reads, "
    "a *frame* or *screenshot* tool)",
    "image": "read an image file into its context (a read or view tool naming a .png/.jpg/.webp/...)",
    "ffmpeg": "ran ffmpeg for anything else (cutting, encoding, concatenating)",
}
_PROBE = re.compile(r"\b(?:ffprobe|mediainfo|exiftool)\b")
_FFMPEG = re.compile(r"\bffmpeg\b")
_FRAME_ARGS = re.compile(
    r"-vframes\b|-frames:v\b|\bselect=|\bfps=|\bthumbnail\b|%0?[0-9]*d\.(?:png|jpe?g|bmp|webp)\b"
    r"|\.(?:png|jpe?g|bmp|webp)\b",
    re.I,
)
_FRAME_CALLS = re.compile(
    r"\bcv2\.VideoCapture\b|\bdecord\b|\bVideoReader\b|\.decode\(\s*video\b|\bto_image\("
)
_IMAGE = re.compile(r"\.(?:png|jpe?g|bmp|webp|gif)$", re.I)


@dataclass(frozen=True, kw_only=True)
class StepRow:
    """One step as a page draws it (texts sanitised and cut; '' where withheld)."""

    kind: str = "step"
    index: int
    anchor: str
    time: str
    elapsed: float | None
    delta: float | None
    role: str
    tool: str
    summary: str
    arguments: str
    result: str
    result_chars: int
    withheld: str  # why the texts are not shown, '' when they are
    error: str | None  # the tool's error ('' when its text is withheld), None when the call did not fail
    tokens: int | None
    marks: tuple[str, ...]
    named: tuple[str, ...]  # the URLs and paths a flagged step's call named (what a rule judges)
    flags: tuple[tuple[str, str], ...]  # (rule, why)


@dataclass(frozen=True, kw_only=True)
class Gap:
    """Steps `first`..`last` of a log, left out of the page."""

    kind: str = "gap"
    first: int
    last: int


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


def step_anchor(log: int, step: int) -> str:
    """The id of step `step` of the `log`-th log the result records: `step-N` for the first, `logK-step-N`."""
    return f"step-{step}" if log == 0 else f"log{log}-step-{step}"


def marks(step: Step) -> tuple[str, ...]:
    """The media markers of a step (`MARKS`): a small heuristic on its tool name and call."""
    tool = (step.tool or "").lower()
    args = step.arguments
    if step.tool is None:
        return ()
    if "probe" in tool or _PROBE.search(args):
        return ("probe",)
    ffmpeg = bool(_FFMPEG.search(args))
    if (
        "frame" in tool
        or "screenshot" in tool
        or _FRAME_CALLS.search(args)
        or (ffmpeg and _FRAME_ARGS.search(args))
    ):
        return ("frames",)
    if any(w in tool for w in ("read", "view", "image")) and any(_IMAGE.search(p) for p in step.paths):
        return ("image",)
    return ("ffmpeg",) if ffmpeg else ()


def _shown(value: str) -> str:
    return cap(text(value), SHOWN_CHARS)


def _row(
    step: Step,
    anchor: str,
    times: tuple[float | None, float | None],
    flags: tuple[tuple[str, str], ...],
    why: str,
) -> StepRow:
    """A step as drawn; `why` non-empty: its texts are withheld (a flagged step keeps what it named)."""
    start, previous = times
    at = parse_time(step.time)
    named = tuple(one_line(x)[:300] for x in (*step.urls, *step.paths)[:12]) if flags else ()
    return StepRow(
        index=step.index,
        anchor=anchor,
        time=one_line(step.time or ""),
        elapsed=at - start if at is not None and start is not None else None,
        delta=at - previous if at is not None and previous is not None and at >= previous else None,
        role=one_line(step.role),
        tool=one_line(step.tool or ""),
        summary="" if why else cap(one_line(" ".join(step.arguments.split())), SUMMARY_CHARS),
        arguments="" if why else _shown(step.arguments),
        result="" if why else _shown(step.result),
        result_chars=len(step.result),
        withheld=why,
        error=None if step.error is None else ("" if why else cap(one_line(step.error), 300)),
        tokens=step.tokens,
        marks=marks(step),
        named=named,
        flags=flags,
    )


def _window(n: int, budget: int, keep: set[int]) -> list[int]:
    """Positions of the steps to draw: the first and last of `budget` (a quarter at the end), and `keep`."""
    if n <= budget:
        return list(range(n))
    tail = budget // TAIL_SHARE
    return sorted(set(range(budget - tail)) | set(range(n - tail, n)) | {k for k in keep if 0 <= k < n})


def _rows(
    steps: list[Step], k: int, flagged: dict[int, list[tuple[str, str]]], budget: int, why: dict[str, str]
) -> list[StepRow | Gap]:
    by_index = {s.index: pos for pos, s in enumerate(steps)}
    keep = {by_index[i] for i in flagged if i in by_index}
    out: list[StepRow | Gap] = []
    start = next((t for s in steps if (t := parse_time(s.time)) is not None), None)
    last = -1
    for pos in _window(len(steps), budget, keep):
        if pos > last + 1:
            out.append(Gap(first=steps[last + 1].index, last=steps[pos - 1].index))
        step = steps[pos]
        prev = parse_time(steps[pos - 1].time) if pos else None
        hits = tuple((rule, w) for rule, w in flagged.get(step.index, []))
        reason = why["flagged"] if hits and why["flagged"] else why["all"]
        out.append(_row(step, step_anchor(k, step.index), (start, prev), hits, reason))
        last = pos
    if last + 1 < len(steps):
        out.append(Gap(first=steps[last + 1].index, last=steps[-1].index))
    return out


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


def _read_logs(
    job: JobDir,
    folder: str,
    recorded: list[tuple[str, str]],
    findings: list[RecordedFinding],
    why: dict[str, str],
) -> list[LogView]:
    """Every log of the task folder, in the audit's order, each checked against the recorded hash."""
    known = {path: (k, sha) for k, (path, sha) in enumerate(recorded)}
    out: list[LogView] = []
    to_draw: list[tuple[LogView, Trajectory, int]] = []
    task_id = int(folder) if folder.isascii() and folder.isdigit() else None
    for parts in candidates(job, folder):
        where = "/".join(parts)
        if where not in known and parts[0] == RUN_FOLDER and not read_log(job, parts, task_id).of_task:
            continue  # a run-level log with none of this task's samples is another task's, as for the audit
        view = LogView(path=one_line(where))
        out.append(view)
        if where not in known:
            fmt = sniff_log(job, parts)
            view.state, view.message = ("unknown", fmt) if isinstance(fmt, str) else ("added", ADDED)
            view.format = "" if isinstance(fmt, str) else fmt.name
        elif (traj := _audited(job, parts, known[where][1], view, task_id)) is not None and traj.steps:
            view.steps, view.span = len(traj.steps), _span(traj.steps)
            view.tokens = sum(s.tokens or 0 for s in traj.steps) or None
            to_draw.append((view, traj, known[where][0]))
    present = {v.path for v in out}
    out += [LogView(path=one_line(p), state="removed", message="removed since scoring") for p, _ in recorded]
    out = [v for v in out if v.state != "removed" or v.path not in present]
    budget = max(20, MAX_ROWS // max(1, len(to_draw)))
    for view, traj, k in to_draw:
        flagged: dict[int, list[tuple[str, str]]] = {}
        tools = {s.index: s.tool or s.role for s in traj.steps}
        for f in findings:
            if f.log == view.path and f.step in tools:
                flagged.setdefault(f.step, []).append((f.rule, one_line(f.why(tools[f.step]))))
        view.rows = _rows(traj.steps, k, flagged, budget, why)
    return out


def section(model: ViewModel, policy: Disclosure, cell: Cell, *, read: bool = True) -> dict[str, Any]:
    """The trajectory section of a (run, task) page: the audit's status, the flags linked to their steps, and
    each log's timeline (module docstring); without `read` (a page of several runs side by side, which links
    the task page instead), the status and the flags alone, from the result: no log is opened."""
    r = cell.result
    block = trajectory_block(r)
    recorded = recorded_logs(r)
    findings, more = recorded_findings(r)
    status = str(block.get("status", NOT_AUDITED))[:40] if block else NOT_AUDITED
    why = {
        "flagged": ""
        if policy.flagged_steps
        else "call and result withheld from this bundle: a flagged step's text can quote answer material",
        "all": ""
        if policy.solved_outputs or r is None or not solved(r)
        else "withheld from this bundle: the run solved this task exactly, and its steps write the answer",
    }
    out: dict[str, Any] = {"status": status, "logs": [], "flags": [], "notes": [], "marks": MARKS}
    out["recorded"] = len(recorded)
    if r is None:
        out["headline"] = "no result: the trajectory was not audited"
        return out
    if block is None:
        out["headline"] = (
            "not audited: the result records no trajectory audit (`avb verify` audits it when it scores again)"
        )
    elif not recorded and status == NOT_AUDITED:
        out["headline"] = NO_TRAJECTORY
    else:
        n = block.get("findings")
        out["headline"] = f"{status}: {n if isinstance(n, int) else len(findings)} finding(s)"
    out["notes"] = [one_line(n)[:300] for n in (block or {}).get("notes", [])[:10] if isinstance(n, str)]
    root = _task_root(model, cell)
    if not read:
        out["logs"] = None
    elif root is None:
        out["notes"].append("the run's task folder is not available here: no log shown")
    else:
        try:
            with JobDir(root.parent) as job:
                out["logs"] = _read_logs(job, root.name, recorded, findings, why)
        except OSError as exc:
            out["notes"].append(f"the run folder cannot be read: {one_line(exc.strerror or str(exc))[:200]}")
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
    read (`unreadable`), or found no log for (`not audited`, results without an audit included), and per rule
    the tasks it flagged, each with the page anchor of its first flagged step."""
    out = []
    for run in model.runs:
        row: dict[str, Any] = {"label": run.label, AUDITED: 0, UNREADABLE: 0, NOT_AUDITED: 0, "no result": 0}
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
            findings, _ = recorded_findings(cell.result)
            order = {one_line(p): k for k, (p, _) in enumerate(recorded_logs(cell.result))}
            for rule in {f.split(":", 1)[0] for f in cell.flags} & set(TRAJECTORY_FLAGS):
                first = next((f for f in findings if f.rule == rule), None)
                anchor = step_anchor(order[first.log], first.step) if first else "trajectory"
                flagged[rule].append({"task_id": tid, "href": f"{cell.page}#{anchor}"})
        row["flagged"] = flagged
        out.append(row)
    return out
