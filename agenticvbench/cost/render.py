"""One renderer for the cost tables (`avb cost` and `avb cost --paper`) in md, csv, json and latex.

Every cell an agent or harness could have chosen (harness and model names, notes) goes through `sanitize`: the
Markdown and LaTeX tables through the shared renderers of `agenticvbench.tables`, CSV cells through
`sanitize.csv_cell` (a leading `=`, `+`, `-`, `@` is defused, so a spreadsheet never runs a formula), and JSON is
strict (`allow_nan=False`: a NaN or an infinity is a bug to surface, never a token to print).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from agenticvbench.sanitize import csv_cell, one_line
from agenticvbench.tables import latex_table, md_table

FORMATS = ("md", "csv", "json", "latex")


def md_text(value: Any) -> str:
    """A caption or note line in Markdown: one line, raw HTML neutralised (a price-table version or a path
    could carry `<img onerror=...>`)."""
    return one_line(value).replace("<", "&lt;")


def _md_notes(notes: Sequence[str]) -> str:
    return "".join(f"\n- {md_text(n)}" for n in notes) + ("\n" if notes else "")


def strict_json(doc: Any) -> str:
    """`doc` as indented JSON; `ValueError` on NaN or infinity (never written)."""
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def csv_text(records: Sequence[Mapping[str, Any]]) -> str:
    """CSV with a header from the first record's keys; every string cell through `sanitize.csv_cell`."""
    if not records:
        return ""
    out = io.StringIO()
    fields = list(records[0])
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([csv_cell(f) for f in fields])
    for rec in records:
        writer.writerow(["" if rec.get(f) is None else csv_cell(rec.get(f)) for f in fields])
    return out.getvalue()


def render(
    fmt_name: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    caption: str,
    notes: Sequence[str],
    doc: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    label: str,
    align: str = "",
) -> str:
    """The table in `fmt_name`: md (table, caption, notes), json (`doc`), csv (`records`) or latex (a float
    labelled `label`, notes as comments). `ValueError` for an unknown format."""
    if fmt_name == "md":
        return md_table(headers, rows, align) + f"\n\n{md_text(caption)}\n" + _md_notes(notes)
    if fmt_name == "json":
        return strict_json(dict(doc))
    if fmt_name == "csv":
        return csv_text(records)
    if fmt_name == "latex":
        return latex_table(headers, rows, caption=caption, label=label, comments=notes)
    raise ValueError(f"unknown format {fmt_name!r}; expected one of {', '.join(FORMATS)}")


def render_empty(fmt_name: str, reason: str, prices: Any, notes: Sequence[str]) -> str:
    """A table with no usage: the reason in place of the rows (md/latex a sentence, json `rows: []` and
    `empty_reason`, csv nothing: the reason goes to stderr through the notes)."""
    if fmt_name == "md":
        return f"No cost table: {md_text(reason)}.\n" + _md_notes(notes)
    if fmt_name == "json":
        return strict_json(
            {"rows": [], "empty_reason": reason, "prices": {"version": prices.version}, "notes": list(notes)}
        )
    if fmt_name == "csv":
        return ""
    if fmt_name == "latex":
        return f"% No cost table: {one_line(reason)}.\n"
    raise ValueError(f"unknown format {fmt_name!r}; expected one of {', '.join(FORMATS)}")
