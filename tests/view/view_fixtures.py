"""Helpers of the `avb view` tests (a module with a unique name: `conftest` is ambiguous across test folders)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loopback import serving

from agenticvbench.runs.submission import RESULTS_DIRNAME
from agenticvbench.scoring.engine import verify_run
from agenticvbench.view import ViewApp, make_server, url_of
from tests.trajectory import traj_logs as logs


@dataclass
class Served:
    """A running view server."""

    app: ViewApp
    url: str
    base: str


def serve(app: ViewApp) -> Iterator[Served]:
    """Run `app` on 127.0.0.1 until the generator is closed."""
    httpd = make_server(app)
    url = url_of(httpd, app)
    with serving(httpd):
        yield Served(app, url, url.split("/?")[0])


PLANTED = "PLANTED-ANSWER-7f3a9c"  # what a flagged step "received": must never reach a bundle
HOSTILE = "<script>alert('x')</script>\u202egnp.exe"
TRAJ_TASKS = [37, 38, 83]  # 83 has no log in the partial run


def traj_calls(parquet: Path) -> list[logs.Call]:
    """Task 37's log: a probe, a frame extraction, a look at a frame, a read of the official dataset's parquet that
    returns the planted answer (flagged answer_access), a cut with ffmpeg, a call with markup in it."""
    return [
        logs.shell("ffprobe -v error -show_format clips/a.mp4", result='{"format": {"duration": "4.0"}}'),
        logs.shell("ffmpeg -i clips/a.mp4 -vf fps=1 frames/a_%03d.png"),
        logs.Call("read", "frames/a_001.png", "an image"),
        logs.shell(f"python -c 'read(\"{parquet}\")'", result=f"correct_order {PLANTED}"),
        logs.shell("ffmpeg -i clips/a.mp4 -t 2 -c copy cut.mp4"),
        logs.shell(f"echo {HOSTILE}", result=HOSTILE),
    ]


#: The official dataset's parquet as a user's Hub cache holds it: what task 37's agent reads (a neutral path, so
#: the guide's screenshot of its timeline names no folder of the test's machine).
HUB_PARQUET = Path(
    "/home/you/.cache/huggingface/hub/datasets--Anonymous47621123--AgenticVBench_100/snapshots/main/data/"
    "train-00000-of-00001.parquet"
)
LONG = 5000  # calls of the perfect run's log for task 83 (its call FAR reads the parquet)
FAR = 3000


def write_traj_runs(demo: Any, root: Path) -> dict[str, Path]:
    """The partial run: an ATIF log for 37 (flagged), a Claude Code log for 38 with a failed call, none for 83.
    The perfect run (which solved every task here): a clean log for 37, a log for 38 that is a symlink (not
    read), a 5,000-step log for 83. Both copied into `root` and scored for `TRAJ_TASKS`."""
    out = {}
    for name in ("partial", "perfect"):
        out[name] = root / name
        shutil.copytree(demo.runs[name], out[name], ignore=shutil.ignore_patterns(RESULTS_DIRNAME))
    parquet = next(demo.mirror.rglob("*.parquet"))
    logs.write(out["partial"] / "37", "atif", traj_calls(HUB_PARQUET))
    text = logs.claude_code([logs.shell("ls"), logs.shell("cat missing.txt", result="No such file")])
    lines = [json.loads(line) for line in text.splitlines()]
    for line in lines:  # the second call failed
        for block in line.get("message", {}).get("content", []):
            if block.get("tool_use_id") == "toolu_1":
                block["is_error"] = True
    (out["partial"] / "38" / "agent").mkdir(parents=True)
    (out["partial"] / "38" / "agent" / "claude-code.txt").write_text("\n".join(map(json.dumps, lines)) + "\n")
    logs.write(out["perfect"] / "37", "atif", [logs.shell("cat > solution.json <<EOF\n[1, 2, 3]\nEOF")])
    (root / "elsewhere.txt").write_text(text)
    (out["perfect"] / "38" / "agent").mkdir(parents=True)
    (out["perfect"] / "38" / "agent" / "claude-code.txt").symlink_to(root / "elsewhere.txt")
    calls = [logs.shell(f"echo {i}") for i in range(LONG)]
    calls[FAR] = logs.shell(f"cat {parquet}")
    logs.write(out["perfect"] / "83", "claude-code", calls)
    verify_run(list(out.values()), dataset=demo.mirror, task_ids=TRAJ_TASKS, jobs=1, cache_dir=root / "cache")
    return out
