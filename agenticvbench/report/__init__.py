"""Reports and leaderboards from result files: aggregation, Markdown, HTML (with plots) and leaderboard tables.

Typical use::

    from agenticvbench.report import load_comparison, build_report, render_markdown, render_html
    report = build_report(load_comparison(["runs/a", "runs/b"]))
    print(render_markdown(report))

Aggregation rules (task universe, macro/micro, bootstrap scheme) are documented in `report.aggregate`.
"""

from __future__ import annotations

import importlib
from typing import Any

# Names are resolved on first use so that importing one light submodule (e.g. `report.aggregate` from the
# engine's summary) does not pull in matplotlib and pandas.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("DEFAULT_LEVEL", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "FamilyHeadline", "GroupHeadline",
                     "RunRef", "TaskUniverse", "bootstrap", "combine_run_means", "headlines", "task_universe"),
                    "aggregate"),
    "render_html": "html",
    **dict.fromkeys(("Leaderboard", "build_leaderboard", "leaderboard_from_runs"), "leaderboard"),
    "render_markdown": "markdown",
    **dict.fromkeys(("Report", "build_report", "human_references", "load_comparison", "load_published",
                     "published_comparison"), "summary"),
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'agenticvbench.report' has no attribute {name!r}")
    return getattr(importlib.import_module(f"agenticvbench.report.{_EXPORTS[name]}"), name)
