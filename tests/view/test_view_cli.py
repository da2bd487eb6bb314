"""`avb view` on the command line: usage errors in one line (exit 2), a missing run (exit 3), and
`--compare A B --bundle` writing the comparison table and one compare page per task."""

from __future__ import annotations

from pathlib import Path

from agenticvbench.cli.main import main


def test_usage_errors(runs, tmp_path: Path, capsys) -> None:
    """No run at all, a RUN_DIR beside --compare, or --compare with one run: exit 2 and one line naming what is wrong; a run folder
    that does not exist: exit 3."""
    assert main(["view"]) == 2
    assert "name at least one run directory" in capsys.readouterr().err
    assert (
        main(["view", str(runs[0]), "--compare", str(runs[0]), str(runs[1]), "--bundle", str(tmp_path / "x")])
        == 2
    )
    assert "takes the runs to compare (no other RUN_DIR)" in capsys.readouterr().err
    assert main(["view", "--compare", str(runs[0]), "--bundle", str(tmp_path / "x")]) == 2
    assert "at least two runs" in capsys.readouterr().err
    assert main(["view", "/nonexistent/run", "--bundle", str(tmp_path / "y")]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "/nonexistent/run" in err[0]


def test_compare_bundle(demo, runs, tmp_path: Path, capsys) -> None:
    """`--compare A B --bundle DIR`: the overview holds the avb compare table, every task has a compare page
    with the paired difference, and the pages still hold no correct order."""
    out = tmp_path / "cmp"
    args = [
        "view",
        "--compare",
        str(runs[0]),
        str(runs[1]),
        "--dataset",
        str(demo.mirror),
        "--bundle",
        str(out),
    ]
    assert main(args) == 0
    index = (out / "index.html").read_text()
    assert 'id="comparison"' in index and "macro" in index and index.count('class="compare-link"') == 9
    page = (out / "compare-37.html").read_text()
    assert "paired difference A - X" in page and page.count('class="side"') == 2
    assert "correct order" not in page and "gold window" not in (out / "compare-65.html").read_text()
