"""The report's sections, in order: the one list every document renderer walks.

Markdown (`report.markdown`) and HTML (`report.html`) each give one function per section key (what the section
looks like in that format; an empty list when the section has nothing to say for this report, by the same rule in
both). `walk` renders `SECTION_ORDER` through such a table and refuses a table that lacks a key, so a renderer
cannot silently drop a section another one shows (the HTML report once had no per-run signatures and no Harbor
section).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agenticvbench.report.summary import Report

#: Every section of a report, in the order documents show them.
SECTION_ORDER: tuple[str, ...] = (
    "summary",  # title, package version, the error banner
    "headline",  # the board, how it was aggregated, costs, published numbers
    "status",  # status counts per family
    "signatures",  # per-run signature counts, when some result is not signed with the key
    "problems",  # tasks that scored 0 for a non-scoring reason
    "harbor",  # trial outcomes, trajectories and Harbor's reward beside ours (imported runs only)
    "per_task",  # every run x task
    "explain",  # why tasks lost points
    "agreement",  # model judge vs human graders
    "warnings",
    "notes",
    "ignored",  # results outside the task universe
    "provenance",
)

SectionRenderer = Callable[["Report"], list[str]]


def walk(report: Report, renderers: Mapping[str, SectionRenderer]) -> list[str]:
    """The lines (or HTML parts) of every section of `SECTION_ORDER`, rendered by `renderers` in order; a
    renderer table missing a section, or naming one that is not in the order, is a programming error."""
    missing = [k for k in SECTION_ORDER if k not in renderers]
    extra = [k for k in renderers if k not in SECTION_ORDER]
    if missing or extra:
        raise KeyError(
            f"section renderers out of step with SECTION_ORDER: missing {missing}, unknown {extra}"
        )
    return [line for key in SECTION_ORDER for line in renderers[key](report)]


def signatures_shown(report: Report) -> bool:
    """The per-run signatures section appears when some run has a result not signed with the reader's key."""
    per_run = report.signatures.get("per_run") or {}
    return any(c.get("valid", 0) != c.get("results", 0) for c in per_run.values())
