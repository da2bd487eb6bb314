"""The engine: statuses it owns, crash isolation, resume, atomic results, summary math."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenticvbench import verifiers
from agenticvbench.dataset.tasks import task_from_row
from agenticvbench.errors import ToolError
from agenticvbench.media import ffmpeg as ffmpeg_mod
from agenticvbench.media.ffmpeg import run_ffmpeg
from agenticvbench.results.model import RESULT_SCHEMA_VERSION, read_result
from agenticvbench.scoring.engine import verify_run
from agenticvbench.verifiers.base import VerifierOutcome


class FakeVerifier:
    """Scores 1.0 if `out.txt` says 'good', 0.5 otherwise; raises on 'crash'. Counts calls."""

    family = "sequencing"
    version = "fake-1"
    calls: list[int] = []

    def input_files(self, task, submission):
        p = submission.file("out.txt")
        return [p] if p else []

    def verify(self, task, submission, ctx):
        type(self).calls.append(task.task_id)
        p = submission.file("out.txt")
        if p is None:
            return VerifierOutcome(
                final_score=0.0, adjusted_final_score=0.0, status="missing", reason="out.txt not found"
            )
        text = p.read_text()
        if text == "crash":
            raise RuntimeError("boom")
        if text == "swallow-tool":  # a check that turns a failed ffmpeg into a failed check
            try:
                run_ffmpeg(["-version"])
            except ToolError:
                return VerifierOutcome(final_score=0.0, adjusted_final_score=0.0)
        if text == "nan":
            return VerifierOutcome(final_score=1.0, adjusted_final_score=1.0, detail={"ssim": float("nan")})
        if text == "inf-detail":
            return VerifierOutcome(
                final_score=0.5, adjusted_final_score=0.5, detail={"window": [1.0, float("inf")], "ok": 2.0}
            )
        score = 1.0 if text == "good" else 0.5
        return VerifierOutcome(final_score=score, adjusted_final_score=score, components={"x": score})


def _task(tid: int):
    return task_from_row(
        {
            "task_id": tid,
            "task_family": "sequencing",
            "prompt": "p",
            "reference_file_urls": [],
            "verifier_reference_urls": None,
            "rubric_json": json.dumps({"correct_order": ["1", "2"], "n_slots": 2}),
        }
    )


@pytest.fixture
def fake(monkeypatch):
    FakeVerifier.calls = []
    monkeypatch.setitem(verifiers._REGISTRY, "sequencing", FakeVerifier())
    return FakeVerifier


def _run(tmp_path: Path, contents: dict[int, str | None]) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"harness": "h", "model": "m", "rep": 1}))
    for tid, text in contents.items():
        d = run / str(tid)
        d.mkdir()
        if text is not None:
            (d / "out.txt").write_text(text)
    return run


def test_crash_is_that_tasks_error_not_the_runs(tmp_path, fake):
    """A verifier exception on one task becomes an `error` result; the other tasks are still scored."""
    run = _run(tmp_path, {37: "good", 38: "crash", 39: "meh"})
    s = verify_run(run, tasks=[_task(37), _task(38), _task(39)], jobs=1)
    by = {r.task_id: r for r in s.results}
    assert by[38].status == "error" and "boom" in by[38].reason and "RuntimeError" in by[38].reason
    assert by[37].status == "scored" and by[37].headline_score == 1.0
    assert by[39].headline_score == 0.5
    assert s.n_errors == 1
    assert read_result(run / "avb-results" / "38.json").status == "error"


def test_a_swallowed_tool_failure_still_makes_that_task_an_error(tmp_path, fake, monkeypatch):
    """A verifier that turns a failed ffmpeg into a failed check must not get a score: the engine's per-task
    collector sees the failure and the task is an `error`; a task scored after it in the same process is not."""
    monkeypatch.setattr(ffmpeg_mod, "ffmpeg_exe", lambda: str(tmp_path / "no-such-ffmpeg"))
    run = _run(tmp_path, {37: "swallow-tool", 38: "good"})
    s = verify_run(run, tasks=[_task(37), _task(38)], jobs=1)
    by = {r.task_id: r for r in s.results}
    assert by[37].status == "error" and by[37].headline_score == 0.0
    assert by[37].reason.startswith("a scoring tool failed: ffmpeg could not be run")
    assert by[38].status == "scored" and by[38].headline_score == 1.0


def test_missing_folder_and_missing_file_are_missing_and_count_zero(tmp_path, fake):
    """Missing output counts as 0 in the family headline, over all dataset tasks of the family."""
    run = _run(tmp_path, {37: "good", 38: None})
    s = verify_run(run, tasks=[_task(37), _task(38), _task(40)], jobs=1)
    by = {r.task_id: r for r in s.results}
    assert by[38].status == "missing" and by[40].status == "missing"
    assert "no output folder" in by[40].reason
    (fam,) = s.per_run[str(run.resolve())]
    assert fam.headline == pytest.approx(1 / 3)
    assert fam.counts == {"scored": 1, "missing": 2}
    assert s.macro[str(run.resolve())] == pytest.approx(1 / 3)


def test_rerun_resumes_and_rescores_only_changed_inputs(tmp_path, fake):
    """A second run reuses results whose inputs are unchanged; an edited file is rescored; --force rescores all."""
    run = _run(tmp_path, {37: "good", 38: "meh"})
    tasks = [_task(37), _task(38)]
    verify_run(run, tasks=tasks, jobs=1)
    assert sorted(fake.calls) == [37, 38]
    fake.calls.clear()
    s2 = verify_run(run, tasks=tasks, jobs=1)
    assert fake.calls == [] and s2.n_resumed == 2
    (run / "38" / "out.txt").write_text("good")
    s3 = verify_run(run, tasks=tasks, jobs=1)
    assert fake.calls == [38] and s3.n_resumed == 1
    assert {r.task_id: r.headline_score for r in s3.results} == {37: 1.0, 38: 1.0}
    fake.calls.clear()
    verify_run(run, tasks=tasks, jobs=1, force=True)
    assert sorted(fake.calls) == [37, 38]


def test_error_results_are_always_retried(tmp_path, fake):
    """An `error` is the verifier's failure, not a score: a rerun tries again instead of reusing it."""
    run = _run(tmp_path, {38: "crash"})
    verify_run(run, tasks=[_task(38)], jobs=1)
    fake.calls.clear()
    verify_run(run, tasks=[_task(38)], jobs=1)
    assert fake.calls == [38]


def test_torn_result_file_is_rescored(tmp_path, fake):
    """A truncated result file (e.g. from a crash of an older tool) is ignored and rewritten."""
    run = _run(tmp_path, {37: "good"})
    verify_run(run, tasks=[_task(37)], jobs=1)
    path = run / "avb-results" / "37.json"
    path.write_text(path.read_text()[:40])
    fake.calls.clear()
    verify_run(run, tasks=[_task(37)], jobs=1)
    assert fake.calls == [37]
    assert read_result(path).status == "scored"


def test_result_records_provenance_and_hashes(tmp_path, fake):
    """Every result records package, verifier and library versions, dataset and input file hashes."""
    run = _run(tmp_path, {37: "good"})
    s = verify_run(run, tasks=[_task(37)], jobs=1)
    prov = s.results[0].provenance
    assert prov["verifier_version"] == "fake-1"
    assert prov["package_version"]
    assert "numpy" in prov["libraries"] and "av" in prov["libraries"]
    assert len(prov["input_hashes"]["out.txt"]) == 64
    assert s.results[0].run["harness"] == "h" and s.results[0].run["model"] == "m"
    data = json.loads((run / "avb-results" / "37.json").read_text())
    assert "resumed" not in data and data["schema_version"] == RESULT_SCHEMA_VERSION == 2


def test_out_dir_with_several_runs(tmp_path, fake):
    """With --out and several runs, each run gets its own folder, even when two runs share a basename."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _run(tmp_path / "a", {37: "good"})
    b = _run(tmp_path / "b", {37: "meh"})
    out = tmp_path / "res"
    verify_run([a, b], tasks=[_task(37)], jobs=1, out=out)
    scores = sorted(read_result(p).headline_score for p in out.rglob("37.json"))
    assert scores == [0.5, 1.0]


def test_non_finite_diagnostics_are_stored_as_null_with_a_warning(tmp_path, fake):
    """Result files are strict JSON: inf/NaN in the detail become null (score kept, warning added), where they
    used to make the write fail."""
    run = _run(tmp_path, {37: "nan", 38: "inf-detail"})
    s = verify_run(run, tasks=[_task(37), _task(38)], jobs=1)
    by = {r.task_id: r for r in s.results}
    assert by[37].status == "scored" and by[37].detail == {"ssim": None}
    on_disk = read_result(run / "avb-results" / "38.json")
    assert on_disk.headline_score == 0.5 and on_disk.detail == {"window": [1.0, None], "ok": 2.0}
    assert any("non-finite" in w for w in on_disk.warnings)


def test_resumed_result_takes_the_runs_current_identity(tmp_path, fake):
    """Regression: after editing run.json, reused results kept the old model and the summary crashed on mixed
    (harness, model) groups."""
    run = _run(tmp_path, {37: "good"})
    verify_run(run, tasks=[_task(37), _task(38)], jobs=1)
    (run / "run.json").write_text(json.dumps({"harness": "h", "model": "m2", "rep": 2}))
    fake.calls.clear()
    s = verify_run(run, tasks=[_task(37), _task(38)], jobs=1)
    assert fake.calls == [] and s.n_resumed == 2  # 37 and the missing 38: both reused, both re-identified
    assert {r.run["model"] for r in s.results} == {"m2"}
    assert read_result(run / "avb-results" / "37.json").run["rep"] == 2


class _JudgeOn:
    mode = "cache"

    def provenance(self):
        return {"judge_mode": "cache"}


def test_results_with_unscored_judge_items_are_retried_when_the_judge_is_on(tmp_path, fake, monkeypatch):
    """A recap result whose judge calls failed (unscored items) is not reused while a judge is configured."""
    from agenticvbench.results.model import Result
    from agenticvbench.runs.submission import Submission
    from agenticvbench.scoring.job import Job, reusable
    from agenticvbench.verifiers.base import VerifyContext

    old = Result(task_id=1, family="recap", status="scored", components={"unscored": 2}, fingerprint="f")
    job_on = Job(
        task=_task(37),
        submission=Submission(37, tmp_path),
        out_dir=tmp_path,
        run_info={},
        ctx=VerifyContext(tmp_path, judge=_JudgeOn()),
        dataset={},
    )
    job_off = Job(
        task=_task(37),
        submission=Submission(37, tmp_path),
        out_dir=tmp_path,
        run_info={},
        ctx=VerifyContext(tmp_path, judge=None),
        dataset={},
    )
    assert not reusable(old, "f", job_on)
    assert reusable(old, "f", job_off)
    old.components["unscored"] = 0
    assert reusable(old, "f", job_on)
    assert not reusable(old, "other", job_on)


def test_repair_profile_is_part_of_the_fingerprint(tmp_path):
    """rubric_json names a repair cell only; a changed ground-truth profile must invalidate the result."""
    from agenticvbench.dataset.tasks import task_from_row
    from agenticvbench.runs.submission import Submission
    from agenticvbench.scoring.job import Job, fingerprint
    from agenticvbench.verifiers.base import VerifyContext

    row = {
        "task_id": 65,
        "task_family": "repair",
        "prompt": "p",
        "reference_file_urls": [],
        "verifier_reference_urls": ["repair/sources/v1_source.mp4"],
        "rubric_json": json.dumps({"cell": "v1/s1"}),
    }
    task = task_from_row(row)
    job = Job(
        task=task,
        submission=Submission(65, tmp_path),
        out_dir=tmp_path,
        run_info={},
        ctx=VerifyContext(tmp_path),
        dataset={},
    )
    a = fingerprint(job, "1", {})
    task.profile = {**task.profile, "format": {**task.profile["format"], "duration_s": 1.0}}
    assert fingerprint(job, "1", {}) != a


def test_a_full_disk_while_a_reused_result_is_rewritten_keeps_the_score(tmp_path, fake, monkeypatch):
    """A reused result is rewritten when run.json changed (its identity is refreshed). When that write hits a full
    disk, the task used to become "verifier crashed: OSError"; now the reused score stands, a warning says the
    identity was not refreshed, the file on disk is the old one (no temporary file left), and a rerun with space
    refreshes it."""
    import errno

    from agenticvbench.scoring import engine

    run = _run(tmp_path, {37: "good"})
    first = verify_run(run, tasks=[_task(37)], jobs=1).results[0]
    (run / "run.json").write_text(json.dumps({"harness": "h", "model": "m2", "rep": 1}))
    real = engine.write_result

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(engine, "write_result", full)
    (again,) = verify_run(run, tasks=[_task(37)], jobs=1).results
    assert again.resumed and again.status == "scored" and again.headline_score == first.headline_score
    assert any("could not be refreshed" in w and "No space left" in w for w in again.warnings)
    on_disk = read_result(run / "avb-results" / "37.json")
    assert on_disk.run.get("model") == "m" and not list((run / "avb-results").glob(".tmp*"))
    monkeypatch.setattr(engine, "write_result", real)
    verify_run(run, tasks=[_task(37)], jobs=1)
    assert read_result(run / "avb-results" / "37.json").run.get("model") == "m2"
