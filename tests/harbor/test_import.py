"""`avb import harbor` on generated job directories: layout mapping, attempts, notes, and hostile input.

Job directories come from other machines and agents; these tests make sure a symlink out of the job, a FIFO,
an oversized or non-UTF-8 JSON, or a deeply nested one is refused with a reason instead of being followed,
blocking the import, or crashing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agenticvbench.cli.main import main
from agenticvbench.harbor.importer import import_jobs, task_id_of
from agenticvbench.results.model import iter_results
from agenticvbench.runs import jobdir as jobfiles
from agenticvbench.scoring.engine import verify_run


def _trial(
    job: Path,
    name: str,
    task: str,
    *,
    agent: str = "codex",
    model: str = "openai/gpt-5",
    started: str = "2026-01-01T00:00:00Z",
    reward: float | None = 1.0,
    exception: dict | None = None,
    outputs: dict[str, bytes] | None = None,
    agent_ran: bool = True,
) -> Path:
    d = job / name
    out = d / "artifacts" / "workspace" / "output"
    out.mkdir(parents=True)
    for fname, data in (outputs or {}).items():
        (out / fname).write_bytes(data)
    result = {
        "task_name": f"agenticvbench/{task}",
        "trial_name": name,
        "started_at": started,
        "agent_info": {"name": agent, "version": "1"},
        "config": {"agent": {"name": agent, "model_name": model}, "task": {"path": f"/x/{task}"}},
        "verifier_result": {"rewards": {"reward": reward}} if reward is not None else None,
        "exception_info": exception,
        "finished_at": started,
        "agent_execution": {"started_at": started, "finished_at": started} if agent_ran else None,
    }
    (d / "result.json").write_text(json.dumps(result))
    return d


@pytest.fixture()
def job(tmp_path: Path) -> Path:
    """A job with two attempts of task 37, one of task 83 (crashed agent), and a non-AgenticVBench trial."""
    j = tmp_path / "job-a"
    j.mkdir()
    (j / "config.json").write_text(json.dumps({"job_name": "nightly"}))
    (j / "result.json").write_text(json.dumps({"id": "job-uuid"}))
    _trial(
        j,
        "sequencing-037__b",
        "sequencing-037",
        started="2026-01-01T00:00:02Z",
        outputs={"solution.json": b'{"segments": []}'},
        reward=0.0,
    )
    _trial(
        j,
        "sequencing-037__a",
        "sequencing-037",
        started="2026-01-01T00:00:01Z",
        outputs={"solution.json": b'{"segments": [1]}', "solution.mp4": b"\x00" * 10},
    )
    _trial(
        j,
        "assembly-083__c",
        "assembly-083",
        reward=None,
        outputs={},
        exception={"exception_type": "AgentTimeoutError", "exception_message": "agent ran for 1800 s"},
    )
    _trial(j, "hello-world__d", "hello-world")
    return j


def test_one_run_per_agent_model_attempt_with_rewards_and_notes(job, tmp_path, capsys):
    """Attempts are split by start time; outputs land in RUN/<task_id>/; run.json has the harness, model,
    repetition, Harbor's reward per task and the trial exception as a note; foreign trials are reported."""
    out = tmp_path / "runs"
    assert main(["import", "harbor", str(job), "--out", str(out)]) == 0
    assert "hello-world" in capsys.readouterr().err
    runs = sorted(p.name for p in out.iterdir())
    assert runs == ["nightly__codex__openai_gpt-5__rep1", "nightly__codex__openai_gpt-5__rep2"]
    rep1, rep2 = (out / r for r in runs)
    assert (rep1 / "37" / "solution.json").read_bytes() == b'{"segments": [1]}'
    assert (rep1 / "37" / "solution.mp4").stat().st_size == 10
    assert (rep2 / "37" / "solution.json").read_bytes() == b'{"segments": []}'
    meta = json.loads((rep1 / "run.json").read_text())
    assert (meta["harness"], meta["model"], meta["rep"]) == ("codex", "openai/gpt-5", 1)
    assert meta["harbor_rewards"] == {"37": 1.0, "83": None}
    assert meta["notes"]["83"].startswith(
        "Harbor: the agent timed out (AgentTimeoutError: agent ran for 1800 s)"
    )
    assert meta["harbor"]["outcomes"]["83"]["outcome"] == "agent_timeout"
    assert meta["harbor"]["outcomes"]["37"] == {"outcome": "scored", "reason": ""}
    assert meta["harbor"]["job_id"] == "job-uuid"
    assert json.loads((rep2 / "run.json").read_text())["harbor_rewards"] == {"37": 0.0}
    assert main(["import", "harbor", str(job), "--out", str(out)]) == 3  # exists: refused without --force
    assert main(["import", "harbor", str(job), "--out", str(out), "--force"]) == 0


def test_task_ids_come_only_from_exported_names():
    """Only `<family>-<NNN>` names with an id inside the family's range map to a task."""
    assert task_id_of({"task_name": "agenticvbench/repair-065"}, "x") == 65
    assert task_id_of({}, "assembly-083__Ab12") == 83
    assert task_id_of({"task_name": "agenticvbench/repair-012"}, "x") is None
    assert task_id_of({"task_name": "terminal-bench/hello"}, "hello__1") is None


def test_hostile_job_contents_are_refused_not_followed(job, tmp_path):
    """A symlinked output file, a symlinked output folder, a FIFO and a symlinked trial folder are not read
    (the FIFO does not block); the import finishes and names each refused output in the notes."""
    secret = tmp_path / "secret.txt"
    secret.write_text("do not copy")
    out_dir = job / "sequencing-037__a" / "artifacts" / "workspace" / "output"
    (out_dir / "report.md").symlink_to(secret)
    os.mkfifo(out_dir / "final.mp4")
    elsewhere = tmp_path / "elsewhere"
    _trial(elsewhere, "repair-065__z", "repair-065", outputs={"fixed.mp4": b"x"})
    (job / "repair-065__z").symlink_to(elsewhere / "repair-065__z")
    t66 = _trial(job, "repair-066__y", "repair-066")
    (t66 / "artifacts" / "workspace" / "output").rmdir()
    (t66 / "artifacts" / "workspace" / "output").symlink_to(tmp_path / "elsewhere" / "repair-065__z")
    summary = import_jobs([job], tmp_path / "runs")
    rep1 = tmp_path / "runs" / "nightly__codex__openai_gpt-5__rep1"
    assert not (rep1 / "37" / "report.md").exists() and not (rep1 / "37" / "final.mp4").exists()
    notes = json.loads((rep1 / "run.json").read_text())["notes"]["37"]
    assert "report.md" in notes and "final.mp4" in notes
    assert not (rep1 / "65").exists()  # the symlinked trial folder is not a trial
    assert (rep1 / "66").is_dir() and not any((rep1 / "66").iterdir())
    assert summary.trials == 4


@pytest.mark.parametrize("content", [b"\xff\xfe not utf-8", b"[" * 100000 + b"]" * 100000, b"{" + b" " * 64])
def test_bad_result_json_skips_the_trial_with_a_reason(job, tmp_path, content):
    """Non-UTF-8, pathologically nested or truncated result.json: the trial is skipped, named, the rest imported."""
    (job / "assembly-083__c" / "result.json").write_bytes(content)
    summary = import_jobs([job], tmp_path / "runs")
    assert any("assembly-083__c/result.json" in s for s in summary.skipped)
    assert summary.trials == 2


def test_oversized_json_is_not_read(job, tmp_path, monkeypatch):
    """A result.json over the byte limit is refused by size, before it is read."""
    monkeypatch.setattr(jobfiles, "MAX_JSON_BYTES", 64)
    summary = import_jobs([job], tmp_path / "runs")
    assert summary.trials == 0 and any("byte limit" in s for s in summary.skipped)


def test_oversized_output_is_not_copied(job, tmp_path, monkeypatch):
    """An output over the size limit (a runaway 2 GB file, here a sparse one under a small limit) is skipped with
    a note naming it; the other outputs of the trial are imported."""
    from agenticvbench.harbor import importer

    monkeypatch.setattr(importer, "MAX_OUTPUT_BYTES", 1024)
    out_dir = job / "sequencing-037__a" / "artifacts" / "workspace" / "output"
    with open(out_dir / "solution.mp4", "wb") as fh:
        fh.truncate(2 * 1024**3)
    import_jobs([job], tmp_path / "runs")
    rep1 = tmp_path / "runs" / "nightly__codex__openai_gpt-5__rep1"
    assert (rep1 / "37" / "solution.json").is_file() and not (rep1 / "37" / "solution.mp4").exists()
    assert "solution.mp4" in json.loads((rep1 / "run.json").read_text())["notes"]["37"]


def test_infrastructure_failures_are_listed_for_rerun_and_follow_the_policy(job, tmp_path):
    """A sandbox that never started is not the agent's failure: with the default policy the task is imported
    (and scores 0 like a missing output) with the failure as its note; with `exclude` it has no task folder and is
    listed under harbor.excluded; both policies list the trial for rerun."""
    _trial(
        job,
        "repair-065__e",
        "repair-065",
        reward=None,
        agent_ran=False,
        exception={
            "exception_type": "EnvironmentStartTimeoutError",
            "exception_message": "no sandbox in 600 s",
        },
    )
    zero = import_jobs([job], tmp_path / "zero")
    assert zero.outcomes == {"agent_timeout": 1, "infra_failure": 1, "scored": 2}
    assert len(zero.infra) == 1 and "repair-065__e (task 65): EnvironmentStartTimeoutError" in zero.infra[0]
    assert "rerun these trials" in zero.to_text()
    rep1 = tmp_path / "zero" / "nightly__codex__openai_gpt-5__rep1"
    meta = json.loads((rep1 / "run.json").read_text())
    assert (rep1 / "65").is_dir() and meta["notes"]["65"].startswith("Harbor: infrastructure failure")
    assert meta["harbor"]["excluded"] == {} and meta["harbor"]["infra_policy"] == "zero"
    ex = import_jobs([job], tmp_path / "ex", infra_policy="exclude")
    rep1 = tmp_path / "ex" / "nightly__codex__openai_gpt-5__rep1"
    meta = json.loads((rep1 / "run.json").read_text())
    assert not (rep1 / "65").exists() and meta["harbor"]["excluded"] == {"65": "repair-065__e"}
    assert ex.infra == zero.infra and "left out" in ex.to_text()


def test_agent_timeout_is_the_reason_avb_verify_shows(demo, tmp_path):
    """An agent that timed out before writing solution.json scores 0 as missing; the reason names the timeout
    first, not only the missing file, and run.json written by the import raises no unknown-key note."""
    j = tmp_path / "job"
    j.mkdir()
    _trial(
        j,
        "sequencing-037__t",
        "sequencing-037",
        reward=0.0,
        exception={"exception_type": "AgentTimeoutError", "exception_message": "Agent execution timed out"},
    )
    import_jobs([j], tmp_path / "runs")
    run = next((tmp_path / "runs").iterdir())
    summary = verify_run([run], dataset=str(demo.mirror), task_ids=[37], jobs=1)
    (r,) = iter_results(run)
    assert r.status in ("missing", "malformed") and r.headline_score == 0.0
    assert r.reason.startswith("Harbor: the agent timed out (AgentTimeoutError: Agent execution timed out); ")
    assert "solution.json" in r.reason
    assert not [n for n in summary.notes if "unknown key" in n]


def test_verify_accepts_the_run_json_the_importer_wrote(job, tmp_path):
    """Regression: `avb verify` warned "unknown key(s) 'harbor', 'source' ignored" about the importer's own keys."""
    from agenticvbench.runs.submission import read_run_json

    out = tmp_path / "runs"
    assert main(["import", "harbor", str(job), "--out", str(out)]) == 0
    for run in out.iterdir():
        meta, notes = read_run_json(run / "run.json")
        assert notes == [] and meta.harness == "codex"
