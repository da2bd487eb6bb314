"""The two table renderers the report modules share: Markdown (`md_table`) and HTML (`html_table`, `Markup`).

They live apart from `markdown.py` and `html.py` so that the sections those modules include (e.g. the per-task
explanations) can render tables without importing the modules that include them.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from html import escape
from typing import Any

from agenticvbench.sanitize import md_cell


def _cell(value: Any) -> str:
    return md_cell(value)


def md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> str:
    """A GitHub-flavoured Markdown table; `align` is one char per column: 'l' or 'r' (default: left)."""
    align = align.ljust(len(headers), "l")
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


class Markup(str):
    """A string that is already HTML (not escaped by `html_table`)."""


def html_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> str:
    """A plain HTML table; cells are escaped unless they are `Markup` (already-safe HTML)."""
    align = align.ljust(len(headers), "l")
    head = "".join(f"<th>{escape(str(h))}</th>" for h in headers)
    body = []
    for row in rows:
        tds = "".join(
            f'<td class="{a}">{c if isinstance(c, Markup) else escape(str(c))}</td>'
            for a, c in zip(align, row, strict=False)
        )
        body.append(f"<tr>{tds}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def img_tag(png: bytes | None, alt: str) -> str:
    """An <img> with the PNG embedded as a data URI ('' for None)."""
    if not png:
        return ""
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'
