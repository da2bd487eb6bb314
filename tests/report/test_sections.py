"""One list of sections, walked by every document renderer: the Markdown and the HTML report show the same
sections in the same order (the HTML report once had no per-run signatures section and no Harbor section)."""

from __future__ import annotations

import re

import pytest

from agenticvbench.report import build_report, load_comparison, render_html, render_markdown
from agenticvbench.report.sections import SECTION_ORDER, walk


def _headings_md(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^##? (.+)$", text, flags=re.M)]


def _headings_html(text: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", m.group(1)).strip() for m in re.finditer(r"<h[12]>(.*?)</h[12]>", text)]


def _norm(title: str) -> str:
    """The Markdown and HTML titles of one section differ only in wording after the first word."""
    return title.lower().split()[0]


def test_markdown_and_html_show_the_same_sections(make_run) -> None:
    """On runs whose results are unsigned (so the signatures section applies) with a warning, a problem and a
    note, both documents have the same top-level sections in the same order, signatures included."""
    a = make_run("a", {1: ("recap", 0.8), 37: ("sequencing", 0.5)}, warnings=["w"])
    b = make_run("b", {1: ("recap", 0.4), 37: ("sequencing", 0.0, "malformed")}, model="other")
    report = build_report(load_comparison([a, b], find_key=False), resamples=0)
    md = [_norm(h) for h in _headings_md(render_markdown(report))]
    html = [_norm(h) for h in _headings_html(render_html(report))]
    assert "result" in md and md == html


def test_a_renderer_missing_a_section_is_refused() -> None:
    """`walk` refuses a renderer table without every section, so no format can drop one silently."""
    renderers = {k: (lambda r: []) for k in SECTION_ORDER if k != "signatures"}
    with pytest.raises(KeyError, match="signatures"):
        walk(None, renderers)  # type: ignore[arg-type]
