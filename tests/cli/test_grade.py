"""`avb grade` as a user runs it: a process that prints a tokenised loopback URL and serves the page."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request


def test_avb_grade_serves_on_loopback_with_a_token(demo, tmp_path) -> None:
    """The command binds 127.0.0.1, prints the URL with its token, lists the run's recap submissions, and
    refuses a request without the token."""
    run = tmp_path / "run"
    shutil.copytree(demo.runs["perfect"], run, ignore=shutil.ignore_patterns("avb-results"))
    proc = subprocess.Popen([sys.executable, "-m", "agenticvbench.cli.main", "grade", str(run), "--dataset",
                             str(demo.mirror), "--cache-dir", str(tmp_path / "cache"), "--grader", "dana"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ})
    try:
        url = ""
        assert proc.stdout is not None
        for _ in range(5):
            line = proc.stdout.readline()
            if line.startswith("open: "):
                url = line.split("open: ", 1)[1].strip()
                break
        assert url.startswith("http://127.0.0.1:") and "token=" in url
        base, token = url.split("/?token=")
        with urllib.request.urlopen(f"{base}/api/state?token={token}", timeout=10) as resp:
            state = json.loads(resp.read())
        assert state["grader"] == "dana" and [s["task_id"] for s in state["submissions"]] == [1, 2]
        try:
            urllib.request.urlopen(f"{base}/api/state", timeout=10)
            raise AssertionError("a request without the token was served")
        except urllib.error.HTTPError as exc:
            assert exc.code == 403
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
