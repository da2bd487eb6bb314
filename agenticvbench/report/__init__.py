"""Reports and leaderboards from result files: aggregation, Markdown, HTML (with plots) and leaderboard tables.

Typical use::

    from agenticvbench.report import load_comparison, build_report, render_markdown, render_html
    report = build_report(load_comparison(["runs/a", "runs/b"]))
    print(render_markdown(report))

Names load on first use (`agenticvbench.lazy`), so importing one light submodule (e.g. `agenticvbench.analysis.aggregate` from
the engine's summary) does not pull in matplotlib and pandas. Aggregation rules (macro/micro, bootstrap
scheme) are documented in `agenticvbench.analysis.aggregate`, which tasks count in `agenticvbench.analysis.task_universe`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agenticvbench.lazy import lazy_exports

if TYPE_CHECKING:
    from agenticvbench.analysis.aggregate import (
        DEFAULT_LEVEL,
        DEFAULT_RESAMPLES,
        DEFAULT_SEED,
        FamilyHeadline,
        GroupHeadline,
        RunRef,
        bootstrap,
        combine_run_means,
        headlines,
    )
    from agenticvbench.analysis.task_universe import TaskUniverse, task_universe
    from agenticvbench.report.html import render_html
    from agenticvbench.report.leaderboard import Leaderboard, build_leaderboard, leaderboard_from_runs
    from agenticvbench.report.markdown import render_markdown
    from agenticvbench.report.summary import (
        Report,
        build_report,
        human_references,
        load_comparison,
        load_published,
        published_comparison,
    )

_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "DEFAULT_LEVEL",
            "DEFAULT_RESAMPLES",
            "DEFAULT_SEED",
            "FamilyHeadline",
            "GroupHeadline",
            "RunRef",
            "bootstrap",
            "combine_run_means",
            "headlines",
        ),
        "agenticvbench.analysis.aggregate",
    ),
    **dict.fromkeys(("TaskUniverse", "task_universe"), "agenticvbench.analysis.task_universe"),
    "render_html": "agenticvbench.report.html",
    **dict.fromkeys(
        ("Leaderboard", "build_leaderboard", "leaderboard_from_runs"), "agenticvbench.report.leaderboard"
    ),
    "render_markdown": "agenticvbench.report.markdown",
    **dict.fromkeys(
        (
            "Report",
            "build_report",
            "human_references",
            "load_comparison",
            "load_published",
            "published_comparison",
        ),
        "agenticvbench.report.summary",
    ),
}

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "FamilyHeadline",
    "GroupHeadline",
    "Leaderboard",
    "Report",
    "RunRef",
    "TaskUniverse",
    "bootstrap",
    "build_leaderboard",
    "build_report",
    "combine_run_means",
    "headlines",
    "human_references",
    "leaderboard_from_runs",
    "load_comparison",
    "load_published",
    "published_comparison",
    "render_html",
    "render_markdown",
    "task_universe",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
