"""Markdown rendering of a `Report` (what `avb report` prints) and the small table/number helpers it shares.

Every number is printed with the rule that produced it: the task universe line, the per-family aggregation
statement, and the macro/micro labels appear right beside the headline table.
"""

from __future__ import annotations

from typing import Any

from agenticvbench.analysis.aggregate import FLAGGED_OUT, NO_RESULT
from agenticvbench.analysis.comparability import infra_lines, judge_text, legend, symbols
from agenticvbench.analysis.reward_agreement import markdown_lines as harbor_markdown_lines
from agenticvbench.report import judge_agreement
from agenticvbench.report.explain_section import explain_markdown, where
from agenticvbench.report.sections import SectionRenderer, signatures_shown, walk
from agenticvbench.report.summary import Report, human_references, published_comparison
from agenticvbench.results.signatures import describe, signed_text
from agenticvbench.sanitize import markdown_document
from agenticvbench.tables import fmt, fmt_ci, joined, md_table  # noqa: F401 - fmt and fmt_ci: public names here too
from agenticvbench.verifiers import headline_rule

STATUS_LABEL = {
    "scored": "scored",
    "missing": "missing",
    "malformed": "malformed",
    "error": "ERROR",
    "excluded": "excluded",
    "invalid": "invalid result file",
    NO_RESULT: "no result",
}


def status_label(status: str, reason: str = "") -> str:
    """How a cell's status reads in a table: an excluded cell says why it was left out, an infrastructure failure
    or an integrity flag under `--exclude-flagged` (`aggregate.FLAGGED_OUT`); counts per status say `excluded`."""
    if status == "excluded":
        return "excluded (flagged)" if reason.startswith(FLAGGED_OUT) else "excluded (infra)"
    return STATUS_LABEL[status]


def fmt_score_ci(mean: float | None, lo: float | None, hi: float | None) -> str:
    """'0.4321 [0.31, 0.52]'."""
    return f"{fmt(mean)} {fmt_ci(lo, hi)}".strip()


def aggregation_notes(report: Report) -> list[str]:
    """The sentences saying how every headline number was aggregated."""
    notes = [
        report.universe.label,
        f"Family cell: mean of the headline score ({headline_rule()}) over all runs x tasks of that (harness, "
        f"model); {report.aggregation.exclusion}.",
        report.aggregation.interval_text(dict(report.universe.tasks)) + ".",
    ]
    if report.groups:
        notes += [
            report.groups[0].macro_label.split("(")[0].strip() + " (each family weighs the same).",
            "micro: mean over all run x task cells (each task weighs the same).",
        ]
    notes.append("coverage: run x task cells with a result / cells counted.")
    notes.append(
        "infra: infrastructure failures in the row (excluded from the means, or counted 0 under the "
        "default zero policy), listed below for rerun."
    )
    notes += infra_lines(report.groups)
    if report.signatures:
        notes.append(
            f"Signatures, checked with {report.signatures['key']}: "
            f"{describe(report.signatures['total'])}. A result without a valid signature counts as it is "
            "here, but `avb verify` rescores it instead of reusing it."
        )
    notes += legend(report.groups)
    notes += [f"Not comparable: {g.harness}/{g.model}: {n}" for g in report.groups for n in g.mark_notes]
    refs = human_references(report.published)
    if refs:
        notes.append(
            "Published human reference (AgenticVBench paper, arXiv:2605.27705): "
            + ", ".join(f"{f} {v:.2f}" for f, v in refs.items())
            + "; a marked cell is not comparable with it."
        )
    return notes + report.board.floor_lines(".")


def marked(report: Report, harness: str, model: str, family: str) -> str:
    """The mark symbols of one (harness, model) x family cell of the report ('' when comparable)."""
    marks = next((g.marks for g in report.groups if (g.harness, g.model) == (harness, model)), {})
    return symbols(marks.get(family, []))


def _per_task(report: Report, family: str) -> str:
    rows = []
    index = {(r["task_id"], r["run_path"]): r for r in report.task_rows() if r["family"] == family}
    for tid in report.universe.tasks[family]:
        cells = []
        for run in report.runs:
            row = index[(tid, run.path)]
            cells.append(
                fmt(row["headline"])
                if row["status"] == "scored"
                else status_label(row["status"], row["reason"])
            )
        rows.append([tid, *cells])
    labels = report.run_labels()
    return md_table(["task", *[labels[r.path] for r in report.runs]], rows, "r" * (len(report.runs) + 1))


STATUS_SPEC = "l" + "r" * len(STATUS_LABEL)


def status_cells(report: Report) -> tuple[list[str], list[list[Any]]]:
    """Headers and rows of the status counts (run x task cells) per family, for either format."""
    headers = ["family", *[STATUS_LABEL[s] for s in next(iter(report.status_counts.values()), {})]]
    return headers, [[f, *c.values()] for f, c in report.status_counts.items()]


def status_table(report: Report) -> str:
    """Status counts (run x task cells) per family as a Markdown table."""
    return md_table(*status_cells(report), STATUS_SPEC)


def render_summary(report: Report) -> str:
    """The short form (what `avb demo` prints): the headline table with its mark legend and the status counts."""
    out = [
        "Headline (per family: mean headline score [95% CI]; macro/micro over families/tasks)",
        "",
        report.board.markdown_table(),
        "",
    ]
    out += [f"- {n}" for n in legend(report.groups)]
    out += ["", "Status counts (run x task cells)", "", status_table(report)]
    return "\n".join(out)


def render_markdown(report: Report, *, per_task: bool = True, max_problems: int = 200) -> str:
    """The whole report as Markdown: every section of `sections.SECTION_ORDER`, in order (`per_task=False` leaves
    the per-task tables and explanations empty; at most `max_problems` problems are listed)."""
    renderers: dict[str, SectionRenderer] = {
        "summary": _summary,
        "headline": _headline,
        "status": lambda r: ["## Status counts (run x task cells)", "", status_table(r), ""],
        "signatures": _signatures,
        "problems": lambda r: _problems(r, max_problems),
        "harbor": lambda r: harbor_markdown_lines(r.task_rows()),
        "per_task": (lambda r: _per_task_section(r)) if per_task else (lambda r: []),
        "explain": explain_markdown if per_task else (lambda r: []),
        "agreement": lambda r: agreement_markdown(r.judge_agreement),
        "warnings": _warnings,
        "notes": lambda r: (["## Notes", ""] + [f"- {n}" for n in r.notes] + [""]) if r.notes else [],
        "ignored": _ignored,
        "provenance": lambda r: ["## Provenance", ""] + provenance_lines(r) + [""],
    }
    # agent strings: no raw HTML, no control characters
    return markdown_document("\n".join(walk(report, renderers)))


def _summary(report: Report) -> list[str]:
    out = [
        "# AgenticVBench report",
        "",
        f"agenticvbench {report.package_version}; {len(report.runs)} run(s) in {len(report.groups)} "
        f"(harness, model) group(s).",
        "",
    ]
    if report.n_errors:
        out += [
            f"> **{report.n_errors} task result(s) have status ERROR**: the verifier itself failed. They count 0 "
            "below, but the scores are not trustworthy until they are fixed (see the list of problems).",
            "",
        ]
    return out


def _headline(report: Report) -> list[str]:
    from agenticvbench.cost.columns import group_costs
    from agenticvbench.report.cost_section import cost_markdown

    out = ["## Headline", "", report.board.markdown_table(), ""]
    out += [f"- {n}" for n in aggregation_notes(report)] + [""]
    out += cost_markdown(group_costs(report.groups))
    comp = published_rows(report)
    if comp:
        out += [
            "### Compared with published numbers",
            "",
            md_table(PUBLISHED_HEADERS, comp, "lllrrrl"),
            "",
        ]
    return out


#: The columns of the "Compared with published numbers" table (Markdown and HTML).
PUBLISHED_HEADERS = ["harness", "model", "family", "published", "ours", "difference", "source"]


def published_rows(report: Report) -> list[list[Any]]:
    """The published headlines this comparison has a number for, beside ours (with our cell's marks)."""
    return [
        [
            c["harness"],
            c["model"],
            c["family"],
            fmt(c["published"]),
            joined(fmt(c["ours"]), marked(report, c["harness"], c["model"], c["family"])),
            f"{c['difference']:+.4f}",
            c["source"],
        ]
        for c in published_comparison(report.groups, report.published)
        if c["ours"] is not None
    ]


def signature_rows(report: Report) -> list[list[str]]:
    """One row per run: its label, `signed` and the detail of its signature counts."""
    return [[run, signed_text(c), describe(c)] for run, c in (report.signatures.get("per_run") or {}).items()]


def _signatures(report: Report) -> list[str]:
    if not signatures_shown(report):
        return []
    return [
        "## Result signatures",
        "",
        md_table(["run", "signed", "detail"], signature_rows(report), "lrl"),
        "",
    ]


def _problems(report: Report, max_problems: int) -> list[str]:
    out = ["## Tasks that scored 0 for a non-scoring reason", ""]
    if report.problems:
        shown = report.problems[:max_problems]
        out += [
            md_table(
                ["status", "task", "family", "run", "reason"],
                [[status_label(p.status, p.reason), p.task_id, p.family, p.run, p.reason] for p in shown],
                "lrll",
            )
        ]
        if len(report.problems) > len(shown):
            out.append(f"\n... and {len(report.problems) - len(shown)} more (see the JSON report).")
    else:
        out.append("None: every task of every run was scored.")
    return out + [""]


def _per_task_section(report: Report) -> list[str]:
    out = ["## Per-task headline scores", ""]
    for f in report.universe.families:
        out += [f"### {f}", "", _per_task(report, f), ""]
    return out


def _warnings(report: Report) -> list[str]:
    if not report.warnings:
        return []
    return (
        ["## Warnings (scores kept as the official scorer computes them)", ""]
        + [f"- ({n}x) {w} [{where(report, w)}]" for w, n in report.warnings]
        + [""]
    )


def _ignored(report: Report) -> list[str]:
    if not report.ignored:
        return []
    return (
        ["## Results outside the task universe (not counted)", ""] + [f"- {m}" for m in report.ignored] + [""]
    )


def agreement_markdown(section: dict[str, Any] | None) -> list[str]:
    """The "Agreement between judges" section (`report.judge_agreement`) as Markdown lines; none without data."""
    if not section:
        return []
    return [
        "## Agreement between judges",
        "",
        md_table(judge_agreement.HEADERS, judge_agreement.rows(section), "llrrr"),
        "",
        *[f"- {n}" for n in judge_agreement.notes(section)],
        "",
    ]


def provenance_lines(report: Report) -> list[str]:
    """Provenance as Markdown bullet lines."""
    p = report.provenance
    lines = [
        f"- agenticvbench version(s) that scored: {', '.join(map(str, p['package_versions'])) or 'unknown'}"
    ]
    for d in p["datasets"] or ["unknown"]:
        if isinstance(d, dict):
            d = f"{d.get('dataset')} @ {d.get('revision')} (resolved {d.get('resolved_revision')})"
        lines.append(f"- dataset: {d}")
    lines.append(
        "- verifier versions: "
        + (
            "; ".join(f"{f} {', '.join(map(str, v)) or '?'}" for f, v in p["verifier_versions"].items())
            or "unknown"
        )
    )
    for j in p["judges"]:
        if isinstance(j, dict):
            parts = [f"{k} {v}" for k, v in j.items() if v not in (None, "")]
            lines.append("- judge (recap): " + (", ".join(parts) or "none"))
        else:
            lines.append(f"- judge (recap): {j}")
    if p["libraries"]:
        lines.append(
            "- libraries: " + ", ".join(f"{k} {'/'.join(map(str, v))}" for k, v in p["libraries"].items())
        )
    hosts = [h for h in p.get("hosts") or [] if isinstance(h, dict)]
    if hosts:
        lines.append("- scored on: " + "; ".join(f"{h.get('machine')} ({h.get('simd')})" for h in hosts))
    lines.append("- runs: " + "; ".join(f"{r.short} = {r.path}" for r in report.runs))
    labels = report.run_labels()
    usage = [
        f"{labels.get(path, path)}: {judge_text(u)}"
        for g in report.groups
        for path, u in (g.judge or {}).items()
        if judge_text(u)
    ]
    if usage:
        lines.append("- judge usage per run (recap): " + "; ".join(usage))
    return lines
