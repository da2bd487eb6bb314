"""`avb import harbor` copies each trial's `agent/trajectory.json` into the task folder, where the trajectory
audit looks (`RUN/<id>/agent/`), under the trajectory reader's cap; a symlink or an oversized file is a note."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agenticvbench.harbor import importer
from agenticvbench.harbor.importer import import_jobs
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory.locate import candidates

ATIF = json.dumps({"schema_version": "ATIF-v1.6", "session_id": "s", "agent": {"name": "x"}, "steps": []})


def _trial(job: Path, name: str, task: str, trajectory: str | None) -> Path:
    d = job / name
    (d / "artifacts" / "workspace" / "output").mkdir(parents=True)
    (d / "artifacts" / "workspace" / "output" / "solution.json").write_text("{}")
    (d / "agent").mkdir()
    if trajectory is not None:
        (d / "agent" / "trajectory.json").write_text(trajectory)
    started = "2026-01-01T00:00:00Z"
    result = {
        "task_name": f"agenticvbench/{task}",
        "trial_name": name,
        "started_at": started,
        "finished_at": started,
        "agent_info": {"name": "codex", "version": "1"},
        "config": {"agent": {"name": "codex", "model_name": "m"}, "task": {"path": f"/x/{task}"}},
        "verifier_result": {"rewards": {"reward": 1.0}},
        "agent_execution": {"started_at": started, "finished_at": started},
    }
    (d / "result.json").write_text(json.dumps(result))
    return d


def _import(job: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    out = tmp_path / "runs"
    import_jobs([job], out)
    [run] = list(out.iterdir())
    return run, json.loads((run / "run.json").read_text())["notes"]


def test_the_trajectory_lands_where_the_audit_looks(tmp_path: Path) -> None:
    """Task 37's trajectory is copied byte for byte to 37/agent/trajectory.json and found by the audit; task 38
    has none and gets no agent folder."""
    job = tmp_path / "job"
    _trial(job, "sequencing-037__a", "sequencing-037", ATIF)
    _trial(job, "sequencing-038__a", "sequencing-038", None)
    run, notes = _import(job, tmp_path)
    assert (run / "37" / "agent" / "trajectory.json").read_text() == ATIF
    assert not (run / "38" / "agent").exists() and notes == {}
    with JobDir(run) as jd:
        assert candidates(jd, "37") == [("37", "agent", "trajectory.json")]


def test_a_symlink_or_an_oversized_trajectory_is_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trajectory.json that is a symlink (to a file outside the job) is not followed; one over the cap is not
    copied; each is one note on its task."""
    secret = tmp_path / "secret.json"
    secret.write_text(ATIF)
    job = tmp_path / "job"
    d = _trial(job, "sequencing-037__a", "sequencing-037", None)
    os.symlink(secret, d / "agent" / "trajectory.json")
    _trial(job, "sequencing-038__a", "sequencing-038", ATIF)
    monkeypatch.setattr(importer, "MAX_TRAJECTORY_BYTES", len(ATIF) - 1)
    run, notes = _import(job, tmp_path)
    assert not (run / "37" / "agent" / "trajectory.json").exists()
    assert not (run / "38" / "agent" / "trajectory.json").exists()
    assert "agent/trajectory.json not imported" in notes["37"]
    assert "agent/trajectory.json not imported" in notes["38"] and "limit" in notes["38"]
