"""With the judge off, `avb verify` and `verify_run()` must record the same judge settings and fingerprint."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agenticvbench import verify_run
from agenticvbench.cli.main import main
from agenticvbench.judge import JudgeSettings
from agenticvbench.judge.settings import OFF_PROVENANCE, judge_provenance
from agenticvbench.report.leaderboard import leaderboard_from_runs


def _recap_run(demo, dest: Path, rep: int) -> Path:
    """A copy of the perfect demo run's recap task 1 as rep `rep` of one (harness, model)."""
    dest.mkdir(parents=True)
    shutil.copytree(demo.runs["perfect"] / "1", dest / "1")
    (dest / "run.json").write_text(json.dumps({"harness": "h", "model": "m", "rep": rep}), encoding="utf-8")
    return dest


def _result(run: Path) -> dict:
    return json.loads((run / "avb-results" / "1.json").read_text(encoding="utf-8"))


def test_off_settings_record_what_no_judge_records():
    """`JudgeSettings(mode="off")` used to record the unused default model and api.openai.com."""
    assert JudgeSettings(mode="off").provenance() == judge_provenance(None) == OFF_PROVENANCE
    assert JudgeSettings(mode="cache").provenance()["judge_model"] == "gpt-4o-mini"


@pytest.mark.slow
def test_cli_and_api_agree_on_judge_off_and_do_not_rescore(demo, tmp_path, capsys):
    """Regression: the CLI recorded judge_model gpt-4o-mini and api.openai.com with the judge off, the API None, so
    every switch between them rescored recap and two judge-off reps were marked "mixes 2 judge settings"."""
    rep1, rep2 = _recap_run(demo, tmp_path / "rep1", 1), _recap_run(demo, tmp_path / "rep2", 2)
    cache = str(tmp_path / "cache")
    assert (
        main(["verify", str(rep1), "--dataset", str(demo.mirror), "--tasks", "1", "--cache-dir", cache]) == 0
    )
    cli = _result(rep1)
    assert cli["provenance"]["judge_mode"] == "off" and cli["provenance"]["judge_model"] is None
    assert cli["provenance"]["judge_base_url_host"] is None

    again = verify_run(rep1, dataset=demo.mirror, task_ids=[1], cache_dir=cache, jobs=1)
    assert again.n_resumed == 1, "the API rescored a result the CLI had just written with the same settings"
    api = _result(rep1)
    assert api["fingerprint"] == cli["fingerprint"] and api["provenance"] == cli["provenance"]

    verify_run(rep2, dataset=demo.mirror, task_ids=[1], cache_dir=cache, jobs=1)
    assert _result(rep2)["fingerprint"] == cli["fingerprint"]
    board = leaderboard_from_runs([rep1, rep2], tasks={"recap": [1]})
    (group,) = board.groups
    assert not any("judge settings" in n for n in group.mark_notes), group.mark_notes
    assert "‡" not in board.to_markdown()
