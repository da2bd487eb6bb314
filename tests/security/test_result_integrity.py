"""Result integrity: result files are validated (schema + content hash) before they are reused or reported."""

from __future__ import annotations

import json

import jsonschema
import pytest
from adversarial import by_id

from agenticvbench.results.model import (
    INVALID_STATUS,
    canonical_sha256,
    iter_results,
    load_results,
    result_schema,
    scan_results,
)


@pytest.fixture
def scored(hostile_run, score_run):
    """A copy of the demo `partial` run with its sequencing and assembly tasks scored (real results on disk)."""
    run = hostile_run("partial")
    score_run(run.root, [37, 38, 83, 84])
    return run


def _edit(path, **changes):
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))
    return data


@pytest.mark.slow
def test_real_results_validate_against_the_shipped_schema(hostile_run, score_run):
    """The schema in agenticvbench/results documents what `avb verify` writes; every family's real result fits."""
    run = hostile_run("partial")
    score_run(run.root, [1, 2, 37, 38, 65, 66, 67, 83, 84])
    files = sorted(run.results().glob("*.json"))
    assert len(files) == 9
    for f in files:
        data = json.loads(f.read_text())
        jsonschema.validate(data, result_schema())
        assert data["result_sha256"] == canonical_sha256(data)


def test_hand_edited_score_is_rescored_with_a_note(scored, score_run):
    """A result edited to 1.0 was reused as is on resume: the content hash no longer matches, so it is rescored."""
    path = scored.results() / "38.json"
    before = json.loads(path.read_text())["headline_score"]
    assert before < 1.0
    _edit(path, final_score=1.0, adjusted_final_score=1.0, headline_score=1.0)
    r = by_id(score_run(scored.root, [38]))[38]
    assert not r.resumed and r.headline_score == before
    assert any("was invalid" in w and "result_sha256" in w for w in r.warnings)


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"headline_score": 7.5}, "headline_score"),
        ({"final_score": "1.0"}, "final_score"),
        ({"status": "excellent"}, "status"),
        ({"schema_version": 1}, "schema_version"),
    ],
)
@pytest.mark.slow
def test_schema_violations_are_rescored(scored, score_run, changes, words):
    """Out-of-range, string-typed and unknown-status results crashed or were trusted; the schema rejects them."""
    path = scored.results() / "83.json"
    _edit(path, **changes)
    r = by_id(score_run(scored.root, [83]))[83]
    assert not r.resumed and isinstance(r.headline_score, float)
    assert any(words in w for w in r.warnings)


def test_valid_results_are_still_reused(scored, score_run):
    """Validation must not cost resume: untouched results are reused."""
    res = by_id(score_run(scored.root, [37, 83]))
    assert res[37].resumed and res[83].resumed


def test_invalid_results_are_counted_not_dropped(scored):
    """`avb report`/`avb leaderboard` read results through scan_results: a bad file is listed with its path and
    reason, never silently dropped and never a crash."""
    _edit(scored.results() / "84.json", final_score="a lot")
    (scored.results() / "37.json").write_text("{torn")
    (scored.results() / "38.json").write_text(json.dumps({"nested": [[[[]]]]}))
    scan = scan_results(scored.root)
    bad = {i.task_id: i for i in scan.invalid}
    assert set(bad) == {37, 38, 84}
    assert "final_score" in bad[84].reason and bad[84].path == scored.results() / "84.json"
    assert len(scan.results) == 1 and {r.task_id for r in iter_results(scored.root)} == {83}
    df = load_results(scored.root)
    rows = df[df.status == INVALID_STATUS]
    assert sorted(rows.task_id) == [37, 38, 84] and (rows.headline_score == 0).all()


@pytest.mark.slow
def test_result_naming_another_task_is_invalid(scored):
    """A 38.json holding task 37 would make one task count twice."""
    (scored.results() / "38.json").write_bytes((scored.results() / "37.json").read_bytes())
    bad = {i.task_id: i.reason for i in scan_results(scored.root).invalid}
    assert "holds task 37" in bad[38]


@pytest.mark.slow
def test_fifo_or_huge_result_file_never_hangs(scored):
    """Result files sit in the submission's own folder: a FIFO or a sparse 100 MB file is invalid, not a hang."""
    import os

    (scored.results() / "38.json").unlink()
    os.mkfifo(scored.results() / "38.json")
    with open(scored.results() / "37.json", "wb") as fh:
        fh.truncate(100 * 1024 * 1024)
    bad = {i.task_id: i.reason for i in scan_results(scored.root).invalid}
    assert "FIFO" in bad[38] and "byte limit" in bad[37]


@pytest.mark.parametrize("command", ["report", "leaderboard"])
def test_report_and_leaderboard_list_invalid_results_and_exit_1(scored, capsys, command):
    """A non-numeric score crashed `avb report`; now the file is listed with its path and the command exits 1."""
    from agenticvbench.cli.main import main

    bad = scored.results() / "84.json"
    _edit(bad, final_score="1.0")
    code = main([command, str(scored.root)])
    out, err = capsys.readouterr()
    assert code == 1 and f"invalid result {bad}" in err and "Traceback" not in err
    # and the table itself shows it: an `invalid` column (leaderboard) or an `invalid result file` problem (report)
    assert ("| invalid |" in out) if command == "leaderboard" else ("invalid result file" in out), out[-1500:]


@pytest.mark.slow
def test_invalid_result_counts_zero_in_the_report_not_dropped(scored, tmp_path):
    """An invalid result file used to drop its task from the report: with task 83 (the run's worst assembly
    result) corrupted, assembly rose from the mean of 83 and 84 to 84 alone. It now counts as its task scoring 0,
    shown as an `invalid result file` problem naming the file."""
    from agenticvbench.cli.main import main

    def report() -> dict:
        out = tmp_path / f"r{len(list(tmp_path.iterdir()))}"
        main(["report", "--format", "json", "--out", str(out), str(scored.root)])
        return json.loads((out / "report.json").read_text())

    def assembly(rep: dict) -> float:
        return rep["groups"][0]["families"]["assembly"]["mean"]

    scores = {t: json.loads((scored.results() / f"{t}.json").read_text())["headline_score"] for t in (83, 84)}
    assert scores[83] < scores[84], scores  # corrupting the worst task must not help
    before = report()
    bad = scored.results() / "83.json"
    _edit(bad, final_score="1.0")
    after = report()
    assert assembly(before) == pytest.approx((scores[83] + scores[84]) / 2)
    assert assembly(after) == pytest.approx(scores[84] / 2)  # 83 counts 0, it is not dropped
    problems = [p for p in after["problems"] if p["task_id"] == 83]
    assert [p["status"] for p in problems] == ["invalid"] and str(bad) in problems[0]["reason"]
    assert after["status_counts"]["assembly"]["invalid"] == 1
    group = after["groups"][0]
    assert group["coverage"]["with_result"] == before["groups"][0]["coverage"]["with_result"] - 1


def test_run_with_only_invalid_results_keeps_its_declared_identity(scored, tmp_path):
    """When every result of a run is invalid, the stand-ins take the harness and model from its `run.json`, so
    the zeros land in the run's own (harness, model) group rather than in an anonymous one."""
    from agenticvbench.report.summary import load_available

    (scored.root / "run.json").write_text(json.dumps({"harness": "h-x", "model": "m-y", "rep": 2}))
    for f in scored.results().glob("*.json"):
        _edit(f, final_score="1.0")
    for given in (scored.root, scored.results()):  # the run directory, or its results folder
        results, _ = load_available(given)
        assert sorted(r.task_id for r in results) == [37, 38, 83, 84]
        assert {(r.status, r.run["harness"], r.run["model"], r.run["rep"]) for r in results} == {
            ("invalid", "h-x", "m-y", 2)
        }
