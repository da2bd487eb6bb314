"""The calibration gate (`agenticvbench.analysis.calibration`): recap cells judged by an uncalibrated model judge
carry the ◊ mark in every format, explained in the caption, and the JSON names the folder the records came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from calibration_fixtures import judged_recap, write_graded
from result_fixtures import make_result

from agenticvbench.analysis.calibration import CalibrationGate
from agenticvbench.analysis.comparability import MARKS
from agenticvbench.analysis.settings import Aggregation
from agenticvbench.grade.calibrate import calibration_record
from agenticvbench.judge.calibration import write_record
from agenticvbench.report.leaderboard import build_leaderboard
from agenticvbench.sanitize import latex

MARK = MARKS["uncalibrated"][0]


def _calibrate(cache: Path, counts: dict[str, int], model: str = "m1") -> None:
    write_graded(cache, counts, model=model)
    write_record(cache, calibration_record(cache, ["alice"], model))


def _board(results: list, cache: Path):  # type: ignore[no-untyped-def]
    agg = Aggregation.resolve(results, cluster=False, resamples=0, cache_dir=cache)
    return build_leaderboard(results, aggregation=agg)


def test_uncalibrated_judge_marks_the_recap_cell_in_every_format(tmp_path: Path) -> None:
    """With no record, a cache-judged recap cell is marked ◊ in Markdown, HTML, LaTeX, CSV and JSON, the caption
    explains "judge not calibrated", the footer names the judge and the modality, and the JSON records the folder
    read; the sequencing cell (no judge) is not marked."""
    results = [
        judged_recap(make_result(1, "recap", 0.5), {"I-1": "visual"}),
        make_result(37, "sequencing", 0.5),
    ]
    board = _board(results, tmp_path)
    g = board.groups[0]
    assert g.marks["recap"] == ["uncalibrated"] and "sequencing" not in g.marks
    assert "judge not calibrated" in board.caption and f"{MARK} = judge not calibrated" in board.caption
    for fmt in ("md", "html", "latex", "csv"):
        assert (latex(MARK) if fmt == "latex" else MARK) in board.render(fmt), fmt
    doc = json.loads(board.render("json"))
    assert doc["judge_calibration"]["source"] == str(tmp_path / "calibration")
    assert doc["rows"][0]["marks"]["recap"] == ["uncalibrated"]
    assert any("m1 (legacy) on visual: no calibration record" in n for n in g.mark_notes)


def test_a_passing_record_lifts_the_mark_only_for_its_modalities(tmp_path: Path) -> None:
    """A record that passes visual (150 items) clears a visual-only result; a result with an audio item judged by
    the same model stays marked (30 audio items are under the threshold), as does one whose audio items went to
    an audio model without any record."""
    _calibrate(tmp_path, {"visual": 150, "audio": 30})
    visual = judged_recap(make_result(1, "recap", 0.5), {"I-1": "visual"})
    assert _board([visual], tmp_path).groups[0].marks == {}
    both = judged_recap(make_result(1, "recap", 0.5), {"I-1": "visual", "I-2": "audio"})
    notes = _board([both], tmp_path).groups[0].mark_notes
    assert any("m1 (legacy) on audio: n=30 < 120" in n for n in notes)
    split = judged_recap(
        make_result(1, "recap", 0.5), {"I-1": "visual", "I-2": "audio"}, modality_models={"audio": "m-audio"}
    )
    gate = CalibrationGate.read(tmp_path)
    assert gate.missing(split) == ["m-audio (legacy) on audio: no calibration record"]


def test_the_reason_reads_the_same_in_markdown_csv_and_latex(tmp_path: Path) -> None:
    """The Markdown board's "Not comparable" note printed `n=4 &lt; 120` where CSV and LaTeX print `n=4 < 120`:
    the note is plain text until a renderer escapes it, and Markdown only neutralises a `<` that opens markup."""
    _calibrate(tmp_path, {"visual": 4})
    board = _board([judged_recap(make_result(1, "recap", 0.5), {"I-1": "visual"})], tmp_path)
    why = "m1 (legacy) on visual: n=4 < 120 human-graded items"
    for fmt in ("md", "csv", "latex"):
        assert why in board.render(fmt) and "&lt;" not in board.render(fmt), fmt
    assert "n=4 &lt; 120" in board.render("html")  # HTML escapes it, once


def test_people_and_no_judge_are_never_marked(tmp_path: Path) -> None:
    """Mode human (the graders themselves) and mode off are not a model judge: no ◊; a record of another
    profile does not calibrate a result judged under this one."""
    human = judged_recap(make_result(1, "recap", 0.5), {"I-1": "visual"}, mode="human")
    off = judged_recap(make_result(2, "recap", 0.5), {"I-1": "visual"}, mode="off")
    gate = CalibrationGate.read(tmp_path)
    assert gate.missing(human) == [] and gate.missing(off) == []
    _calibrate(tmp_path, {"visual": 150})
    violation = judged_recap(make_result(1, "recap", 0.5), {"I-1": "visual"}, profile="violation")
    assert CalibrationGate.read(tmp_path).missing(violation) == [
        "m1 (violation) on visual: no calibration record"
    ]


def test_every_surface_reads_the_one_gate(tmp_path: Path) -> None:
    """The gate is read once, into the aggregation: a board given the aggregation marks by it even when the
    records change on disk afterwards (no surface rereads them)."""
    results = [judged_recap(make_result(1, "recap", 0.5), {"I-1": "visual"})]
    agg = Aggregation.resolve(results, cluster=False, resamples=0, cache_dir=tmp_path)
    _calibrate(tmp_path, {"visual": 150})
    assert build_leaderboard(results, aggregation=agg).groups[0].marks["recap"] == ["uncalibrated"]
    fresh = Aggregation.resolve(results, cluster=False, resamples=0, cache_dir=tmp_path)
    assert build_leaderboard(results, aggregation=fresh).groups[0].marks == {}


def test_a_passing_record_removes_the_mark_from_every_surface(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The route docs/grading.md gives ends with the ◊ gone: the same scored run shows ◊ on every surface without
    a record (leaderboard md/html/latex/csv/json, report md/html/json, `avb view`'s overview), and on none once a
    record passing its modality (150 visual items) is in the cache the commands read."""
    from agenticvbench.cli.main import main
    from agenticvbench.results.model import write_result
    from agenticvbench.runs.submission import RESULTS_DIRNAME
    from agenticvbench.view import build_model
    from agenticvbench.view.pages import Site, overview

    run = tmp_path / "run"
    (run / RESULTS_DIRNAME).mkdir(parents=True)
    for tid in (1, 2):
        write_result(
            run / RESULTS_DIRNAME,
            judged_recap(make_result(tid, "recap", 0.5, path=str(run)), {"I-1": "visual"}),
        )
    cache = tmp_path / "cache"

    def surfaces() -> dict[str, str]:
        out = {}
        base = [str(run), "--cache-dir", str(cache), "--resamples", "0", "--no-floor"]
        for fmt in ("md", "html", "latex", "csv", "json"):
            assert main(["leaderboard", *base, "--format", fmt]) == 0
            out[f"leaderboard {fmt}"] = capsys.readouterr().out
        for fmt in ("md", "html", "json"):
            assert main(["report", *base, "--format", fmt]) == 0
            out[f"report {fmt}"] = capsys.readouterr().out
        out["view"] = overview(build_model([run], cache_dir=cache, resamples=0), Site())
        return out

    def shown(name: str, text: str) -> bool:  # JSON names the mark (its symbol would be \u25ca)
        return MARK in text or "judge not calibrated" in text or ("json" in name and '"uncalibrated"' in text)

    marked = surfaces()
    assert all(shown(k, v) for k, v in marked.items()), [k for k, v in marked.items() if not shown(k, v)]
    _calibrate(cache, {"visual": 150})
    cleared = surfaces()
    assert not [k for k, v in cleared.items() if shown(k, v)]
