"""A self-contained HTML report: one file, inline CSS, plots embedded as base64 PNG (no network, no scripts).

It shows what the Markdown report shows, plus the plots: per-family bars with the published human reference,
the runs x tasks score grid, the repair edit signals per chunk over time and sequencing predicted vs true order.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from agenticvbench.analysis.reward_agreement import markdown_lines as harbor_markdown_lines
from agenticvbench.cost import columns as cost_columns
from agenticvbench.report import cost_section, judge_agreement, plots
from agenticvbench.report.explain_section import explain_html, where
from agenticvbench.report.markdown import (
    PUBLISHED_HEADERS,
    STATUS_SPEC,
    aggregation_notes,
    fmt,
    provenance_lines,
    published_rows,
    signature_rows,
    status_cells,
    status_label,
)
from agenticvbench.report.sections import SectionRenderer, signatures_shown, walk
from agenticvbench.report.summary import Report, human_references
from agenticvbench.results.model import Result
from agenticvbench.sanitize import text as sanitize_text
from agenticvbench.tables import Markup, html_table, img_tag

MAX_DETAIL_PLOTS = 24

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1200px;color:#222;
padding:0 1em}
h1{margin-bottom:.2em} h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em} th,td{border:1px solid #ddd;padding:.25em .6em} table.board td{white-space:nowrap;text-align:right} table.board td.l{text-align:left}
th{background:#f3f3f3} td.r{text-align:right;font-variant-numeric:tabular-nums} .ci{color:#777;font-size:.85em}
.banner{background:#fde2e1;border:1px solid #d62728;padding:.6em 1em;border-radius:4px}
.notes li{color:#444;font-size:.9em} img{max-width:100%} .grid{display:flex;flex-wrap:wrap;gap:8px}
.grid img{width:380px} .grid.wide img{width:580px} .status-error,.status-invalid{color:#b00;font-weight:bold} .muted{color:#777}
.mark{color:#b00} details{margin:.3em 0}
"""


#: The per-result plots a family's scored results get, in the order the page shows them: family -> (plot, title,
#: caption, CSS class of the grid). A table rather than branches: adding a family's plot is one entry here.
DETAIL_PLOTS: dict[str, tuple[Callable[[Result], bytes | None], str, str, str]] = {
    "repair": (
        plots.repair_chunks,
        "Repair: edit signals per chunk",
        "Similarity of fixed.mp4 to the source per 10-s chunk; solid = inside the defect window "
        "(weighted 2.5x), dotted = outside (1x).",
        "grid wide",
    ),
    "sequencing": (
        plots.sequencing_order,
        "Sequencing: predicted vs true order",
        "Each clip at (true position, predicted position); on the diagonal = correct.",
        "grid",
    ),
}


def _detail_plots(report: Report, family: str, fn: Any, title: str, why: str, css: str = "grid") -> list[str]:
    made: list[str] = []
    candidates = [r for r in report.results if r.family == family and r.status == "scored"]
    for r in candidates:
        if len(made) < MAX_DETAIL_PLOTS and (png := fn(r)):
            made.append(img_tag(png, f"{family} task {r.task_id}"))
    if not made:
        return []
    note = f"{len(made)} of {len(candidates)} scored {family} results" if len(candidates) > len(made) else ""
    return [
        f"<h3>{escape(title)}</h3>",
        f"<p class='muted'>{escape(why)} {escape(note)}</p>",
        f"<div class='{css}'>{''.join(made)}</div>",
    ]


def render_html(report: Report) -> str:
    """The whole report as one self-contained HTML page: every section of `sections.SECTION_ORDER`, in order,
    as the Markdown report shows them, plus the plots."""
    renderers: dict[str, SectionRenderer] = {
        "summary": _summary,
        "headline": _headline,
        "status": _status,
        "signatures": _signatures,
        "problems": _problems,
        "harbor": lambda r: lines_html(harbor_markdown_lines(r.task_rows())),
        "per_task": _per_task,
        "explain": explain_html,
        "agreement": _agreement,
        "warnings": _warnings,
        "notes": lambda r: _bullets("Notes", r.notes),
        "ignored": lambda r: _bullets("Results outside the task universe (not counted)", r.ignored),
        "provenance": lambda r: _bullets("Provenance", [line[2:] for line in provenance_lines(r)]),
    }
    head = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<title>AgenticVBench report</title>",
        f"<style>{CSS}</style></head><body>",
    ]
    # agent strings: control characters and surrogates escaped
    return sanitize_text("\n".join([*head, *walk(report, renderers), "</body></html>"]))


def _summary(report: Report) -> list[str]:
    parts = [
        "<h1>AgenticVBench report</h1>",
        f"<p class='muted'>agenticvbench {escape(report.package_version)}; {len(report.runs)} run(s) in "
        f"{len(report.groups)} (harness, model) group(s).</p>",
    ]
    if report.n_errors:
        parts.append(
            f"<p class='banner'><b>{report.n_errors} task result(s) have status ERROR</b>: the verifier "
            "itself failed. They count 0 below, but the scores are not trustworthy until fixed.</p>"
        )
    return parts


def _headline(report: Report) -> list[str]:
    parts = [
        "<h2>Headline</h2>",
        report.board.html_table(),
        "<ul class='notes'>" + "".join(f"<li>{escape(n)}</li>" for n in aggregation_notes(report)) + "</ul>",
    ]
    if report.groups:
        refs = human_references(report.published)
        bars = plots.family_bars(report.groups, report.universe.families, refs, floor=report.floor)
        parts.append(img_tag(bars, "headline per family"))
    parts += cost_section.cost_html(cost_columns.group_costs(report.groups))
    comp = published_rows(report)
    if comp:  # as in the Markdown: only published rows this comparison has a number for
        parts += ["<h3>Compared with published numbers</h3>", html_table(PUBLISHED_HEADERS, comp, "lllrrrl")]
    return parts


def _status(report: Report) -> list[str]:
    return [
        "<h2>Status counts (run x task cells)</h2>",
        html_table(*status_cells(report), STATUS_SPEC),
    ]


def _signatures(report: Report) -> list[str]:
    if not signatures_shown(report):
        return []
    return [
        "<h2>Result signatures</h2>",
        html_table(["run", "signed", "detail"], signature_rows(report), "lrl"),
    ]


def _problems(report: Report) -> list[str]:
    parts = ["<h2>Tasks that scored 0 for a non-scoring reason</h2>"]
    if not report.problems:
        return parts + ["<p>None: every task of every run was scored.</p>"]
    rows = [
        [
            Markup(f"<span class='status-{p.status}'>{escape(status_label(p.status, p.reason))}</span>"),
            p.task_id,
            p.family,
            p.run,
            p.reason,
        ]
        for p in report.problems
    ]
    return parts + [html_table(["status", "task", "family", "run", "reason"], rows, "lrll")]


def _per_task(report: Report) -> list[str]:
    parts = [
        "<h2>Per-task scores</h2>",
        "<p class='muted'>Colour: headline score of each run x task; a marker instead of a colour means the "
        "cell counts 0 because of its status.</p>",
        img_tag(plots.task_grid(report.results, report.runs, report.universe.tasks), "per-task score grid"),
    ]
    rows = [
        [r["family"], r["task_id"], r["run"], r["status"], fmt(r["headline"]), r["n_warnings"], r["reason"]]
        for r in report.task_rows()
    ]
    parts.append(
        "<details><summary>Table of every run x task</summary>"
        + html_table(["family", "task", "run", "status", "headline", "warnings", "reason"], rows, "lrllrrl")
        + "</details>"
    )
    for family, (fn, title, why, css) in DETAIL_PLOTS.items():
        parts += _detail_plots(report, family, fn, title, why, css)
    return parts


def _agreement(report: Report) -> list[str]:
    if not report.judge_agreement:
        return []
    return [
        "<h2>Agreement between judges</h2>",
        html_table(judge_agreement.HEADERS, judge_agreement.rows(report.judge_agreement), "llrrr"),
        *[f"<p class='muted'>{escape(n)}</p>" for n in judge_agreement.notes(report.judge_agreement)],
    ]


def _warnings(report: Report) -> list[str]:
    if not report.warnings:
        return []
    return [
        "<h2>Warnings</h2><p class='muted'>Scores are kept as the official scorer computes them.</p><ul>",
        *[
            f"<li>({n}x) {escape(w)} <span class='muted'>[{escape(where(report, w))}]</span></li>"
            for w, n in report.warnings
        ],
        "</ul>",
    ]


def _bullets(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    return [f"<h2>{escape(title)}</h2><ul>", *[f"<li>{escape(i)}</li>" for i in items], "</ul>"]


def lines_html(lines: list[str]) -> list[str]:
    """Markdown lines of a section written once for both formats (headings, paragraphs, tables) as HTML: a
    heading becomes `<h2>`/`<h3>`, a table block stays as text in `<pre>`, other lines are paragraphs."""
    out: list[str] = []
    table: list[str] = []
    for line in [*lines, ""]:
        if line.startswith("|"):
            table.append(line)
            continue
        if table:
            out.append(f"<pre>{escape(chr(10).join(table))}</pre>")
            table = []
        if line.startswith("### "):
            out.append(f"<h3>{escape(line[4:])}</h3>")
        elif line.startswith("## "):
            out.append(f"<h2>{escape(line[3:])}</h2>")
        elif line.strip():
            out.append(f"<p>{escape(line.lstrip('- '))}</p>")
    return out
