"""The reports' "why tasks lost points" section: `avb explain` for every scored (run, task) that lost points or
carries warnings, in Markdown and HTML, with the recap item table and warnings attributed to run and task.

Tasks that were not scored at all (missing, malformed, error, no result) are listed in the report's problem table
instead; this section covers the scored ones, whose losses are otherwise only in the result JSON.
"""

from __future__ import annotations

from html import escape

from agenticvbench.analysis.aggregate import run_ref
from agenticvbench.analysis.explain import Explanation, explain_result
from agenticvbench.report.summary import Report
from agenticvbench.tables import html_table, md_table

#: At most this many (run, task) blocks per report; the rest are counted (each result file has them all).
MAX_EXPLAINED = 150
#: Sites listed per warning before "+N more".
MAX_SITES = 6


def where(report: Report, warning: str) -> str:
    """'run A task 65, run B task 66 (+3 more)': which results carry `warning`."""
    sites = report.warning_sites.get(warning, [])
    shown = ", ".join(sites[:MAX_SITES])
    return shown + (f" (+{len(sites) - MAX_SITES} more)" if len(sites) > MAX_SITES else "")


def explained(report: Report) -> tuple[list[tuple[str, Explanation]], int]:
    """(run label, explanation) for scored results that lost points or have warnings/flags; and how many in all."""
    labels = report.run_labels()
    order = {f: i for i, f in enumerate(report.universe.families)}
    picked = [
        r
        for r in report.results
        if r.status == "scored"
        and (float(r.headline_score) < 1.0 or r.warnings or getattr(r, "integrity", None))
    ]
    picked.sort(key=lambda r: (order.get(r.family, 99), int(r.task_id), labels.get(run_ref(r).path, "")))
    return [
        (labels.get(run_ref(r).path, run_ref(r).short), explain_result(r)) for r in picked[:MAX_EXPLAINED]
    ], len(picked)


ITEM_HEADERS = ["outcome", "item", "pillar", "weight", "measured / verdict"]


def _item_rows(e: Explanation) -> list[list[str]]:
    return [[i["outcome"], i["item_id"], i["pillar"], f"{i['weight']:g}", i["reason"]] for i in e.items]


def _lines(label: str, e: Explanation, *, integrity_first: bool) -> list[str]:
    """The bullet lines of one task's block: how, integrity flags, lost points, family sections, warnings."""
    head = [f"how: {e.computation}"]
    if e.integrity:
        flags = f"integrity flags (not comparable): {', '.join(e.integrity)}"
        head = [flags, *head] if integrity_first else [*head, flags]
    return [
        *head,
        *(f"lost: {x}" for x in e.lost),
        *(f"{name}: {x}" for name, body in e.sections.items() for x in body),
        *(f"warning ({label}, task {e.task_id}): {w}" for w in e.warnings),
    ]


def explain_markdown(report: Report) -> list[str]:
    """Markdown lines of the section (empty when nothing lost points)."""
    blocks, total = explained(report)
    if not blocks:
        return []
    out = [
        "## Why tasks lost points",
        "",
        "Scored tasks below 1.0 or with warnings; `avb explain RUN TASK_ID` prints the same for one task.",
        "",
    ]
    for label, e in blocks:
        out += [f"### Task {e.task_id} ({e.family}), {label}: {e.headline_field} {e.headline:.4f}", ""]
        out += [f"- {x}" for x in _lines(label, e, integrity_first=False)]
        if e.items:
            out += ["", md_table(ITEM_HEADERS, _item_rows(e), "lllrl")]
        out.append("")
    if total > len(blocks):
        out += [f"... and {total - len(blocks)} more (see each task's result JSON or `avb explain`).", ""]
    return out


def explain_html(report: Report) -> list[str]:
    """HTML parts of the section (collapsed per task; empty when nothing lost points)."""
    blocks, total = explained(report)
    if not blocks:
        return []
    parts = [
        "<h2>Why tasks lost points</h2>",
        "<p class='muted'>Scored tasks below 1.0 or with warnings; <code>avb explain RUN TASK_ID</code> prints "
        "the same for one task.</p>",
    ]
    for label, e in blocks:
        lines = _lines(label, e, integrity_first=True)
        body_html = "<ul>" + "".join(f"<li>{escape(x)}</li>" for x in lines) + "</ul>"
        if e.items:
            body_html += html_table(ITEM_HEADERS, _item_rows(e), "lllrl")
        parts.append(
            f"<details><summary>Task {e.task_id} ({escape(e.family)}), {escape(label)}: "
            f"{escape(e.headline_field)} {e.headline:.4f}</summary>{body_html}</details>"
        )
    if total > len(blocks):
        parts.append(f"<p class='muted'>... and {total - len(blocks)} more (see each result JSON).</p>")
    return parts
