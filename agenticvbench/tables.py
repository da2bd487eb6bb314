"""Display tables as text: Markdown (`md_table`), HTML (`html_table`, `img_tag`) and a LaTeX booktabs float
(`latex_table`), plus the score-cell helpers they share (`joined`, `split_joined`).

They sit below every layer, so whatever computes a table (the leaderboard, the comparison, the cost table, the
baselines) can hand it to one renderer without importing the report.

LaTeX: the column spec comes from the header, one letter per column (`column_spec`), so a new column can never
leave the spec one short; a score cell "0.4500 [0.40, 0.50] †" prints its interval in a smaller second line; the
tabular sits in `\\resizebox` (shrinks only when wider than the line) in a `table*` float. The preamble needs
`\\usepackage{booktabs}` and `\\usepackage{graphicx}`.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from html import escape
from typing import Any

from agenticvbench.sanitize import latex, md_cell


def md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> str:
    """A GitHub-flavoured Markdown table; `align` is one char per column: 'l' or 'r' (default: left)."""
    align = align.ljust(len(headers), "l")
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(md_cell(h) for h in headers) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
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


def joined(*parts: str) -> str:
    """Non-empty parts joined by one space ('0.4500 [0.40, 0.50] †', '0.4500 †')."""
    return " ".join(p for p in parts if p)


_SCORE_CI = re.compile(r"^(?P<value>\S+) (?P<ci>\[[^\]]*\])(?P<marks>.*)$")


def split_joined(cell: str) -> tuple[str, str, str] | None:
    """The inverse of `joined` for a score with an interval: ('0.4500', '[0.40, 0.50]', ' †'); None for any other
    cell (so renderers can typeset the interval smaller)."""
    m = _SCORE_CI.match(cell)
    return (m["value"], m["ci"], m["marks"]) if m else None


#: Header names whose cells are text (left-aligned); every other column holds numbers (right-aligned).
TEXT_COLUMNS = frozenset({"harness", "model"})
PREAMBLE = "\\usepackage{booktabs}, \\usepackage{graphicx}"


def column_spec(headers: Sequence[str]) -> str:
    """One alignment letter per header: `l` for `TEXT_COLUMNS`, `r` for the rest."""
    return "".join("l" if h in TEXT_COLUMNS else "r" for h in headers)


def latex_cell(cell: str) -> str:
    """One escaped cell; a score with an interval becomes a braced one-column stack: mean and marks, then the
    interval in `\\scriptsize` (braced so its inner `\\\\` never ends the outer row)."""
    parts = split_joined(cell)
    if parts is None:
        return latex(cell)
    value, ci, marks = parts
    top = latex(value + marks)
    return f"{{\\begin{{tabular}}[t]{{@{{}}r@{{}}}}{top}\\\\ \\scriptsize {latex(ci)}\\end{{tabular}}}}"


def latex_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    caption: str,
    label: str,
    comments: Sequence[str] = (),
) -> str:
    """The whole float: booktabs rules, a spec derived from `headers`, shrunk to fit, then `comments` as `%` lines.
    Raises ValueError when a row has a different number of cells than the header."""
    for i, row in enumerate(rows, 1):
        if len(row) != len(headers):
            raise ValueError(f"row {i} has {len(row)} cells, the header {len(headers)}")
    lines = [
        "\\begin{table*}[t]",
        "\\centering",
        "\\small",
        "\\setlength{\\tabcolsep}{4pt}",
        "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%",
        f"\\begin{{tabular}}{{{column_spec(headers)}}}",
        "\\toprule",
        " & ".join(latex(h) for h in headers) + " \\\\",
        "\\midrule",
    ]
    lines += [" & ".join(latex_cell(c) for c in row) + " \\\\" for row in rows]
    lines += [
        "\\bottomrule",
        "\\end{tabular}}",
        f"\\caption{{{latex(caption)}}}",
        f"\\label{{{label}}}",
        "\\end{table*}",
        f"% needs {PREAMBLE}",
    ]
    lines += [f"% {latex(line)}" for line in comments]
    return "\n".join(lines) + "\n"


def fmt(x: float | None, decimals: int = 4) -> str:
    """A score with fixed decimals ('-' for None)."""
    return "-" if x is None else f"{x:.{decimals}f}"


def fmt_ci(lo: float | None, hi: float | None, decimals: int = 2) -> str:
    """A confidence interval as '[lo, hi]' ('' when not computed)."""
    return "" if lo is None or hi is None else f"[{lo:.{decimals}f}, {hi:.{decimals}f}]"
