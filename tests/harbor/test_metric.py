"""`avb harbor metric`: the family headlines from Harbor's recorded rewards, missing = 0, checked by hand here
(and against `avb leaderboard` on a real Harbor job in the end-to-end test)."""

from __future__ import annotations

import json

import pytest
from test_import import _trial, job  # noqa: F401  (the fixture)

from agenticvbench.cli.main import main
from agenticvbench.harbor.metric import job_metrics


def test_family_means_count_missing_as_zero(job, capsys):  # noqa: F811
    """Task 37 has two attempts (1.0 then 0.0), task 83 one attempt without a reward: sequencing 0.5,
    assembly 0 over 2 runs, macro 0.25, micro 0.25."""
    (g,), skipped = job_metrics([job])
    assert any("hello-world" in s for s in skipped)
    assert (g.agent, g.model, g.runs) == ("codex", "openai/gpt-5", 2)
    assert g.families == {"sequencing": 0.5, "assembly": 0.0}
    assert (g.macro, g.micro, g.cells) == (0.25, 0.25, 4)
    assert main(["harbor", "metric", str(job), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["families"] == {"sequencing": 0.5, "assembly": 0.0}


def test_exported_listing_sets_the_tasks_and_infra_policy_the_cells(job, tmp_path):  # noqa: F811
    """With the export's listing a task without any trial counts 0; an infrastructure failure counts 0 under
    `zero` and leaves its cell out under `exclude` (and is listed either way)."""
    _trial(
        job,
        "repair-065__e",
        "repair-065",
        reward=None,
        agent_ran=False,
        exception={"exception_type": "SandboxBuildFailedError", "exception_message": "apt failed"},
    )
    _trial(job, "repair-065__f", "repair-065", reward=1.0, started="2026-01-01T00:00:09Z")
    export = tmp_path / "export"
    export.mkdir()
    (export / "agenticvbench-tasks.json").write_text(
        json.dumps({"tasks": [{"task_id": i} for i in (1, 37, 65, 83)]})
    )
    (g,), _ = job_metrics([job], tasks_dir=export)
    assert g.families == {"recap": 0.0, "sequencing": 0.5, "repair": 0.5, "assembly": 0.0}
    assert g.micro == pytest.approx((0 + 0 + 1 + 0 + 0 + 1 + 0 + 0) / 8) and len(g.infra_failures) == 1
    (g,), _ = job_metrics([job], tasks_dir=export, infra_policy="exclude")
    assert g.families["repair"] == 1.0 and g.excluded == 1 and g.cells == 7


def test_metric_formats_and_the_note_on_cells_without_a_reward(job, capsys):  # noqa: F811
    """`avb harbor metric` printed TSV only and said nothing about trials without a reward (counted 0); it takes
    `--format tsv|md|json` (`--json` its alias) and each row says how many of its cells had no reward."""
    (g,), _ = job_metrics([job])
    assert g.no_reward == 2  # task 83: one attempt without a reward, and no second attempt
    assert main(["harbor", "metric", str(job), "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| agent | model | runs |") and "| 2 |" in out.splitlines()[2]
    assert "no reward (counted 0): codex/openai/gpt-5: 2 of 4 cell(s)" in out
    assert main(["harbor", "metric", str(job)]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("\tinvalid\tno_reward")
    assert main(["harbor", "metric", str(job), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["no_reward"] == 2


def test_metric_out_writes_the_table_to_a_file(job, tmp_path, capsys):  # noqa: F811
    """`--out FILE` means what it means on compare, cost and leaderboard: the table goes to the file, not the
    terminal (`avb harbor metric --out m.tsv` used to be a usage error)."""
    assert main(["harbor", "metric", str(job)]) == 0
    shown = capsys.readouterr().out
    out = tmp_path / "m.tsv"
    assert main(["harbor", "metric", str(job), "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n" and out.read_text() == shown
