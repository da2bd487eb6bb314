"""`avb import harbor` on a job whose trials are written with Harbor's own models and exception classes
(`harbor_trials.py`, run by the Harbor venv's Python): every injected failure lands in its outcome class, the
infrastructure failures are listed for rerun, and `avb harbor metric` counts them under the chosen policy."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from harbor_venv import harbor_venv, python312

from agenticvbench.harbor.importer import import_jobs
from agenticvbench.harbor.metric import job_metrics

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def harbor_job(tmp_path_factory) -> Path:
    """A job directory written by Harbor's TrialResult models (skips when no Python >= 3.12 exists)."""
    python = python312()
    if python is None:
        pytest.skip("no Python >= 3.12 interpreter found (harbor needs it; set AVB_PYTHON312)")
    venv = harbor_venv(python)
    job = tmp_path_factory.mktemp("harbor-models") / "injected"
    proc = subprocess.run(
        [str(venv / "bin" / "python"), str(HERE / "harbor_trials.py"), str(job)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return job


@pytest.mark.slow
def test_every_injected_failure_gets_its_class(harbor_job, tmp_path):
    """The outcome class is the suffix of each trial's name; two infrastructure failures are listed for rerun;
    the agent timeout's note leads with Harbor's message."""
    summary = import_jobs([harbor_job], tmp_path / "runs")
    (run,) = summary.runs
    meta = json.loads((run / "run.json").read_text())
    outcomes = meta["harbor"]["outcomes"]
    trials = meta["harbor"]["trials"]
    for tid, name in trials.items():
        assert outcomes[tid]["outcome"] == name.split("__")[1], name
    assert summary.outcomes == {
        "agent_error": 1,
        "agent_timeout": 1,
        "cancelled": 1,
        "infra_failure": 2,
        "scored": 1,
        "verifier_error": 1,
    }
    assert sorted(s.split(" (task ")[1][:2] for s in summary.infra) == ["66", "67"]
    assert meta["notes"]["83"].startswith(
        "Harbor: the agent timed out (AgentTimeoutError: Agent execution timed out after 1800 s)"
    )
    assert "37" not in meta["notes"]


def test_metric_policies_on_harbors_records(harbor_job):
    """Under `zero` the two infrastructure failures count 0 in repair (3 tasks: 0, 0, 0); under `exclude` only
    the agent error's 0 remains. Sequencing: 0.5 and a verifier error without reward (0)."""
    (g,), _ = job_metrics([harbor_job])
    assert g.families == {"sequencing": 0.25, "repair": 0.0, "assembly": 0.0} and len(g.infra_failures) == 2
    (g,), _ = job_metrics([harbor_job], infra_policy="exclude")
    assert g.excluded == 2 and g.cells == 5 and g.families["sequencing"] == 0.25


def test_trajectory_facts_from_harbors_atif_file(harbor_job, tmp_path):
    """The scored trial's ATIF trajectory: 3 agent turns, tool calls by name, 20 s of agent time, one ffprobe call
    and one frame extraction (the plain ffmpeg cut is not one); a trial without a trajectory says so; the report
    table shows the harness with those numbers."""
    from agenticvbench.analysis.reward_agreement import trajectory_lines

    (run,) = import_jobs([harbor_job], tmp_path / "runs").runs
    facts = json.loads((run / "run.json").read_text())["harbor"]["trajectories"]
    assert facts["37"] == {
        "turns": 3,
        "tool_calls": {"Bash": 3, "Read": 1},
        "agent_seconds": 20.0,
        "ffprobe_calls": 1,
        "frame_extractions": 1,
        "has_trajectory": True,
    }
    assert facts["83"]["has_trajectory"] is False and facts["83"]["agent_seconds"] == 20.0
    text = "\n".join(trajectory_lines([{"run_path": str(run), "run": "x"}]))
    assert "| claude-code | 7 | 1 | 3.0 | 4.0 | Bash 3, Read 1 | 0.3 | 100% | 100% |" in text


@pytest.mark.slow
def test_exclude_policy_gives_the_same_numbers_in_metric_and_leaderboard(harbor_job, demo, tmp_path):
    """Under `--infra-policy exclude`, `avb verify` gives the two infrastructure failures an `excluded` result and
    `avb leaderboard` leaves them out exactly as `avb harbor metric` does. The scored (37) and agent-error (65)
    trials get the demo's perfect outputs, and Harbor's recorded reward is set to our headline (as when Harbor
    runs our verifier); the expected means are computed by hand from those two scores."""
    import shutil

    from agenticvbench.report.leaderboard import leaderboard_from_runs
    from agenticvbench.scoring.engine import verify_run

    job = tmp_path / "job"
    shutil.copytree(harbor_job, job)
    for name, tid in (("sequencing-037__scored", 37), ("repair-065__agent_error", 65)):
        src = demo.runs["perfect"] / str(tid)
        src = (
            src / "output" if (src / "output").is_dir() else src
        )  # the demo nests some outputs one level down
        shutil.copytree(src, job / name / "artifacts" / "workspace" / "output", dirs_exist_ok=True)
    (run,) = import_jobs([job], tmp_path / "runs", infra_policy="exclude").runs
    key = tmp_path / "result.key"
    ids = [37, 38, 65, 66, 67, 83, 84]  # the job's tasks
    summary = verify_run(run, dataset=demo.mirror, task_ids=ids, jobs=1, key_file=key)
    by_task = {r.task_id: r for r in summary.results}
    assert {t for t, r in by_task.items() if r.status == "excluded"} == {66, 67}
    assert by_task[66].reason == (
        "infrastructure failure, left out by --infra-policy exclude: repair-066__infra_failure"
    )
    s37, s65 = by_task[37].headline_score, by_task[65].headline_score
    assert s37 > 0 and s65 > 0, [
        (r.task_id, r.status, r.reason, r.headline_score) for r in summary.results if r.task_id in (37, 65)
    ]
    for name, score in (("sequencing-037__scored", s37), ("repair-065__agent_error", s65)):
        path = job / name / "result.json"
        data = json.loads(path.read_text())
        data["verifier_result"] = {"rewards": {"reward": score}}
        path.write_text(json.dumps(data))
    (g,), _ = job_metrics([job], infra_policy="exclude")
    board = leaderboard_from_runs([run], resamples=0)
    (row,) = board.groups
    expected = {"sequencing": (s37 + 0.0) / 2, "repair": s65 / 1, "assembly": 0.0}  # 66, 67 left out
    assert g.families == pytest.approx(expected)
    assert {f: h.mean for f, h in row.families.items()} == pytest.approx(expected)
    assert row.macro == pytest.approx(g.macro) == pytest.approx(sum(expected.values()) / 3)
    assert row.micro == pytest.approx(g.micro) == pytest.approx((s37 + s65) / 5)
    assert row.n_excluded == 2 and len(row.infra) == 2 and "infra" in board.to_markdown()
    assert "Infrastructure failures to rerun" in board.to_markdown()
    again = verify_run(run, dataset=demo.mirror, task_ids=ids, jobs=1, key_file=key)
    assert {r.task_id for r in again.results if r.resumed and r.status == "excluded"} == {66, 67}
