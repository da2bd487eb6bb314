"""The trajectory audit end to end with the real Harbor: `harbor run` of an exported task with a scripted agent
(`scripted_agent.ScriptedAgent`) that copies a planted answer file into its output, then `avb import harbor`
(which copies the trial's `agent/trajectory.json`, written by Harbor's own ATIF models), `avb verify` (the
result carries the `answer_access` flag, its perfect score kept) and `avb leaderboard --exclude-flagged` (the
cell is left out and counted).

Runs as `test_harbor_e2e` does: Harbor in its cached Python >= 3.12 venv, the docker-free
`local_env.LocalMountEnvironment` (root and `unshare -m`), skipped with the reason where that cannot run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_harbor_e2e import _harbor, harbor_bin  # noqa: F401 - the fixture, shared with the round trip

from agenticvbench.cli.main import main
from agenticvbench.dataset.loader import load_tasks
from agenticvbench.harbor.gold import gold_output
from agenticvbench.results.model import iter_results
from agenticvbench.scoring.engine import verify_run

TASK = 37  # sequencing: its gold solution.json is the answer the parquet holds


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_scripted_agent_reading_a_planted_answer_is_flagged(
    harbor_bin: Path,  # noqa: F811
    demo,
    avb_on_path: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The agent's `cp` of the answer planted in the scorer's cache is in the trajectory Harbor kept; after
    import and verify the result scores 1.0 and is flagged answer_access, with a warning naming the log, the step
    and the call; the leaderboard with --exclude-flagged leaves that cell out and says so."""
    export = tmp_path / "export"
    assert (
        main(["export", "harbor", "--out", str(export), "--dataset", str(demo.mirror), "--tasks", str(TASK)])
        == 0
    )
    cache = tmp_path / "cache"
    planted = cache / "answers" / f"{TASK}-solution.json"
    planted.parent.mkdir(parents=True)
    [task] = load_tasks(dataset=str(demo.mirror), task_ids=[TASK])
    gold = gold_output(task)
    assert gold is not None
    planted.write_text(gold.texts["solution.json"])
    commands = [
        "ls /workspace",
        f"mkdir -p /workspace/output && cp {planted} /workspace/output/solution.json",
    ]
    env = {**avb_on_path, "AVB_SCRIPTED_COMMANDS": json.dumps(commands)}
    args = [
        "run",
        "-p",
        str(export),
        "-a",
        "scripted_agent:ScriptedAgent",
        "--env",
        "local_env:LocalMountEnvironment",
    ]
    args += ["-o", str(tmp_path / "jobs"), "--job-name", "scripted", "-n", "1", "-y", "-q"]
    run = _harbor(harbor_bin, args, env, tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    [trial] = [p for p in (tmp_path / "jobs" / "scripted").iterdir() if (p / "result.json").is_file()]
    assert json.loads((trial / "verifier" / "reward.json").read_text()) == {"reward": 1.0}

    runs = tmp_path / "runs"
    assert main(["import", "harbor", str(tmp_path / "jobs" / "scripted"), "--out", str(runs)]) == 0
    [run_dir] = list(runs.iterdir())
    assert (run_dir / str(TASK) / "agent" / "trajectory.json").is_file()
    summary = verify_run([run_dir], dataset=str(demo.mirror), task_ids=[TASK], jobs=1, cache_dir=cache)
    [r] = list(iter_results(run_dir))
    assert r.status == "scored" and r.headline_score == pytest.approx(1.0)
    assert r.integrity == ["answer_access"]
    [warning] = [w for w in r.warnings if w.startswith("INTEGRITY answer_access")]
    assert f"{TASK}/agent/trajectory.json step" in warning and "the scorer's cache" in warning
    assert f"cp {planted}" in warning
    [log] = r.provenance["trajectory"]["logs"]
    assert (
        log["format"] == "atif"
        and log["path"] == f"{TASK}/agent/trajectory.json"
        and len(log["sha256"]) == 64
    )
    assert any(f"task {TASK}: INTEGRITY answer_access" in n for n in summary.notes)

    capsys.readouterr()
    assert (
        main(
            [
                "leaderboard",
                str(run_dir),
                "--exclude-flagged",
                "--format",
                "json",
                "--resamples",
                "0",
                "--no-floor",
            ]
        )
        == 0
    )
    board = json.loads(capsys.readouterr().out)
    assert board["bootstrap"]["flagged_left_out"] == {
        "flags": ["answer_access", "web_access", "foreign_task"],
        "cells": 1,
    }
