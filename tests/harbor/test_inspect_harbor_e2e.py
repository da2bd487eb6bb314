"""End to end with inspect-harbor (PyPI `inspect-harbor`, which runs Harbor task folders inside Inspect AI):
`inspect eval inspect_harbor/harbor` on exported task folders with Inspect's `local` sandbox and the oracle
solver, then the outputs imported as a run and scored by `avb verify`: both must give the same headline, 1.0.

Inspect's `local` sandbox runs commands on the host, with the task's absolute paths (/workspace/output, /tests,
/logs, /solution). Each task therefore runs in a private mount namespace (`unshare -m`, root) where those paths
are bind-mounted from a scratch folder, and where /etc/passwd is a copy that also names the task's agent user
(`agent`, uid 0 there): the oracle solver runs as the task's `[agent] user`, and the local sandbox only runs as
the current user. Nothing on the host is modified beyond the empty mount points.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from harbor_venv import harbor_venv, python312

from agenticvbench.cli.main import main
from agenticvbench.harbor.export import LISTING
from agenticvbench.results.model import iter_results
from agenticvbench.scoring.engine import verify_run

TASKS = [37, 65, 83]  # sequencing, repair, assembly: the families with gold outputs
MOUNTS = ("app", "workspace", "logs", "tests", "solution")


@pytest.fixture(scope="module")
def inspect_bin() -> Path:
    """The `inspect` executable of the cached venv (skips with the reason when it cannot run here)."""
    python = python312()
    if python is None:
        pytest.skip("no Python >= 3.12 interpreter found (inspect-harbor needs it; set AVB_PYTHON312)")
    if os.geteuid() != 0 or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("the isolated local sandbox needs root and `unshare -m`")
    return harbor_venv(python) / "bin" / "inspect"


def _inspect_oracle(inspect_bin: Path, task_dir: Path, scratch: Path, env: dict[str, str]) -> Path:
    """Run the oracle on one task folder in its own namespace; returns Inspect's log (JSON)."""
    root = scratch / "root"
    (root / "etc").mkdir(parents=True)
    for m in MOUNTS:
        (root / m).mkdir()
        Path(f"/{m}").mkdir(exist_ok=True)  # the mount point on the host (empty)
    passwd = Path("/etc/passwd").read_text()
    (root / "etc" / "passwd").write_text(passwd.rstrip("\n") + "\nagent:x:0:0:agent:/root:/bin/bash\n")
    binds = " && ".join(
        [
            *(f"mount --bind {root / m} /{m}" for m in MOUNTS),
            f"mount --bind {root / 'etc' / 'passwd'} /etc/passwd",
        ]
    )
    logs = scratch / "logs"
    cmd = (
        f"{binds} && exec {inspect_bin} eval inspect_harbor/harbor -T path={task_dir} "
        f"-T sandbox_env_name=local --solver inspect_harbor/oracle --model mockllm/model "
        f"--log-dir {logs} --log-format json --display plain"
    )
    proc = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", cmd],
        env=env,
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (log,) = logs.glob("*.json")
    return log


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_inspect_eval_oracle_then_import_and_verify(inspect_bin, demo, avb_on_path, tmp_path):
    """Inspect scores every gold output 1.0 with our verifier (reward.json's one key), and `avb verify` on the
    same outputs gives the same headline; with Inspect's logs in RUN/logs/, each task is audited from its own
    sample (inspect-harbor's sample id names the exported task)."""
    export = tmp_path / "export"
    assert (
        main(
            [
                "export",
                "harbor",
                "--out",
                str(export),
                "--dataset",
                str(demo.mirror),
                "--tasks",
                ",".join(map(str, TASKS)),
            ]
        )
        == 0
    )
    folders = {t["task_id"]: export / t["path"] for t in json.loads((export / LISTING).read_text())["tasks"]}
    run = tmp_path / "run"
    scores: dict[int, float] = {}
    for tid in TASKS:
        log_file = _inspect_oracle(inspect_bin, folders[tid], tmp_path / f"t{tid}", avb_on_path)
        log = json.loads(log_file.read_text())
        assert log["status"] == "success", log.get("error")
        (sample,) = log["samples"]
        score = sample["scores"]["harbor_scorer"]
        assert score["metadata"]["reward_dict"] == {"reward": score["value"]}
        scores[tid] = score["value"]
        shutil.copytree(tmp_path / f"t{tid}" / "root" / "workspace" / "output", run / str(tid))
        (run / "logs").mkdir(exist_ok=True)
        shutil.copy(log_file, run / "logs" / f"{tid}.json")  # the trajectory audit reads each task's sample
    (run / "run.json").write_text(json.dumps({"harness": "inspect-oracle", "model": "none", "rep": 1}))
    verify_run([run], dataset=str(demo.mirror), task_ids=TASKS, jobs=2)
    results = {r.task_id: r for r in iter_results(run)}
    assert sorted(results) == TASKS
    for tid, r in results.items():
        assert r.headline_score == pytest.approx(scores[tid], abs=1e-9), tid
        assert scores[tid] == pytest.approx(1.0, abs=1e-5), (tid, r.reason)
        block = r.provenance["trajectory"]
        assert block["status"] == "audited" and r.integrity == [], (tid, block)
        assert [(x["format"], x["path"]) for x in block["logs"]] == [("inspect", f"logs/{tid}.json")]
