"""The report's agent-cost section: the table of `cost.columns` rows in Markdown and HTML, and the score-versus-cost
plot (macro with its interval against $ per task, the Pareto rows joined)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from matplotlib.figure import Figure

from agenticvbench.cost.columns import CAPTION, GroupCost, any_usage
from agenticvbench.report.plots import to_png
from agenticvbench.tables import html_table, img_tag, md_table


def cost_plot(costs: Sequence[GroupCost]) -> bytes | None:
    """Macro (with its interval) against $ per task, Pareto rows joined; None when no row is priced."""
    priced = sorted((c for c in costs if c.per_task is not None), key=lambda c: c.per_task or 0.0)
    if not priced:
        return None
    fig = Figure(figsize=(6.5, 4.0))
    ax = fig.add_subplot()
    xs = {id(c): float(c.per_task or 0.0) for c in priced}
    for c in priced:
        lo, hi = c.macro_ci
        err = [[c.macro - lo], [hi - c.macro]] if lo is not None and hi is not None else None
        ax.errorbar(
            [xs[id(c)]],
            [c.macro],
            yerr=err,
            fmt="o" if c.pareto else "s",
            capsize=3,
            label=f"{c.harness}/{c.model}",
        )
    front = [c for c in priced if c.pareto]
    ax.plot([xs[id(c)] for c in front], [c.macro for c in front], "--", color="#555555", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("agent $ per task (trials with usage)")
    ax.set_ylabel("macro score (95% interval)")
    ax.legend(fontsize="small")
    return to_png(fig)


SECTION_HEADERS = ["harness", "model", "macro", "trials with usage", "total $", "$/task", "pts/$", "Pareto"]


def _section_rows(costs: Sequence[GroupCost]) -> list[list[str]]:
    """The cells of the report's cost section, one row per (harness, model)."""
    return [
        [
            c.harness,
            c.model,
            f"{c.macro:.4f}",
            f"{c.extracted}/{c.trials}",
            "" if c.total_usd is None else f"{c.total_usd:.2f}",
            f"{c.per_task:.4f}" if c.per_task is not None else c.why_no_cost,
            "" if c.points_per_usd is None else f"{c.points_per_usd:.1f}",
            "*" if c.pareto else "",
        ]
        for c in costs
    ]


def cost_markdown(costs: Sequence[GroupCost]) -> list[str]:
    """The report's Markdown cost section (empty when no row has usage)."""
    if not any_usage(costs):
        return []
    return ["## Agent cost", "", md_table(SECTION_HEADERS, _section_rows(costs), "llrrrrrl"), "", CAPTION, ""]


def cost_html(costs: Sequence[GroupCost]) -> list[str]:
    """The report's HTML cost section: table, plot, and the rows that could not be plotted."""
    if not any_usage(costs):
        return []
    parts = [
        "<h2>Agent cost</h2>",
        html_table(SECTION_HEADERS, _section_rows(costs), "llrrrrrl"),
        f"<p class='muted'>{escape(CAPTION)}</p>",
    ]
    png = cost_plot(costs)
    if png:
        parts.append(img_tag(png, "macro score versus agent cost per task"))
    if missing := [c for c in costs if c.per_task is None]:
        parts += [
            "<p>Not plotted (no cost):</p><ul>",
            *(f"<li>{escape(c.harness)}/{escape(c.model)}: {escape(c.why_no_cost)}</li>" for c in missing),
            "</ul>",
        ]
    return parts
