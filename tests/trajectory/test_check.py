"""What a result records of the trajectory audit, read back (`trajectory/check.py`): the provenance block, the
logs with their SHA-256, and the findings its warnings name. `avb view` links flags to steps with these, so a
line must parse exactly as `check_task` writes it, and an agent's text must not forge a finding."""

from __future__ import annotations

from dataclasses import replace

from result_fixtures import make_result

from agenticvbench.trajectory.audit import Finding
from agenticvbench.trajectory.check import (
    _warning,
    recorded_findings,
    recorded_logs,
    trajectory_block,
)

LOG = "37/agent/claude-code.txt"


def _result(warnings: list[str], logs: object = None):
    r = make_result(37, "sequencing", 0.5, warnings=warnings)
    block = {"status": "audited", "logs": logs if logs is not None else [{"path": LOG, "sha256": "ab" * 32}]}
    return replace(r, provenance={**r.provenance, "trajectory": block})


def _finding(step: int, tool: str = "Bash", quote: str = "cat x") -> Finding:
    return Finding(
        rule="answer_access", task_id=37, log=LOG, step=step, tool=tool, why="the scorer's cache", quote=quote
    )


def test_a_written_warning_reads_back_as_its_finding() -> None:
    """Rule, log, step and why come back from the line `check_task` writes, whatever the quote holds."""
    line = _warning(_finding(12, quote="cat ': x' step 99 (Bash) the answer: here"))
    [f], more = recorded_findings(_result([line, "D-S1: an unrelated warning"]))
    assert (f.rule, f.log, f.step, more) == ("answer_access", LOG, 12, 0)
    assert f.why("Bash") == "the scorer's cache" and f.why("Read") == ""


def test_forged_and_counted_lines() -> None:
    """A line naming an unknown rule or a log the provenance does not record is not a finding; the count line
    for findings over the cap is summed."""
    forged = [
        "INTEGRITY made_up: 37/agent/claude-code.txt step 1 (Bash) x: y",
        "INTEGRITY answer_access: 37/agent/other.jsonl step 1 (Bash) x: y",
        "INTEGRITY 7 more trajectory finding(s); `avb audit` lists them",
    ]
    found, more = recorded_findings(_result(forged))
    assert found == [] and more == 7


def test_a_hostile_provenance_block_reads_as_nothing() -> None:
    """Logs of the wrong shape are skipped; no block at all (a result scored before the audit) is None."""
    r = _result([], logs=[{"path": 3, "sha256": "x"}, "junk", {"path": LOG, "sha256": "cd"}])
    assert recorded_logs(r) == [(LOG, "cd")]
    assert trajectory_block(make_result(37, "sequencing", 0.5)) is None and recorded_logs(None) == []
    assert recorded_findings(None) == ([], 0)


def test_a_task_without_a_log_is_not_audited_in_every_word(tmp_path) -> None:
    """`avb audit` called a task with no log "no trajectory" while the result's `provenance.trajectory.status`,
    `avb view` and the guides say "not audited": the audit, the result and `avb audit`'s table use one word."""
    from agenticvbench.trajectory.audit import NOT_AUDITED, audit_run
    from agenticvbench.trajectory.check import check_task, task_logs
    from agenticvbench.trajectory.context import AuditContext
    from agenticvbench.trajectory.render import to_json

    run = tmp_path / "run"
    (run / "3").mkdir(parents=True)
    (run / "3" / "notes.txt").write_text("not a log")
    ctx = AuditContext(repos=frozenset(), inputs={3: ()}, hosts={}, references=frozenset())
    recorded = check_task(run / "3", 3, ctx, task_logs(run / "3")).provenance["status"]
    audit = audit_run(run, ctx)
    assert NOT_AUDITED == "not audited" == recorded == audit.tasks[0].status
    assert to_json([audit])["runs"][0]["tasks"][0]["status"] == recorded
