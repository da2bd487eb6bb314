"""What a result records of the trajectory audit, read back (`trajectory/check.py`): the provenance block, the
logs with their SHA-256, and the findings its warnings name. `avb view` links flags to steps with these, so a
line must parse exactly as `check_task` writes it, and an agent's text must not forge a finding."""

from __future__ import annotations

from dataclasses import replace

from result_fixtures import make_result

from agenticvbench.trajectory.audit import MAX_FINDINGS, Finding
from agenticvbench.trajectory.check import (
    MAX_WARNINGS,
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
    assert f.reason("Bash") == "the scorer's cache" and f.reason("Read") == ""


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


def _audited_result(tmp_path, n: int):
    """The result `avb verify` writes for a task whose log reads the answer column `n` times."""
    import traj_logs as logs

    from agenticvbench.trajectory.check import check_task, task_logs
    from agenticvbench.trajectory.context import AuditContext

    calls = [
        logs.shell(f"python -c \"print(pd.read_parquet('t.parquet')['correct_order'][{k}])\"")
        for k in range(n)
    ]
    logs.write(tmp_path / "37", "atif", calls)
    ctx = AuditContext(repos=frozenset(), inputs={37: ()}, hosts={}, references=frozenset())
    check = check_task(tmp_path / "37", 37, ctx, task_logs(tmp_path / "37"))
    r = make_result(37, "sequencing", 0.5, warnings=check.warnings)
    return check, replace(r, provenance={**r.provenance, "trajectory": check.provenance})


def test_every_finding_is_recorded_past_the_warnings(tmp_path) -> None:
    """A log with 25 flagged steps gets 20 warnings and a count line, but the provenance lists all 25 (rule, log,
    step), so `avb view` locates each one: it located only the first 20 and published the rest in full."""
    check, r = _audited_result(tmp_path, 25)
    assert len(check.warnings) == MAX_WARNINGS + 1 and "5 more trajectory finding(s)" in check.warnings[-1]
    block = check.provenance
    assert block["findings"] == 25 and len(block["flagged_steps"]) == 25
    found, more = recorded_findings(r)
    assert len({f.step for f in found}) == 25 and more == 0
    assert all(f.rule == "answer_access" and f.log == "37/agent/trajectory.json" and f.why for f in found)
    old = replace(
        r, provenance={**r.provenance, "trajectory": {k: v for k, v in block.items() if k != "flagged_steps"}}
    )
    found, more = recorded_findings(old)  # a result scored before the list: its warnings, the rest counted
    assert len(found) == MAX_WARNINGS and more == 5


def test_findings_past_the_audits_cap_are_counted(tmp_path) -> None:
    """Over `MAX_FINDINGS`, the audit lists the first ones and counts the rest (it stopped at the first of
    them); the result says how many exist, so a reader knows some are not located."""
    check, r = _audited_result(tmp_path, MAX_FINDINGS + 3)
    assert check.provenance["findings"] == MAX_FINDINGS + 3
    assert len(check.provenance["flagged_steps"]) == MAX_FINDINGS
    found, more = recorded_findings(r)
    assert len(found) == MAX_FINDINGS and more == 3
    block = {**check.provenance, "findings": MAX_FINDINGS}  # a count that agrees, but the note says capped
    found, more = recorded_findings(replace(r, provenance={**r.provenance, "trajectory": block}))
    assert more >= 1


def test_a_forged_provenance_list_locates_nothing_else(tmp_path) -> None:
    """An entry naming an unknown rule, a log the provenance does not record or a step that is not a number is
    not a finding, and the count it leaves unlocated makes the reader withhold everything."""
    _, r = _audited_result(tmp_path, 2)
    block = dict(r.provenance["trajectory"])
    block["flagged_steps"] = [
        {"rule": "made_up", "log": "37/agent/trajectory.json", "step": 1},
        {"rule": "answer_access", "log": "37/agent/other.jsonl", "step": 1},
        {"rule": "answer_access", "log": "37/agent/trajectory.json", "step": "1"},
        "junk",
    ]
    found, more = recorded_findings(replace(r, provenance={**r.provenance, "trajectory": block}))
    assert found == [] and more == 2
