"""The audit as Markdown or JSON: per run, each task's status, logs and flags, then every finding on one line.

Agent strings (tool names, quoted calls, log names) are escaped where they are shown (`sanitize.md_cell`,
`sanitize.one_line`); a run without any trajectory reads "not audited", never clean, and an audited task with a log
that could not be read says how many (`audit.status_text`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agenticvbench.sanitize import md_cell, one_line
from agenticvbench.trajectory.audit import AUDITED, RunAudit, status_text
from agenticvbench.trajectory.formats import FORMATS
from agenticvbench.trajectory.locate import LOG_NAMES
from agenticvbench.trajectory.rules import RULES

NOT_AUDITED_RUN = (
    "not audited: no trajectory found (searched RUN/<id>/ and RUN/<id>/agent/ for "
    + ", ".join(LOG_NAMES)
    + ", *.jsonl, *.eval, opencode.db and sessions/*.jsonl, and RUN/logs/ for Inspect logs)"
)


def summary(audits: list[RunAudit]) -> str:
    """One line: flags, flagged tasks, runs, and how many runs were not audited."""
    flags = sum(t.found for a in audits for t in a.tasks)
    tasks = sum(1 for a in audits for t in a.tasks if t.findings)
    missing = sum(1 for a in audits if not a.audited)
    tail = f"; {missing} run(s) not audited (no trajectory)" if missing else ""
    return f"{flags} flag(s) in {tasks} task(s) of {len(audits)} run(s){tail}"


def to_markdown(audits: list[RunAudit]) -> str:
    """The audit as a Markdown document."""
    lines = ["# Trajectory audit", "", summary(audits), ""]
    for audit in audits:
        lines += [f"## {md_cell(audit.run)}", ""]
        lines += [f"- note: {md_cell(n)}" for n in audit.notes]
        if not audit.audited:
            lines += [NOT_AUDITED_RUN, ""]
            notes = [n for t in audit.tasks for n in t.notes]
            lines += [f"- {md_cell(n)}" for n in notes[:20]]
            lines += [""] if notes else []
            continue
        lines += ["| task | status | logs | flags |", "| ---: | --- | --- | --- |"]
        for t in audit.tasks:
            logs = ", ".join(f"{log['format']} {log['path']} ({log['steps']} steps)" for log in t.logs) or "-"
            counts = Counter(f.rule for f in t.findings)
            flags = ", ".join(f"{r} {n}" for r, n in sorted(counts.items())) or (
                "none" if t.status == AUDITED else "-"
            )
            status = status_text(t.status, len(t.unreadable))
            lines.append(f"| {t.task_id} | {status} | {md_cell(logs)} | {flags} |")
        lines.append("")
        findings = audit.findings
        if findings:
            lines += ["Findings:", ""]
            lines += [
                f"- task {f.task_id}: `{f.rule}` {md_cell(f.to_text().split('  ', 1)[1])}" for f in findings
            ]
            lines.append("")
        notes = [f"task {t.task_id}: {n}" for t in audit.tasks for n in t.notes]
        if notes:
            lines += ["Notes:", ""] + [f"- {md_cell(n)}" for n in notes[:50]] + [""]
    return "\n".join(lines).rstrip() + "\n"


def to_json(audits: list[RunAudit]) -> dict[str, Any]:
    """The audit as one JSON-ready object: the rules, the formats, the runs and the summary line."""
    return {
        "rules": {name: desc for name, (desc, _) in RULES.items()},
        "formats": {f.name: f.description for f in FORMATS},
        "runs": [a.to_dict() for a in audits],
        "flags": sum(t.found for a in audits for t in a.tasks),
        "summary": one_line(summary(audits)),
    }
