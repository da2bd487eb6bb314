"""Killing `verify` mid-run (SIGKILL, no cleanup) and rerunning completes the run without rescoring finished tasks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agenticvbench.results.model import read_result

SCRIPT = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from agenticvbench import verifiers
    from agenticvbench.scoring.engine import verify_run
    from agenticvbench.dataset.tasks import task_from_row
    from agenticvbench.verifiers.base import VerifierOutcome

    class Slow:
        family = "sequencing"
        version = "slow-1"
        def input_files(self, task, sub):
            return [sub.file("out.txt")]
        def verify(self, task, sub, ctx):
            log = Path(sys.argv[2])
            with open(log, "a") as fh:
                fh.write(f"{task.task_id}\\n")
            time.sleep(float(sys.argv[3]))
            return VerifierOutcome(final_score=1.0, adjusted_final_score=1.0)

    verifiers._REGISTRY["sequencing"] = Slow()
    tasks = [task_from_row({"task_id": t, "task_family": "sequencing", "prompt": "p", "reference_file_urls": [],
                            "verifier_reference_urls": None,
                            "rubric_json": json.dumps({"correct_order": ["1"], "n_slots": 1})})
             for t in range(37, 45)]
    s = verify_run(sys.argv[1], tasks=tasks, jobs=1)
    print(json.dumps({"resumed": s.n_resumed, "n": len(s.results)}))
""")


def _make_run(root: Path) -> Path:
    run = root / "run"
    for t in range(37, 45):
        (run / str(t)).mkdir(parents=True)
        (run / str(t) / "out.txt").write_text(str(t))
    return run


@pytest.mark.slow
def test_sigkill_mid_run_then_rerun_resumes(tmp_path):
    run = _make_run(tmp_path)
    script = tmp_path / "slow.py"
    script.write_text(SCRIPT)
    log1, log2 = tmp_path / "calls1.txt", tmp_path / "calls2.txt"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, str(script), str(run), str(log1), "0.4"], env=env)
    results = run / "avb-results"
    deadline = time.time() + 60
    while time.time() < deadline and len(list(results.glob("*.json"))) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    done_before = {int(p.stem) for p in results.glob("*.json")}
    assert 3 <= len(done_before) < 8, "the kill must land mid-run"
    assert all(read_result(results / f"{t}.json") is not None for t in done_before), "no torn result files"

    out = subprocess.run(
        [sys.executable, str(script), str(run), str(log2), "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    rescored = {int(x) for x in log2.read_text().split()}
    assert summary["n"] == 8
    assert rescored.isdisjoint(done_before), "finished tasks were rescored"
    assert rescored | done_before == set(range(37, 45))
    assert summary["resumed"] == len(done_before)
