"""End to end with the real Harbor (PyPI `harbor`, Python >= 3.12, in its own cached venv): `harbor lint` on the
export, `harbor run` with the `oracle` and `nop` agents through the docker-free `local_env.LocalMountEnvironment`,
then `avb import harbor` and `avb verify`, and the round trip must reproduce Harbor's rewards.

This is the check that our export really is a Harbor dataset and that our import reads what Harbor writes.
It needs root (private mount namespaces); it creates the empty mount points /app, /workspace, /logs, /tests and
/solution on the host when they are missing. The venv is built once into ~/.cache/agenticvbench-tests
(override with AVB_HARBOR_VENV), which needs PyPI the first time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harbor_venv import harbor_venv, python312

from agenticvbench.cli.main import main
from agenticvbench.results.model import iter_results
from agenticvbench.scoring.engine import verify_run

TASKS = "1,37,65,83"  # one task per family
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def harbor_bin() -> Path:
    """The `harbor` executable of the cached venv (skips with the reason when it cannot exist here)."""
    python = python312()
    if python is None:
        pytest.skip("no Python >= 3.12 interpreter found (harbor needs it; set AVB_PYTHON312)")
    if os.geteuid() != 0 or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("the docker-free test environment needs root and `unshare -m`")
    return harbor_venv(python) / "bin" / "harbor"


def _harbor(
    harbor_bin: Path, args: list[str], env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    env = {
        **env,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "COLUMNS": "200",
        "PYTHONPATH": f"{HERE}{os.pathsep}{env.get('PYTHONPATH', '')}",
    }
    return subprocess.run(
        [str(harbor_bin), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=1200
    )


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_harbor_lint_run_import_verify_round_trip(harbor_bin, demo, avb_on_path, tmp_path):
    """lint is clean; oracle scores 1.0 where gold exists and 0 on recap; nop scores 0; no trial raises; the
    imported runs verify to exactly the rewards Harbor recorded."""
    export = tmp_path / "export"
    assert (
        main(["export", "harbor", "--out", str(export), "--dataset", str(demo.mirror), "--tasks", TASKS]) == 0
    )
    task_dirs = sorted(str(p) for p in export.iterdir() if p.is_dir())
    lint = _harbor(harbor_bin, ["lint", "--json", *task_dirs], avb_on_path, tmp_path)
    assert lint.returncode == 0 and json.loads(lint.stdout) == [], lint.stdout + lint.stderr
    _check_manifest_with_harbor(harbor_bin.parent / "python", export)
    for agent in ("oracle", "nop"):
        run = _harbor(
            harbor_bin,
            [
                "run",
                "-p",
                str(export),
                "-a",
                agent,
                "--env",
                "local_env:LocalMountEnvironment",
                "-o",
                str(tmp_path / "jobs"),
                "--job-name",
                agent,
                "-n",
                "2",
                "-y",
                "-q",
            ],
            avb_on_path,
            tmp_path,
        )
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    jobs = [tmp_path / "jobs" / "oracle", tmp_path / "jobs" / "nop"]
    assert not list((tmp_path / "jobs").glob("*/*/exception.txt"))
    for reward_file in (tmp_path / "jobs").glob("*/*/verifier/reward.json"):
        reward = json.loads(reward_file.read_text())
        assert list(reward) == ["reward"], reward_file
        details = json.loads((reward_file.parent / "reward-details.json").read_text())
        assert details["reward"]["score"] == reward["reward"] and "result" in details["reward"]
    assert len(list((tmp_path / "jobs").glob("*/*/verifier/reward.json"))) == 8
    runs = tmp_path / "runs"
    assert main(["import", "harbor", *map(str, jobs), "--out", str(runs)]) == 0
    by_agent = {json.loads((r / "run.json").read_text())["harness"]: r for r in runs.iterdir()}
    assert sorted(by_agent) == ["nop", "oracle"]
    verify_run(list(by_agent.values()), dataset=str(demo.mirror), task_ids=[1, 37, 65, 83], jobs=2)
    for agent, run_dir in by_agent.items():
        meta = json.loads((run_dir / "run.json").read_text())
        assert meta["notes"] == {}
        results = {r.task_id: r for r in iter_results(run_dir)}
        assert sorted(results) == [1, 37, 65, 83]
        for tid, r in results.items():
            harbor_reward = meta["harbor_rewards"][str(tid)]
            assert harbor_reward == pytest.approx(r.headline_score, abs=1e-9), (agent, tid)
            expected = 1.0 if agent == "oracle" and r.family != "recap" else 0.0
            assert harbor_reward == pytest.approx(expected, abs=1e-5), (agent, tid, harbor_reward)
    _check_metric_against_leaderboard(jobs, export, list(by_agent.values()))
    _check_job_comparability(jobs, export, tmp_path)
    print(f"harbor e2e ran with {harbor_bin} ({sys.version.split()[0]} scoring side)")


def _check_manifest_with_harbor(python: Path, export: Path) -> None:
    """Harbor parses our dataset.toml, and its Packager computes the same task digests and dataset hash."""
    code = (
        "import json, sys; from pathlib import Path\n"
        "from harbor.models.dataset.manifest import DatasetManifest\n"
        "from harbor.publisher.packager import Packager\n"
        "root = Path(sys.argv[1]); m = DatasetManifest.from_toml_file(root / 'dataset.toml')\n"
        "print(json.dumps({'tasks': {t.name: t.digest for t in m.tasks}, 'hash': m.compute_content_hash(),\n"
        "  'packager': {t.name: 'sha256:' + Packager.compute_content_hash(root / t.short_name)[0] for t in m.tasks},\n"
        "  'meta': m.metadata}))\n"
    )
    out = subprocess.run([str(python), "-c", code, str(export)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    assert len(got["tasks"]) == 4 and got["tasks"] == got["packager"]
    assert got["meta"]["content_hash"] == f"sha256:{got['hash']}"


def _check_metric_against_leaderboard(jobs: list[Path], export: Path, runs: list[Path]) -> None:
    """`avb harbor metric` on the jobs gives the family headlines, macro and micro `avb leaderboard` gives on the
    imported and verified runs."""
    from agenticvbench.harbor.metric import job_metrics
    from agenticvbench.report.leaderboard import leaderboard_from_runs

    groups, _ = job_metrics(jobs, tasks_dir=export)
    board = leaderboard_from_runs(runs, resamples=0)
    rows = {(g.harness, g.model): g for g in board.groups}
    assert sorted(rows) == sorted((g.agent, g.model) for g in groups)
    for g in groups:
        row = rows[(g.agent, g.model)]
        assert {f: h.mean for f, h in row.families.items()} == pytest.approx(g.families, abs=1e-9)
        assert (row.macro, row.micro) == pytest.approx((g.macro, g.micro), abs=1e-9)
    assert {g.agent: round(g.macro, 4) for g in groups} == {"oracle": 0.75, "nop": 0.0}


def _check_job_comparability(jobs: list[Path], export: Path, tmp_path: Path) -> None:
    """The plain jobs are comparable against the export (Harbor's lock.json digests are ours); a copy whose
    lock.json records a timeout multiplier and a CPU override is not."""
    from agenticvbench.harbor.checkjob import check_jobs

    checks = check_jobs(jobs, tasks_dir=export)
    assert all(c.comparable for c in checks), [c.problems for c in checks]
    tampered = tmp_path / "tampered"
    shutil.copytree(jobs[0], tampered, symlinks=True)
    lock = json.loads((tampered / "lock.json").read_text())
    for trial in lock["trials"]:
        trial["timeout_multiplier"] = 2.0
        trial["environment"]["override_cpus"] = 16
    (tampered / "lock.json").write_text(json.dumps(lock))
    (c,) = check_jobs([tampered], tasks_dir=export)
    assert any("timeout_multiplier = 2" in p for p in c.problems)
    assert any("override_cpus = 16" in p for p in c.problems)
