"""A self-contained HTML report: one file, inline CSS, plots embedded as base64 PNG (no network, no scripts).

It shows what the Markdown report shows, plus the plots: per-family bars with the published human reference,
the runs x tasks score grid, the repair edit signals per chunk over time and sequencing predicted vs true order.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from agenticvbench.analysis.comparability import symbols
from agenticvbench.cost import columns as cost_columns
from agenticvbench.report import cost_section, judge_agreement, plots
from agenticvbench.report.explain_section import explain_html, where
from agenticvbench.report.markdown import (
    STATUS_LABEL,
    aggregation_notes,
    fmt,
    fmt_ci,
    marked,
    provenance_lines,
)
from agenticvbench.report.summary import Report, human_references, published_comparison
from agenticvbench.results.model import Result
from agenticvbench.sanitize import text as sanitize_text
from agenticvbench.tables import Markup, html_table, img_tag, joined

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


def _score(mean: float | None, lo: float | None, hi: float | None) -> Markup:
    return Markup(f"{fmt(mean)} <span class='ci'>{escape(fmt_ci(lo, hi))}</span>")


def _marked(score: Markup, keys: list[str]) -> Markup:
    sym = symbols(keys)
    return Markup(f"{score} <b class='mark' title='not comparable'>{escape(sym)}</b>") if sym else score


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
        if len(made) >= MAX_DETAIL_PLOTS:
            break
        png = fn(r)
        if png:
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
    """The whole report as one self-contained HTML page."""
    fams = report.universe.families
    refs = human_references(report.published)
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<title>AgenticVBench report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>AgenticVBench report</h1>",
        f"<p class='muted'>agenticvbench {escape(report.package_version)}; {len(report.runs)} run(s) in "
        f"{len(report.groups)} (harness, model) group(s).</p>",
    ]
    if report.n_errors:
        parts.append(
            f"<p class='banner'><b>{report.n_errors} task result(s) have status ERROR</b>: the verifier "
            "itself failed. They count 0 below, but the scores are not trustworthy until fixed.</p>"
        )
    parts += [
        "<h2>Headline</h2>",
        report.board.html_table(),
        "<ul class='notes'>" + "".join(f"<li>{escape(n)}</li>" for n in aggregation_notes(report)) + "</ul>",
    ]
    if report.groups:
        parts.append(
            img_tag(plots.family_bars(report.groups, fams, refs, floor=report.floor), "headline per family")
        )
    parts += cost_section.cost_html(cost_columns.group_costs(report.groups))
    comp = [c for c in published_comparison(report.groups, report.published) if c["ours"] is not None]
    if comp:  # as in the Markdown: only published rows this comparison has a number for
        parts += [
            "<h3>Compared with published numbers</h3>",
            html_table(
                ["harness", "model", "family", "published", "ours", "difference", "source"],
                [
                    [
                        c["harness"],
                        c["model"],
                        c["family"],
                        fmt(c["published"]),
                        joined(fmt(c["ours"]), marked(report, c["harness"], c["model"], c["family"])),
                        f"{c['difference']:+.4f}" if c["difference"] is not None else "",
                        c["source"],
                    ]
                    for c in comp
                ],
                "lllrrrl",
            ),
        ]
    parts += [
        "<h2>Status counts (run x task cells)</h2>",
        html_table(
            ["family", *[STATUS_LABEL[s] for s in next(iter(report.status_counts.values()), {})]],
            [[f, *c.values()] for f, c in report.status_counts.items()],
            "l" + "r" * len(STATUS_LABEL),
        ),
    ]
    parts.append("<h2>Tasks that scored 0 for a non-scoring reason</h2>")
    if report.problems:
        parts.append(
            html_table(
                ["status", "task", "family", "run", "reason"],
                [
                    [
                        Markup(f"<span class='status-{p.status}'>{escape(STATUS_LABEL[p.status])}</span>"),
                        p.task_id,
                        p.family,
                        p.run,
                        p.reason,
                    ]
                    for p in report.problems
                ],
                "lrll",
            )
        )
    else:
        parts.append("<p>None: every task of every run was scored.</p>")
    parts += [
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
    parts += explain_html(report)
    if report.judge_agreement:
        parts += [
            "<h2>Agreement between judges</h2>",
            html_table(judge_agreement.HEADERS, judge_agreement.rows(report.judge_agreement), "llrrr"),
            *[f"<p class='muted'>{escape(n)}</p>" for n in judge_agreement.notes(report.judge_agreement)],
        ]
    if report.warnings:
        parts += [
            "<h2>Warnings</h2><p class='muted'>Scores are kept as the official scorer computes them.</p><ul>"
        ]
        parts += [
            f"<li>({n}x) {escape(w)} <span class='muted'>[{escape(where(report, w))}]</span></li>"
            for w, n in report.warnings
        ] + ["</ul>"]
    if report.notes:
        parts += ["<h2>Notes</h2><ul>"] + [f"<li>{escape(n)}</li>" for n in report.notes] + ["</ul>"]
    if report.ignored:
        parts += ["<h2>Results outside the task universe (not counted)</h2><ul>"]
        parts += [f"<li>{escape(m)}</li>" for m in report.ignored] + ["</ul>"]
    parts += ["<h2>Provenance</h2><ul>"] + [
        f"<li>{escape(line[2:])}</li>" for line in provenance_lines(report)
    ]
    parts.append("</ul></body></html>")
    return sanitize_text("\n".join(parts))  # agent strings: control characters and surrogates escaped
