"""Arguments in range for `avb compare` and `avb power`: out-of-range numbers and a run given twice are a
one-line usage error (exit 2), and an agent-chosen harness name cannot put raw HTML into a Markdown caption."""

from __future__ import annotations

import shutil

import pytest

from agenticvbench.cli.main import main

CELLS = {1: ("recap", 0.2), 2: ("recap", 0.6), 37: ("sequencing", 0.4), 38: ("sequencing", 0.9)}
OTHER = {1: ("recap", 0.5), 2: ("recap", 0.1), 37: ("sequencing", 0.3), 38: ("sequencing", 0.2)}


def _one_line_exit_2(argv: list[str], capsys, needle: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err, err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--sd", "nan"], "--sd nan"),
        (["--sd", "inf"], "--sd inf"),
        (["--sd", "-3"], "--sd -3"),
        (["--sd", "500"], "--sd 500"),
        (["--sd", "30", "--delta", "nan"], "--delta nan"),
        (["--sd", "30", "--delta", "0"], "--delta 0"),
        (["--sd", "30", "--delta", "5", "1000"], "--delta 1000"),
        (["--sd", "30", "--power", "nan"], "--power nan"),
        (["--sd", "30", "--power", "1.5"], "--power 1.5"),
        (["--sd", "30", "--power", "1"], "--power 1"),
        (["--sd", "30", "--tasks", "1"], "--tasks 1"),
        (["--sd", "30", "--reps", "0"], "--reps"),
    ],
)
def test_power_refuses_numbers_out_of_range(argv, needle, capsys):
    """`avb power --sd nan` used to exit 0 with meaningless numbers (nan passed every `<= 0` check); every
    numeric option outside its sane range is now one line and exit 2."""
    _one_line_exit_2(["power", *argv], capsys, needle)


def test_power_in_range_still_works(capsys):
    """The boundary values that make sense are accepted: --sd 100, --delta 100, --power 0.99."""
    assert main(["power", "--sd", "100", "--delta", "100", "--power", "0.99"]) == 0


def test_compare_and_power_refuse_the_same_folder_twice(make_run, capsys):
    """The same run folder given as A and B (or twice to power) would be averaged or paired with itself."""
    a = make_run("a", CELLS)
    _one_line_exit_2(["compare", str(a), str(a)], capsys, "given twice")
    b = make_run("b", OTHER, harness="h2")
    _one_line_exit_2(
        ["compare", "h/m", "h2/m", "--runs", str(a), str(b), str(a) + "/"], capsys, "given twice"
    )
    _one_line_exit_2(["power", str(a), str(b), str(a)], capsys, "given twice")


def test_compare_and_power_refuse_a_copied_run(make_run, tmp_path, capsys):
    """A copy of a run folder is a second folder claiming the same harness, model and rep: refused by name."""
    a = make_run("a", CELLS)
    b = make_run("b", OTHER, harness="h2")
    copy = tmp_path / "a-copy"
    shutil.copytree(a, copy)
    _one_line_exit_2(
        ["compare", "h/m", "h2/m", "--runs", str(a), str(copy), str(b)], capsys, "the same run as"
    )
    _one_line_exit_2(
        ["power", str(a), str(copy), str(b), "--a", "h/m", "--b", "h2/m"], capsys, "the same run as"
    )


def test_a_harness_name_cannot_inject_html_into_the_markdown_caption(make_run, capsys):
    """A harness named `<img src=x onerror=alert(1)>` reached the Markdown caption raw; it is now escaped as
    every other agent string in Markdown is (`sanitize.md_cell`)."""
    evil = "<img src=x onerror=alert(1)>"
    a = make_run("a", CELLS, harness=evil)
    b = make_run("b", OTHER, harness="h2")
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "<img" not in out and "&lt;img src=x onerror=alert(1)>" in out
