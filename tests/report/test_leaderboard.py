"""Leaderboard: grouping by (harness, model), ranking, formats, CLI."""

from __future__ import annotations

import csv
import io

import pytest

from agenticvbench.cli.main import main
from agenticvbench.report.leaderboard import build_leaderboard, leaderboard_from_runs
from agenticvbench.report.summary import load_comparison, published_comparison
from agenticvbench.sanitize import latex


@pytest.fixture
def board_runs(make_run):
    """Two reps of model A (good), one rep of model B (worse, with a task absent), different harnesses."""
    a1 = make_run(
        "a1",
        {1: ("recap", 1.0), 37: ("sequencing", 0.5), 83: ("assembly", 0.25)},
        harness="codex_cli",
        model="gpt_5",
        rep=1,
    )
    a2 = make_run(
        "a2",
        {1: ("recap", 0.5), 37: ("sequencing", 0.5), 83: ("assembly", 0.75)},
        harness="codex_cli",
        model="gpt_5",
        rep=2,
    )
    b1 = make_run(
        "b1", {1: ("recap", 0.2), 83: ("assembly", 0.0, "error")}, harness="claude-code", model="m&b", rep=1
    )
    return [a1, a2, b1]


def test_groups_rank_and_numbers(board_runs) -> None:
    """Per family mean over runs x tasks; B's absent sequencing task counts 0; best macro first."""
    board = leaderboard_from_runs(board_runs, resamples=200, seed=5)
    df = board.frame()
    assert list(df["model"]) == ["gpt_5", "m&b"] and list(df["rank"]) == [1, 2]
    a = df.iloc[0]
    assert a["runs"] == 2
    assert a["recap"] == pytest.approx(0.75) and a["sequencing"] == pytest.approx(0.5)
    assert a["assembly"] == pytest.approx(0.5)
    assert a["macro"] == pytest.approx((0.75 + 0.5 + 0.5) / 3) and a["micro"] == pytest.approx(1.75 / 3)
    assert a["recap_lo"] <= a["recap"] <= a["recap_hi"]
    b = df.iloc[1]
    assert (b["sequencing"], b["assembly"], b["error"], b["no_result"]) == (0.0, 0.0, 1, 1)
    again = leaderboard_from_runs(board_runs, resamples=200, seed=5).frame()
    assert again.equals(df), "same seed must give the same table"


def test_formats(board_runs) -> None:
    """Markdown, CSV, LaTeX and HTML all carry the numbers; the caption states the rules."""
    board = leaderboard_from_runs(board_runs, resamples=50)
    md = board.to_markdown()
    assert (
        "| 1 | codex_cli | gpt_5 | 2 | 6/6 | 0.7500 [" in md
        and "macro = unweighted mean of the 3 family means" in md
    )
    rows = list(csv.DictReader(io.StringIO(board.to_csv())))
    assert rows[0]["harness"] == "codex_cli" and float(rows[0]["recap"]) == pytest.approx(0.75)
    tex = board.to_latex()
    assert "\\toprule" in tex and "m\\&b" in tex and "gpt\\_5" in tex and "95\\% percentile bootstrap" in tex
    assert tex.count(" \\\\\n") == 3  # header + 2 rows (a score's interval is a nested line, not a row)
    html = board.to_html()
    assert "<td class='l'>m&amp;b</td>" in html and "class='caption'" in html
    with pytest.raises(ValueError, match="unknown format"):
        board.render("xlsx")
    assert latex("a_b%c{d}~") == "a\\_b\\%c\\{d\\}\\textasciitilde{}"


def test_published_comparison_matches_by_group(make_run) -> None:
    """A run of codex_cli + gpt-5.5 on assembly is compared with the published 0.3810; others get 'ours' None."""
    run = make_run("c", {83: ("assembly", 0.5), 84: ("assembly", 0.25)}, harness="codex_cli", model="gpt-5.5")
    board = build_leaderboard(load_comparison([run]), resamples=0)
    row = published_comparison(board.groups)[0]
    assert (row["published"], row["ours"]) == (0.381, pytest.approx(0.375))
    assert row["difference"] == pytest.approx(0.375 - 0.381) and "SCORE_ADJUSTMENTS.md" in row["source"]
    assert published_comparison([])[0]["ours"] is None


def test_cli_leaderboard(board_runs, tmp_path, capsys) -> None:
    """`avb leaderboard`: md to stdout, --out writes the file, exit 1 because one result is an error."""
    assert main(["leaderboard", *map(str, board_runs), "--resamples", "30"]) == 1
    out = capsys.readouterr()
    assert "| 1 | codex_cli | gpt_5 |" in out.out and "ERROR" in out.err
    target = tmp_path / "lb.tex"
    assert (
        main(
            [
                "leaderboard",
                *map(str, board_runs[:2]),
                "--format",
                "latex",
                "--out",
                str(target),
                "--seed",
                "3",
            ]
        )
        == 0
    )
    assert target.read_text().startswith("\\begin{table*}")
    assert main(["leaderboard", str(board_runs[0]), "--resamples", "-1"]) == 2


def test_empty_counts_show_zero_and_csv_has_micro_marks(board_runs) -> None:
    """Regression: the judge, errors and invalid cells were blank instead of 0, and the CSV had macro_marks but no
    micro_marks; the HTML page right-aligned names and wrapped intervals."""
    board = leaderboard_from_runs(board_runs, resamples=20)
    headers, rows = board.display_rows()
    first = dict(zip(headers, rows[0], strict=True))
    assert (first["judge"], first["errors"], first["invalid"]) == ("0", "0", "0")
    assert dict(zip(headers, rows[1], strict=True))["errors"] == "1"
    frame = board.frame()
    assert list(frame["micro_marks"]) == list(frame["macro_marks"])
    html = board.to_html()
    assert (
        "<td class='l'>codex_cli</td>" in html
        and "<span class='ci'>[" in html
        and "white-space:nowrap" in html
    )


def test_range_mark_only_when_the_printed_interval_runs_past() -> None:
    """A near-perfect family stretched by the few-cluster correction ends at 1.0000003: it prints as [1.00, 1.00]
    and must not carry §, which would say the interval runs past [0, 1] where the reader sees it does not."""
    from agenticvbench.report.leaderboard import _out_of_range

    assert not _out_of_range(0.9999, 1.0000003)
    assert not _out_of_range(-0.004, 0.5)
    assert _out_of_range(-0.32, 0.92) and _out_of_range(0.2, 1.01)
