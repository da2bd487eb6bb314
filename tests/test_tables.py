"""The LaTeX leaderboard: a column spec derived from the header, cells that match it, and a table that compiles and
fits the page (compiled with pdflatex from Debian's texlive-latex-base and texlive-latex-recommended)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from agenticvbench.report.leaderboard import leaderboard_from_runs
from agenticvbench.sanitize import latex
from agenticvbench.tables import column_spec, latex_cell, latex_table

PDFLATEX = shutil.which("pdflatex")
NEEDS_PDFLATEX = pytest.mark.skipif(
    PDFLATEX is None,
    reason="needs pdflatex (apt-get install texlive-latex-base texlive-latex-recommended; .ci/run installs them)",
)


def _top_level_cells(row: str) -> list[str]:
    """Split one tabular row on `&` at brace depth 0, ignoring the escaped `\\&`."""
    cells, depth, cur, i = [], 0, "", 0
    while i < len(row):
        ch = row[i]
        if ch == "\\" and i + 1 < len(row):
            cur += row[i : i + 2]
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "&" and depth == 0:
            cells.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    return [*cells, cur]


def _spec_and_rows(tex: str) -> tuple[str, list[list[str]]]:
    spec = re.search(r"\\begin\{tabular\}\{([a-z]+)\}", tex)
    assert spec, tex
    body = tex[tex.index("\\midrule") + len("\\midrule") : tex.index("\\bottomrule")]
    head = tex[tex.index("\\toprule") + len("\\toprule") : tex.index("\\midrule")]
    rows = [ln.removesuffix(" \\\\") for ln in (head + body).splitlines() if ln.strip()]
    return spec.group(1), [_top_level_cells(r) for r in rows]


@pytest.fixture
def wide_board(make_run):
    """Four families, an error, a judge-off recap cell and a name with LaTeX specials: every column filled."""
    cells = {
        1: ("recap", 0.5),
        37: ("sequencing", 0.25),
        65: ("repair", 0.75),
        83: ("assembly", 0.0, "error"),
    }
    runs = [
        make_run("a", cells, harness="claude_code", model="m&b~1"),
        make_run("b", cells, model="x", rep=2),
    ]
    return leaderboard_from_runs(runs, resamples=50)


def test_every_row_has_as_many_cells_as_the_spec_has_columns(wide_board):
    """Regression: the spec was built as "rllll" + "r" * (families + 4) and stayed 13 columns when the 14th
    (invalid) column was added, so pdflatex stopped with "Extra alignment tab" on every row."""
    spec, rows = _spec_and_rows(wide_board.to_latex())
    headers, _ = wide_board.display_rows()
    assert spec == column_spec(headers) and len(spec) == len(headers) and "invalid" in headers
    assert len(rows) == 3
    for cells in rows:
        assert len(cells) == len(spec), cells
    assert spec[1:3] == "ll" and set(spec[3:]) == {"r"}  # names left, numbers right


def test_a_row_that_does_not_match_the_header_is_refused():
    """latex_table never writes a table whose rows disagree with its spec."""
    with pytest.raises(ValueError, match="row 1 has 2 cells, the header 3"):
        latex_table(["#", "model", "macro"], [["1", "m"]], caption="c", label="l")


def test_score_cells_stack_the_interval_under_the_mean():
    """The interval goes on a smaller second line, so a score column is only as wide as its mean and marks."""
    assert latex_cell("0.4500 [0.40, 0.50] †!") == (
        "{\\begin{tabular}[t]{@{}r@{}}0.4500 †!\\\\ \\scriptsize [0.40, 0.50]\\end{tabular}}"
    )
    assert latex_cell("a_b") == "a\\_b" and latex("50%") == "50\\%"


def _compile(tmp_path, table: str) -> str:
    """`\\input` the table into a minimal article (booktabs and graphicx, as the table's comment says) and run
    pdflatex; assert it exits 0 and return its log."""
    (tmp_path / "lb.tex").write_text(table, encoding="utf-8")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
        "\\begin{document}\n\\input{lb.tex}\n\\end{document}\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 0, log[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000
    return log


@NEEDS_PDFLATEX
def test_the_table_compiles_and_fits_the_page(wide_board, tmp_path):
    """The review's check: pdflatex must exit 0 with no alignment error and no overfull box (the table was 459 pt
    wider than the text)."""
    log = _compile(tmp_path, wide_board.to_latex())
    assert "Extra alignment tab" not in log and "Overfull \\hbox" not in log, log[-3000:]


@NEEDS_PDFLATEX
def test_every_mark_and_any_name_compile(tmp_path):
    """A leaderboard of a model-judged run carries the mark ◊ (judge not calibrated), which pdflatex's default
    set-up cannot print: the table stopped with "Unicode character ◊ (U+25CA) not set up". Every mark the tables
    print, and a name with an emoji, CJK, guillemets or a Polish letter, must compile."""
    row = ["1", "模型😀 Łódź «x» þ", "0.5000 [0.10, 0.90] †‡§◊!"]
    _compile(tmp_path, latex_table(["#", "model", "recap"], [row], caption="marks", label="tab:marks"))
    assert latex("◊ 😀 Łódź") == "$\\diamond$ [U+1F600] Łódź"
