"""A display table (header + rows of strings) as a LaTeX booktabs float that compiles and fits the page.

- The column spec comes from the header, one letter per column (`column_spec`), so a new column can never leave the
  spec one short ("Extra alignment tab").
- A score cell "0.4500 [0.40, 0.50] †" prints its interval in a smaller second line under the mean and marks, so a
  score column is as wide as "0.4500 †" rather than the whole string.
- The tabular sits in `\\resizebox`, which shrinks it to the line width only when it is wider (never enlarges), in
  a `table*` float (full text width in a two-column paper, an ordinary float in a one-column one).

The preamble needs `\\usepackage{booktabs}` and `\\usepackage{graphicx}`.
"""

from __future__ import annotations

from collections.abc import Sequence

from agenticvbench.report.comparability import split_joined
from agenticvbench.sanitize import latex

#: Header names whose cells are text (left-aligned); every other column holds numbers (right-aligned).
TEXT_COLUMNS = frozenset({"harness", "model"})
PREAMBLE = "\\usepackage{booktabs}, \\usepackage{graphicx}"


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters, on one line (`sanitize.latex`, the one escaper)."""
    return latex(text)


def column_spec(headers: Sequence[str]) -> str:
    """One alignment letter per header: `l` for `TEXT_COLUMNS`, `r` for the rest."""
    return "".join("l" if h in TEXT_COLUMNS else "r" for h in headers)


def latex_cell(cell: str) -> str:
    """One escaped cell; a score with an interval becomes a braced one-column stack: mean and marks, then the
    interval in `\\scriptsize` (braced so its inner `\\\\` never ends the outer row)."""
    parts = split_joined(cell)
    if parts is None:
        return latex_escape(cell)
    value, ci, marks = parts
    top = latex_escape(value + marks)
    return (
        f"{{\\begin{{tabular}}[t]{{@{{}}r@{{}}}}{top}\\\\ \\scriptsize {latex_escape(ci)}\\end{{tabular}}}}"
    )


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
        " & ".join(latex_escape(h) for h in headers) + " \\\\",
        "\\midrule",
    ]
    lines += [" & ".join(latex_cell(c) for c in row) + " \\\\" for row in rows]
    lines += [
        "\\bottomrule",
        "\\end{tabular}}",
        f"\\caption{{{latex_escape(caption)}}}",
        f"\\label{{{label}}}",
        "\\end{table*}",
        f"% needs {PREAMBLE}",
    ]
    lines += [f"% {latex_escape(line)}" for line in comments]
    return "\n".join(lines) + "\n"
