"""Agent strings reach outputs sanitised: a lone surrogate, terminal escapes, newlines, raw HTML, a CSV formula
or LaTeX specials in run.json or a clip id never crash a command or reach a terminal or report raw."""

from __future__ import annotations

import json

import pytest

from agenticvbench.cli.main import main

HARNESS = "h\u001b[31mRED\nfake line"
MODEL = '=HYPERLINK("http://x")<script>x</script>'
CLIP = "\ud800\u001b[2J<b>x</b>"


@pytest.fixture
def hostile_strings(hostile_run):
    """A perfect run whose run.json and task 38's clip id carry every kind of hostile string."""
    run = hostile_run()
    run.run_json(json.dumps({"harness": HARNESS, "model": MODEL, "rep": "\ud800"}))
    sol = json.loads((run.folder(38) / "solution.json").read_text())
    sol["segments"][0]["source"] = CLIP
    run.write(38, "solution.json", json.dumps(sol))
    return run


def _clean(text: str) -> None:
    """No terminal escape, no lone surrogate (the text encodes as UTF-8)."""
    assert "\u001b" not in text and "\ud800" not in text
    text.encode("utf-8")


@pytest.mark.slow
def test_verify_explain_report_and_leaderboard_survive_hostile_strings(
    hostile_strings, demo, tmp_path, capsys
):
    """Regression: a lone surrogate in a clip id or run.json crashed verify, explain, report and leaderboard;
    escapes and newlines reached the terminal and report.md, raw HTML the Markdown, `=HYPERLINK` the CSV."""
    root = str(hostile_strings.root)
    assert main(["verify", root, "--dataset", str(demo.mirror), "--tasks", "37-39", "--jobs", "1", "-v"]) == 0
    out = capsys.readouterr()
    _clean(out.out + out.err)
    assert "fake line" not in "".join(
        line for line in out.out.splitlines() if not line.startswith(("[", " "))
    )
    assert main(["explain", root, "38"]) == 0
    out = capsys.readouterr()
    _clean(out.out + out.err)
    assert (
        main(["report", root, "--dataset", str(demo.mirror), "--format", "all", "--out", str(tmp_path / "r")])
        == 0
    )
    capsys.readouterr()
    for f in sorted((tmp_path / "r").iterdir()):
        text = f.read_text(encoding="utf-8")
        assert "\u001b" not in text and "\nfake line" not in text, f.name
        if f.suffix in (".md", ".html"):
            assert "<script>" not in text and "<b>x" not in text, f.name
    for fmt in ("md", "csv", "latex", "html", "json"):
        assert main(["leaderboard", root, "--format", fmt]) == 0, fmt
        out = capsys.readouterr().out
        _clean(out)
        if fmt == "csv":
            assert "'=HYPERLINK" in out and ",=HYPERLINK" not in out
        if fmt in ("md", "html"):
            assert "<script>" not in out
        if fmt == "latex":
            assert "\\textbackslash{}x1b[31mRED" in out and "\nfake line" not in out
        if fmt == "json":
            assert json.loads(out)


def test_one_hostile_run_does_not_block_the_others_in_a_report(
    hostile_strings, hostile_run, demo, tmp_path, capsys
):
    """A run with hostile strings reported beside an honest one: both appear, the command succeeds."""
    good = hostile_run("partial")
    for d in (hostile_strings.root, good.root):
        assert (
            main(["verify", str(d), "--dataset", str(demo.mirror), "--tasks", "37-39", "--jobs", "1", "-q"])
            == 0
        )
    capsys.readouterr()
    assert main(["leaderboard", str(hostile_strings.root), str(good.root)]) == 0
    out = capsys.readouterr().out
    _clean(out)
    assert "run-partial" in out or "partial" in out
