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

import pytest


@pytest.mark.slow
def test_avb_grade_serves_on_loopback_with_a_token(demo, tmp_path) -> None:
    """The command binds 127.0.0.1, prints the URL with its token, lists the run's recap submissions, and
    refuses a request without the token."""
    run = tmp_path / "run"
    shutil.copytree(demo.runs["perfect"], run, ignore=shutil.ignore_patterns("avb-results"))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agenticvbench.cli.main",
            "grade",
            str(run),
            "--dataset",
            str(demo.mirror),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--grader",
            "dana",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
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


def test_nothing_to_grade_exits_at_once_with_one_line(demo, tmp_path, capsys) -> None:
    """Regression: a run without recap outputs printed "grading 0 submission(s)" and served an empty page until
    killed; it now stops at once with one line and the input-error exit code."""
    from agenticvbench.cli.main import EXIT_INPUT, main

    run = tmp_path / "gold"
    shutil.copytree(demo.runs["perfect"] / "37", run / "37")
    assert (
        main(
            [
                "grade",
                str(run),
                "--dataset",
                str(demo.mirror),
                "--cache-dir",
                str(tmp_path / "c"),
                "--grader",
                "bob",
            ]
        )
        == EXIT_INPUT
    )
    out = capsys.readouterr()
    assert out.out == "" and out.err.strip().splitlines() == [
        "avb: error: nothing to grade: no recap final.mp4 with llm items in these runs"
    ]
