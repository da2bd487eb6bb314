"""Process hygiene: pool workers never outlive `avb verify`, whatever kills it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent("""
    import json, os, sys, time
    from pathlib import Path
    from agenticvbench import verifiers
    from agenticvbench.cli.main import main
    from agenticvbench.verifiers.base import VerifierOutcome

    class Slow:
        family = "sequencing"
        version = "slow-1"
        def input_files(self, task, sub):
            return []
        def verify(self, task, sub, ctx):
            with open(sys.argv[2], "a") as fh:
                fh.write(f"{os.getpid()}\\n")
            time.sleep(60)
            return VerifierOutcome(final_score=1.0, adjusted_final_score=1.0)

    verifiers._REGISTRY["sequencing"] = Slow()
    sys.exit(main(["verify", sys.argv[1], "--dataset", sys.argv[3], "--family", "sequencing", "--jobs", "2"]))
""")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead: it only waits for its (new) parent to reap it
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _start(tmp_path: Path, demo) -> tuple[subprocess.Popen[bytes], Path]:
    run = tmp_path / "run"
    for t in (37, 38):
        (run / str(t)).mkdir(parents=True)
    script, pids = tmp_path / "slow.py", tmp_path / "pids.txt"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, str(script), str(run), str(pids), str(demo.mirror)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 60
    while time.time() < deadline and (not pids.exists() or len(pids.read_text().split()) < 2):
        time.sleep(0.05)
    assert pids.exists() and len(pids.read_text().split()) == 2, "both workers must be busy"
    return proc, pids


def _workers_gone(pids: Path, within: float) -> bool:
    workers = [int(x) for x in pids.read_text().split()]
    deadline = time.time() + within
    while time.time() < deadline:
        if not any(_alive(p) for p in workers):
            return True
        time.sleep(0.1)
    for p in workers:  # do not leave them behind if the test fails
        if _alive(p):
            os.kill(p, signal.SIGKILL)
    return False


@pytest.mark.slow
def test_sigkill_of_verify_takes_its_workers_down(tmp_path, demo):
    """kill -9 of `avb verify` left its pool workers running (and writing results) for as long as their tasks ran."""
    proc, pids = _start(tmp_path, demo)
    proc.kill()
    proc.wait(timeout=10)
    assert _workers_gone(pids, within=5.0), "workers outlived their parent by more than 5 s"


@pytest.mark.slow
def test_ctrl_c_exits_130_without_leftovers(tmp_path, demo):
    """Ctrl-C keeps its behaviour: exit status 130, a one-line message, and no worker left running."""
    proc, pids = _start(tmp_path, demo)
    proc.send_signal(signal.SIGINT)
    for p in (
        int(x) for x in pids.read_text().split()
    ):  # a terminal sends SIGINT to the whole foreground group
        os.kill(p, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and b"interrupted" in err
    assert _workers_gone(pids, within=5.0)
