"""The report puts Harbor's recorded reward next to our score and flags disagreements (imported runs only)."""

from __future__ import annotations

import json

from test_import import job  # noqa: F401  (the fixture)

from agenticvbench.analysis.reward_agreement import compare_rows, harbor_rewards, markdown_lines


def _rows(run_path: str, headlines: dict[int, float]) -> list[dict]:
    return [
        {"run": "codex/gpt rep 1", "run_path": run_path, "task_id": t, "headline": h}
        for t, h in headlines.items()
    ]


def test_disagreement_is_flagged_and_agreement_is_not(tmp_path):
    """A reward equal to our headline passes silently; one that differs is listed with the difference;
    non-numeric rewards (a trial without a verifier result) are ignored."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"harbor_rewards": {"37": 1.0, "83": 0.25, "1": None, "x": 1}}))
    assert harbor_rewards(run) == {37: 1.0, 83: 0.25}
    rows = _rows(str(run), {37: 1.0, 83: 0.5, 1: 0.0})
    assert [c.agrees for c in compare_rows(rows)] == [True, False]
    text = "\n".join(markdown_lines(rows))
    assert "2 task result(s) carry the reward Harbor recorded; 1 disagree" in text
    assert "| 83 | 0.2500 | 0.5000 | **+0.2500** |" in text


def test_runs_not_imported_from_harbor_add_nothing(tmp_path):
    """No run.json, a symlinked one, or invalid JSON: no section at all (reports of other runs are unchanged)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "run.json").write_bytes(b"\xff{")
    (tmp_path / "c").mkdir()
    (tmp_path / "elsewhere.json").write_text(json.dumps({"harbor_rewards": {"37": 1.0}}))
    (tmp_path / "c" / "run.json").symlink_to(tmp_path / "elsewhere.json")
    for name in "abc":
        assert markdown_lines(_rows(str(tmp_path / name), {37: 1.0})) == []


def test_report_counts_trial_outcomes_and_lists_infra_failures_for_rerun(job, tmp_path):  # noqa: F811
    """An imported run with an infrastructure failure gets a table row with the count per outcome and a rerun
    line naming the task and the trial; a crafted outcome outside the known classes is not counted."""
    from test_import import _trial

    from agenticvbench.harbor.importer import import_jobs

    _trial(
        job,
        "repair-065__e",
        "repair-065",
        reward=None,
        agent_ran=False,
        exception={"exception_type": "SandboxBuildFailedError", "exception_message": "apt failed"},
    )
    import_jobs([job], tmp_path / "runs")
    run = tmp_path / "runs" / "nightly__codex__openai_gpt-5__rep1"
    meta = json.loads((run / "run.json").read_text())
    meta["harbor"]["outcomes"]["99"] = {"outcome": "<script>", "reason": "x"}
    (run / "run.json").write_text(json.dumps(meta))
    text = "\n".join(markdown_lines(_rows(str(run), {37: 1.0, 65: 0.0, 83: 0.0})))
    assert "## Harbor trial outcomes" in text
    assert "| codex/gpt rep 1 | 1 | 1 | 0 | 1 | 0 | 0 | zero |" in text
    assert "1 infrastructure failure(s) to rerun:" in text
    assert "task 65: repair-065__e (SandboxBuildFailedError: apt failed)" in text and "<script>" not in text
