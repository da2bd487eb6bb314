"""`avb verify` audits the trajectories it finds: flags in the result's integrity list (score kept), one warning
per finding, the logs in the provenance, their SHA-256 in the fingerprint; "not audited" without a log."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import traj_logs as logs

from agenticvbench.demo import DemoBenchmark
from agenticvbench.integrity.screen import FLAGS
from agenticvbench.results.model import Result, iter_results
from agenticvbench.runs.submission import RESULTS_DIRNAME
from agenticvbench.scoring.engine import verify_run
from agenticvbench.trajectory.check import TRAJECTORY_FLAGS

TASKS = [37, 38]


@pytest.fixture
def run(demo: DemoBenchmark, tmp_path: Path) -> Path:
    """A copy of the demo's perfect run (no results), without logs."""
    dest = tmp_path / "perfect"
    shutil.copytree(demo.runs["perfect"], dest, ignore=shutil.ignore_patterns(RESULTS_DIRNAME))
    return dest


def _verify(run: Path, demo: DemoBenchmark, tmp_path: Path) -> tuple[dict[int, Result], list[str]]:
    summary = verify_run([run], dataset=str(demo.mirror), task_ids=TASKS, jobs=1, key_file=tmp_path / "key")
    assert {r.task_id for r in iter_results(run)} == set(TASKS)
    return {r.task_id: r for r in summary.results}, summary.notes


def test_flags_warnings_provenance_and_fingerprint(demo: DemoBenchmark, run: Path, tmp_path: Path) -> None:
    """Task 37's log reads the parquet being scored: flagged answer_access, its perfect score kept, one warning
    naming the step and quoting the call; task 38 has no log: not audited. Editing the log rescores the task;
    an unchanged log reuses the result."""
    parquet = next(demo.mirror.rglob("*.parquet"))
    log = logs.write(
        run / "37", "claude-code", [logs.shell("ls"), logs.shell(f"python -c 'read(\"{parquet}\")'")]
    )
    results, notes = _verify(run, demo, tmp_path)
    r37, r38 = results[37], results[38]
    assert r37.integrity == ["answer_access"] and r37.status == "scored" and r37.headline_score == 1.0
    [warning] = [w for w in r37.warnings if w.startswith("INTEGRITY answer_access")]
    assert "37/agent/claude-code.txt step 3 (Bash)" in warning and parquet.name in warning
    block = r37.provenance["trajectory"]
    assert block["status"] == "audited" and block["findings"] == 1
    [entry] = block["logs"]
    assert entry["format"] == "claude-code" and len(entry["sha256"]) == 64
    assert r38.integrity == [] and r38.provenance["trajectory"]["status"] == "not audited"
    assert any("task 37: INTEGRITY answer_access" in n for n in notes)
    assert not any("trajectories not audited" in n for n in notes)

    again, _ = _verify(run, demo, tmp_path)
    assert again[37].resumed and again[37].fingerprint == r37.fingerprint
    log.write_text(logs.claude_code([logs.shell("ls")]))
    third, _ = _verify(run, demo, tmp_path)
    assert not third[37].resumed and third[37].fingerprint != r37.fingerprint
    assert third[37].integrity == [] and third[37].provenance["trajectory"]["findings"] == 0
    assert third[38].resumed  # no log: its fingerprint did not change


def test_a_run_without_logs_says_so_once(demo: DemoBenchmark, run: Path, tmp_path: Path) -> None:
    """No log anywhere: every task "not audited" in its provenance, one summary note for the run."""
    results, notes = _verify(run, demo, tmp_path)
    assert {r.provenance["trajectory"]["status"] for r in results.values()} == {"not audited"}
    assert [n for n in notes if "trajectories not audited" in n] == [
        f"{run}: no agent trajectory read in any task folder; trajectories not audited "
        "(docs/guide/audit.md, where logs are found)"
    ]


def test_every_trajectory_flag_is_an_integrity_flag() -> None:
    """The audit's rules are integrity flags with a sentence each, as the screening's."""
    assert set(TRAJECTORY_FLAGS) == {"answer_access", "web_access", "foreign_task"}
    assert set(TRAJECTORY_FLAGS) <= set(FLAGS)


def test_task_logs_never_follow_a_symlink(demo: DemoBenchmark, run: Path, tmp_path: Path) -> None:
    """A log that is a symlink (to a file outside the run) is fingerprinted as unreadable, not read, and the task
    is `unreadable` with a note, no flag; a folder without logs is `not audited`."""
    from agenticvbench.dataset.loader import load_tasks
    from agenticvbench.trajectory.check import audit_context, check_task, task_logs

    outside = tmp_path / "outside.txt"
    outside.write_text(logs.claude_code([logs.shell(f"cat {demo.mirror}/data/x.parquet")]))
    (run / "37" / "agent").mkdir()
    (run / "37" / "agent" / "claude-code.txt").symlink_to(outside)
    found = task_logs(run / "37")
    assert list(found) == ["37/agent/claude-code.txt"] and found["37/agent/claude-code.txt"].startswith(
        "unreadable"
    )
    ctx = audit_context(load_tasks(dataset=str(demo.mirror)), [run], tmp_path / "cache")
    check = check_task(run / "37", 37, ctx, found)
    assert check.flags == [] and check.provenance["status"] == "unreadable" and check.provenance["notes"]
    assert task_logs(run / "38") == {}
    assert check_task(run / "38", 38, ctx, {}).provenance["status"] == "not audited"


def test_verify_judges_the_dataset_as_given(demo: DemoBenchmark, run: Path, tmp_path: Path) -> None:
    """`avb verify --dataset LINK` (a symlink to the mirror) audits the agent's read of the table through that
    same link: the spelling given reaches the audit, not only the resolved mirror."""
    (tmp_path / "dslink").symlink_to(demo.mirror)
    logs.write(
        run / "37", "claude-code", [logs.shell(f"cat {tmp_path}/dslink/data/train-00000-of-00001.parquet")]
    )
    summary = verify_run(
        [run], dataset=str(tmp_path / "dslink"), task_ids=[37], jobs=1, key_file=tmp_path / "key"
    )
    assert [r.integrity for r in summary.results] == [["answer_access"]]
