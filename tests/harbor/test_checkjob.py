"""`avb harbor check-job`: leaderboards built on Harbor runs refuse timeout multipliers, resource overrides,
another task set and too few trials; each must be named (a real Harbor lock.json is checked end to end)."""

from __future__ import annotations

import json

import pytest
from test_import import _trial, job  # noqa: F401  (the fixture)

from agenticvbench.cli.main import main
from agenticvbench.harbor.checkjob import check_jobs

D37, D83 = "sha256:" + "a" * 64, "sha256:" + "b" * 64


def _lock(job_dir, **trial_extra) -> None:
    trials = [
        {
            "task": {"name": n, "digest": d, "type": "local"},
            "timeout_multiplier": 1.0,
            "agent_timeout_multiplier": None,
            "environment": {"override_cpus": None},
            "agent": {"name": "codex"},
            "verifier": {"override_timeout_sec": None},
            **trial_extra,
        }
        for n, d in (("sequencing-037", D37), ("agenticvbench/assembly-083", D83))
    ]  # local tasks: the folder name
    (job_dir / "lock.json").write_text(json.dumps({"trials": trials}))


def _export(tmp_path, digests: dict[str, str]):
    d = tmp_path / "export"
    d.mkdir(exist_ok=True)
    (d / "agenticvbench-tasks.json").write_text(
        json.dumps({"tasks": [{"name": n, "digest": g} for n, g in digests.items()]})
    )
    return d


def test_a_plain_job_of_the_export_is_comparable(job, tmp_path, capsys):  # noqa: F811
    """No multiplier, no override, the export's digests, one trial per task: comparable, exit 0."""
    _lock(job)
    export = _export(tmp_path, {"agenticvbench/sequencing-037": D37, "agenticvbench/assembly-083": D83})
    (c,) = check_jobs([job], tasks_dir=export)
    assert c.comparable, c.problems
    assert main(["harbor", "check-job", str(job), "--tasks-dir", str(export)]) == 0
    assert "comparable" in capsys.readouterr().out


def test_overrides_other_tasks_and_few_trials_are_each_named(job, tmp_path):  # noqa: F811
    """A 2x timeout, a CPU override, a changed task digest, an exported task that never ran, and a task with
    one trial where 2 are required: five reasons, exit 1."""
    _lock(job, timeout_multiplier=2.0, environment={"override_cpus": 8})
    export = _export(
        tmp_path,
        {
            "agenticvbench/sequencing-037": D37,
            "agenticvbench/assembly-083": "sha256:" + "c" * 64,
            "agenticvbench/repair-065": "sha256:" + "d" * 64,
        },
    )
    (c,) = check_jobs([job], tasks_dir=export, trials=2)
    text = "\n".join(c.problems)
    assert "timeout_multiplier = 2" in text and "environment.override_cpus = 8" in text
    assert "1 task(s) differ from the export (digest): assembly-083" in text
    assert "1 exported task(s) never ran: repair-065" in text
    assert "fewer than 2 usable trial(s)" in text and ": 83" in text
    assert main(["harbor", "check-job", str(job), "--tasks-dir", str(export), "--trials", "2"]) == 1


def test_jobs_of_different_task_sets_are_not_compared(job, tmp_path):  # noqa: F811
    """Without an export, two jobs whose task digests differ are both marked; a job without lock.json says so."""
    _lock(job)
    other = tmp_path / "other"
    other.mkdir()
    _trial(other, "sequencing-037__x", "sequencing-037")
    (other / "lock.json").write_text(
        json.dumps(
            {"trials": [{"task": {"name": "agenticvbench/sequencing-037", "digest": "sha256:" + "e" * 64}}]}
        )
    )
    none = tmp_path / "none"
    none.mkdir()
    checks = check_jobs([job, other, none])
    assert all("different task sets" in "\n".join(c.problems) for c in checks[:2])
    assert "no readable lock.json" in checks[2].problems[0]


def test_imported_runs_of_an_overridden_job_are_marked_in_reports(job, tmp_path):  # noqa: F811
    """The import records check-job's verdict in run.json; a report cell built from such a run gets the `mixed`
    mark (‡) with the override as the reason, and a run of a plain job gets none."""
    from agenticvbench.analysis.comparability import cell_marks
    from agenticvbench.harbor.importer import import_jobs
    from agenticvbench.results.model import Result

    def marks_of(run):
        r = Result(
            task_id=37,
            family="sequencing",
            status="scored",
            headline_score=1.0,
            run={"path": str(run), "harness": "codex", "model": "openai/gpt-5", "rep": 1},
        )
        return cell_marks([r])

    _lock(job)
    (plain,) = [r for r in import_jobs([job], tmp_path / "a").runs if r.name.endswith("rep1")]
    assert json.loads((plain / "run.json").read_text())["harbor"]["comparability"]["comparable"] is True
    assert marks_of(plain) == ([], [])
    _lock(job, timeout_multiplier=3.0)
    (slow,) = [r for r in import_jobs([job], tmp_path / "b").runs if r.name.endswith("rep1")]
    marks, why = marks_of(slow)
    assert marks == ["mixed"] and "timeout_multiplier = 3" in why[0]


def _raw_lock(job_dir, field_text: str) -> None:
    """A lock.json of one trial with `field_text` (raw JSON, `"key": value`) written into the trial as is."""
    trial = '{"task": {"name": "sequencing-037", "digest": "' + D37 + '"}, ' + field_text + "}"
    (job_dir / "lock.json").write_text('{"trials": [' + trial + "]}")


@pytest.mark.parametrize(
    "field_text, shown",
    [
        ('"timeout_multiplier": 1.0000001', "timeout_multiplier = 1.0000001, not 1"),
        ('"timeout_multiplier": 1.00000000000000001', "timeout_multiplier = 1.00000000000000001, not 1"),
        ('"agent_timeout_multiplier": 1e309', "agent_timeout_multiplier = 1e309, not 1"),
        ('"timeout_multiplier": "4.0"', "timeout_multiplier = '4.0' is not a number"),
        ('"environment": {"override_cpus": 2.50}', "environment.override_cpus = 2.50 "),
        ('"verifier": {"override_timeout_sec": 1e309}', "verifier.override_timeout_sec = 1e309"),
    ],
)
def test_compared_values_are_shown_as_written(job, field_text, shown):  # noqa: F811
    """A multiplier of 1.0000001 printed as `1` (`:g`) beside "must be 1" looked like agreement, one past a
    float's precision parsed as exactly 1.0 and passed, and 1e309 became `inf` in a note: every compared value
    is now shown as the file writes it and a multiplier is 1 only when written as 1."""
    _raw_lock(job, field_text)
    (c,) = check_jobs([job])
    assert not c.comparable
    assert any(shown in p for p in c.problems), c.problems
    assert not any("inf" in p for p in c.problems), c.problems


@pytest.mark.parametrize("one", ["1", "1.0", "1e0", "1.000"])
def test_a_multiplier_written_as_exactly_one_is_comparable(job, one):  # noqa: F811
    """Every way of writing exactly 1 is 1: the literal comparison must not turn `1.000` into a difference."""
    _raw_lock(job, f'"timeout_multiplier": {one}')
    (c,) = check_jobs([job])
    assert not any("multiplier" in p for p in c.problems), c.problems


def test_a_changed_digest_is_shown_in_full(job, tmp_path):  # noqa: F811
    """Two digests that differ only in their last character are both shown whole, so the line says where they
    differ instead of printing two prefixes that agree."""
    _lock(job)
    near = D83[:-1] + "c"
    export = _export(tmp_path, {"agenticvbench/sequencing-037": D37, "agenticvbench/assembly-083": near})
    (c,) = check_jobs([job], tasks_dir=export)
    line = next(p for p in c.problems if "differ from the export" in p)
    assert f"'{D83}'" in line and f"'{near}'" in line
