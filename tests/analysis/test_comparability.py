"""Honest comparisons: coverage and not-comparable marks in every leaderboard/report format, runs without results
named instead of fatal, run identity fallbacks and duplicate warnings, the per-task "why" section."""

from __future__ import annotations

import csv
import io
import json

import pytest

from agenticvbench.analysis.aggregate import run_ref
from agenticvbench.cli.main import main
from agenticvbench.errors import SubmissionError
from agenticvbench.report import build_report, load_comparison, render_html, render_markdown
from agenticvbench.report.leaderboard import build_leaderboard, leaderboard_from_runs
from agenticvbench.results.model import Result, write_result
from agenticvbench.runs.submission import RESULTS_DIRNAME


def _unscored(r: Result, n: int = 2) -> Result:
    r.components = {"unscored": n, "n_items": 5}
    r.detail = {
        "items": [
            {
                "item_id": f"llm{i}",
                "weight": 1.0,
                "outcome": "unscored",
                "dispatch": "llm",
                "reason": "judge off: no llm verdict requested",
                "judge": {"attempts": 1, "prompt_tokens": 100, "completion_tokens": 5, "cost_usd": 0.001},
            }
            for i in range(n)
        ]
    }
    return r


@pytest.fixture
def judged_and_not(tmp_path, mk):
    """Run `on` (judge on, everything scored) and run `off` (two recap llm items unscored), 2 recap tasks each;
    `off` misses task 2 entirely."""
    runs = {}
    for name, unscored in (("on", False), ("off", True)):
        run = tmp_path / name
        tids = (1, 2) if name == "on" else (1,)
        for tid in tids:
            r = mk(tid, "recap", 0.9, model=name, path=str(run))
            write_result(run / RESULTS_DIRNAME, _unscored(r) if unscored else r)
        runs[name] = run
    return runs


def test_every_leaderboard_format_shows_coverage_and_the_mark(judged_and_not) -> None:
    """md, csv, latex, html and json all carry the coverage and the dagger on the judge-off recap cell."""
    board = leaderboard_from_runs(list(judged_and_not.values()), resamples=0)
    md = board.to_markdown()
    assert "| off | 1 | 1/2 | 0.4500 † |" in md and "| on | 1 | 2/2 | 0.9000 |" in md
    assert "† = recap llm items unscored" in md and "Not comparable: h/off: recap: 1 recap result(s)" in md
    rows = {r["model"]: r for r in csv.DictReader(io.StringIO(board.to_csv()))}
    assert rows["off"]["recap_marks"] == "†" and rows["on"]["recap_marks"] == ""
    assert (rows["off"]["with_result"], rows["off"]["counted"]) == ("1", "2")
    assert "0.4500 †" in board.to_latex() and "0.4500 †" in board.to_html()
    doc = json.loads(board.to_json())
    off = next(r for r in doc["rows"] if r["model"] == "off")
    assert off["marks"]["recap"] == ["unscored"] and off["coverage"] == {"with_result": 1, "counted": 2}
    assert off["judge_total"]["prompt_tokens"] == 200 and off["judge_total"]["cost_usd"] == pytest.approx(
        0.002
    )


def test_report_marks_the_cell_beside_the_human_reference(judged_and_not) -> None:
    """The report's table and notes mark the judge-off recap cell and say it is not comparable with the paper."""
    report = build_report(load_comparison(list(judged_and_not.values())), resamples=0)
    md = render_markdown(report)
    assert "0.4500 †" in md and "a marked cell is not comparable with it" in md
    assert "- judge usage per run (recap): h/off rep 1: 2 calls, 200+10 tok, $0.0020" in md
    assert "issue" not in md.lower()
    html = render_html(report)
    assert "0.4500 †" in html and "Why tasks lost points" in html


def test_mixed_verifier_versions_and_integrity_flags_are_marked(tmp_path, mk) -> None:
    """Two verifier versions in one family cell give the double dagger; integrity flags give '!'."""
    a = mk(37, "sequencing", 0.5, path=str(tmp_path / "r1"))
    b = mk(38, "sequencing", 0.5, path=str(tmp_path / "r1"))
    b.provenance = {**b.provenance, "verifier_version": "sequencing-2"}
    c = mk(83, "assembly", 0.5, path=str(tmp_path / "r1"))
    c.integrity = ["identical_to_input"]  # the field security adds; read with a fallback until then
    board = build_leaderboard([a, b, c], resamples=0)
    g = board.groups[0]
    assert g.marks["sequencing"] == ["mixed"] and g.marks["assembly"] == ["integrity"]
    assert set(g.marks["macro"]) == {"mixed", "integrity"}
    md = board.to_markdown()
    assert "0.5000 ‡" in md and "0.5000 !" in md and "integrity flags (identical_to_input)" in md


def test_leaderboard_on_verified_and_unverified_runs_names_the_others(make_run, tmp_path, capsys) -> None:
    """Regression: one unverified run made `avb leaderboard runs/*` fail entirely."""
    done = make_run("done", {37: ("sequencing", 0.5)})
    pending = tmp_path / "pending"
    (pending / "37").mkdir(parents=True)
    assert main(["leaderboard", str(done), str(pending), "--resamples", "0"]) == 0
    out = capsys.readouterr()
    assert "| 1 | h | m | 1 | 1/1 | 0.5000 |" in out.out
    assert f"Not shown (no results): {pending}" in out.out and "avb verify" in out.err
    assert main(["leaderboard", str(done), "--format", "json", "--resamples", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["model"] == "m"
    with pytest.raises(SubmissionError):
        leaderboard_from_runs([pending])


def test_runs_without_run_json_do_not_merge_and_twins_are_warned(tmp_path, mk) -> None:
    """Folder name as model for results that say 'unknown'; equal (harness, model, rep) stays two runs + a note."""
    unknown = [
        mk(37, "sequencing", s, harness="", model="", rep=None, path=str(tmp_path / name))
        for s, name in ((0.2, "alpha"), (0.8, "beta"))
    ]
    assert sorted(run_ref(r).model for r in unknown) == ["alpha", "beta"]
    assert len(build_leaderboard(unknown, resamples=0).groups) == 2
    twins = [mk(37, "sequencing", 0.5, path=str(tmp_path / n)) for n in ("x", "y")]
    report = build_report(twins, resamples=0)
    assert len(report.runs) == 2 and any(
        "2 different run folders claim harness 'h'" in n for n in report.notes
    )
    assert "2 different run folders" in build_leaderboard(twins, resamples=0).to_markdown()


def test_report_explains_lost_points_and_attributes_warnings(tmp_path, mk) -> None:
    """report.md's per-task section names the run and task; the warnings list says where each warning came from."""
    seq = mk(
        37,
        "sequencing",
        0.2,
        path=str(tmp_path / "r"),
        warnings=["D-S2: ids formatted differently"],
        detail={"pred": ["2", "1", "3"], "correct": ["1", "2", "3"]},
    )
    perfect = mk(38, "sequencing", 1.0, path=str(tmp_path / "r"))
    md = render_markdown(build_report([seq, perfect], resamples=0))
    assert "### Task 37 (sequencing), h/m rep 1 (r): adjusted_final_score 0.2000" in md
    assert "- lost: misplaced: 2 at 1 (belongs at 2), 1 at 2 (belongs at 1)" in md
    assert "### Task 38" not in md
    assert "(1x) D-S2: ids formatted differently [h/m rep 1 (r) task 37]" in md


def test_report_and_leaderboard_take_the_selection_grammar(make_run, capsys) -> None:
    """--family/--tasks/--limit narrow the task universe the same way on report and leaderboard."""
    run = make_run("r", {37: ("sequencing", 1.0), 38: ("sequencing", 0.0), 83: ("assembly", 0.5)})
    assert main(["leaderboard", str(run), "--tasks", "37-40", "--resamples", "0", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["families"] == ["sequencing"] and doc["rows"][0]["coverage"]["counted"] == 2
    assert (
        main(
            [
                "report",
                str(run),
                "--family",
                "sequencing",
                "--limit",
                "1",
                "--resamples",
                "0",
                "--format",
                "json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["universe"]["tasks"] == {"sequencing": [37]}
