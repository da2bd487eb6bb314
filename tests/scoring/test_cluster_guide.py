"""docs/guide/cluster.md's commands, run as written: a Dask scheduler, one `dask worker` command starting two
worker processes, and `avb verify --executor dask` scoring the whole demo through them (repair included, whose
edit pass starts processes of its own, so the workers must not be daemonic)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agenticvbench.demo import DemoBenchmark
from agenticvbench.results.model import iter_results
from agenticvbench.runs.submission import RESULTS_DIRNAME

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide" / "cluster.md"


def guide_commands() -> list[str]:
    """The guide's first bash block, comments dropped: scheduler, worker, client."""
    block = re.search(r"```bash\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert block
    lines = [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line]


def test_guide_shows_a_scheduler_a_worker_and_the_client() -> None:
    """The block is the three commands the end-to-end test below runs; the worker line has the options Dask needs
    for N > 1 (no `--no-nanny`) and the placeholders the test substitutes."""
    scheduler, worker, client = guide_commands()
    assert scheduler.startswith("dask scheduler ") and "HOST" in scheduler and "8786" in scheduler
    assert " dask worker tcp://HOST:8786 " in f" {worker} " and "--nworkers N" in worker
    assert "--no-nanny" not in worker and "DAEMON=False" in worker
    assert client.startswith("avb verify ") and "--executor dask --scheduler tcp://HOST:8786" in client


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _workers(address: str, want: int, procs: list[subprocess.Popen[bytes]], deadline: float) -> int:
    from distributed import Client

    with Client(address, timeout="30s") as client:
        while time.monotonic() < deadline:
            assert all(p.poll() is None for p in procs), "a guide command exited early"
            n = len(client.scheduler_info().get("workers", {}))
            if n >= want:
                return n
            time.sleep(0.5)
    return 0


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_cluster_guide_commands_score_the_demo(
    demo: DemoBenchmark, scored_demo_runs: dict[str, Path], tmp_path: Path
) -> None:
    """Scheduler and `--nworkers 2` on 127.0.0.1, then the guide's `avb verify` line (with `runs/*` holding copies
    of the demo's runs): exit 0 and every task scored as a local run scores it."""
    port = _free_port()
    subst = {"tcp://HOST:8786": f"tcp://127.0.0.1:{port}", "--nworkers N": "--nworkers 2"}
    scheduler, worker, client = guide_commands()
    for old, new in subst.items():
        worker, client = worker.replace(old, new), client.replace(old, new)
    scheduler = scheduler.replace("HOST", "127.0.0.1").replace("8786", str(port))
    assert "HOST" not in scheduler + worker + client and " N" not in worker.split("--nworkers")[1][:3]
    runs = tmp_path / "runs"
    for name, path in demo.runs.items():
        shutil.copytree(path, runs / name, ignore=shutil.ignore_patterns(RESULTS_DIRNAME))
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "AVB_DATASET": str(demo.mirror),
        "DASK_DISTRIBUTED__SCHEDULER__DASHBOARD": "False",
    }
    procs: list[subprocess.Popen[bytes]] = []
    logs = {name: (tmp_path / f"{name}.log").open("wb") for name in ("scheduler", "worker")}
    try:
        for name, line in (("scheduler", scheduler), ("worker", worker)):
            procs.append(
                subprocess.Popen(
                    line,
                    shell=True,
                    cwd=tmp_path,
                    env=env,
                    stdout=logs[name],
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
            if name == "scheduler":
                time.sleep(2)
        found = _workers(f"tcp://127.0.0.1:{port}", 2, procs, time.monotonic() + 120)
        assert found == 2, (tmp_path / "worker.log").read_text()[-2000:]
        avb = f"{shlex_quote(sys.executable)} -m agenticvbench.cli.main "
        done = subprocess.run(
            avb + client.removeprefix("avb "),
            shell=True,
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=500,
        )
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        for f in logs.values():
            f.close()
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    for name in demo.runs:
        remote = {r.task_id: r for r in iter_results([runs / name])}
        assert len(remote) == 9 and "error" not in {r.status for r in remote.values()}, name
        if name in scored_demo_runs:  # scored locally, once per session
            local = {r.task_id: r for r in iter_results([scored_demo_runs[name]])}
            assert {t: (r.status, r.headline_score) for t, r in remote.items()} == {
                t: (r.status, r.headline_score) for t, r in local.items()
            }, name


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)
