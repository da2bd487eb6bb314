"""Peak RSS and wall time of scoring one task whose submission holds one hostile input (docs/security.md).

Each case copies the demo `perfect` run, plants one input, and scores that single task in a fresh process
(`verify_run(..., jobs=1)`, judge off); the peak RSS is the child's `ru_maxrss` from `wait4`. The baseline rows
score the untouched run, so the table shows what each hostile input adds.

    python benchmarks/bench_hostile_rss.py [--demo DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import imageio_ffmpeg

from agenticvbench.demo import build_demo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from adversarial import lying_sample_table, scale_durations  # noqa: E402  (the tests' hostile-input builder)

CHILD = """
import json, sys
from agenticvbench.scoring.engine import verify_run
s = verify_run(sys.argv[1], dataset=sys.argv[2], task_ids=[int(sys.argv[3])], jobs=1)
r = s.results[0]
print(json.dumps({"status": r.status, "reason": r.reason[:90]}))
"""


def _ffmpeg(*args: str) -> None:
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y", *args], check=True)


def _sparse(size: int) -> Callable[[Path], None]:
    def plant(p: Path) -> None:
        p.unlink(missing_ok=True)
        with open(p, "wb") as fh:
            fh.truncate(size)

    return plant


def _many_segments(p: Path) -> None:
    seg = '{"source": "1.mp4", "start": 0.0, "end": 1.0},'
    n = (5 * 1024 * 1024 - 64) // len(seg)
    p.write_text('{"segments": [' + seg * (n - 1) + seg[:-1] + "]}")


def _long_report(p: Path) -> None:
    p.write_text("## Diagnosis\n" + "0:01.00-0:02.00 " * ((1024 * 1024 - 64) // 16))


def _big_frames(
    width: int, height: int, seconds: int, pix_fmt: str = "yuv420p", fps: int = 2
) -> Callable[[Path], None]:
    def plant(p: Path) -> None:
        _ffmpeg(
            "-f",
            "lavfi",
            "-i",
            f"testsrc2=s={width}x{height}:r={fps}:d={seconds}",
            "-f",
            "lavfi",
            "-i",
            f"sine=d={seconds}",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            pix_fmt,
            "-c:a",
            "aac",
            "-shortest",
            str(p),
        )

    return plant


def _long_header(p: Path) -> None:
    _ffmpeg(
        "-f",
        "lavfi",
        "-i",
        "color=s=16x16:r=1:d=2",
        "-vf",
        "setpts=N*40000/TB",
        "-fps_mode",
        "passthrough",
        "-c:v",
        "libx264",
        str(p),
    )


def _lying_table(p: Path) -> None:
    lying_sample_table(p, p)


def _halved(p: Path) -> None:
    scale_durations(p, p, 0.5)


def _hours_behind_short_header(p: Path) -> None:
    long = p.with_name("long.tmp.mp4")
    _ffmpeg(
        "-f", "lavfi", "-i", "color=s=16x16:r=1:d=18000", "-c:v", "libx264", "-preset", "ultrafast", str(long)
    )
    scale_durations(long, p, 10 / 18000)
    long.unlink()


CASES: list[tuple[str, int, str, Callable[[Path], None] | None]] = [
    ("baseline recap", 2, "final.mp4", None),
    ("baseline sequencing", 38, "solution.json", None),
    ("baseline repair", 66, "fixed.mp4", None),
    ("2 GB sparse report.md", 66, "report.md", _sparse(2 * 1024**3)),
    ("2 GB sparse fixed.mp4 (under the media cap)", 66, "fixed.mp4", _sparse(2 * 1024**3)),
    ("5 MB solution.json, 100k segments", 38, "solution.json", _many_segments),
    ("1 MB one-line report.md of windows", 66, "report.md", _long_report),
    ("header declaring 40001 s", 66, "fixed.mp4", _long_header),
    ("8192x8192 fixed.mp4 (refused)", 66, "fixed.mp4", _big_frames(8192, 8192, 2)),
    (
        "4096x4096 yuv444p10 fixed.mp4, 10 s at 25 fps",
        66,
        "fixed.mp4",
        _big_frames(4096, 4096, 10, "yuv444p10le", 25),
    ),
    ("8192x2048 yuv444p10 fixed.mp4, 10 s", 66, "fixed.mp4", _big_frames(8192, 2048, 10, "yuv444p10le")),
    (
        "4096x4096 yuv444p10 final.mp4, 10 s (recap)",
        2,
        "final.mp4",
        _big_frames(4096, 4096, 10, "yuv444p10le"),
    ),
    ("1.7 kB fixed.mp4 whose stsz declares 30 M samples", 66, "fixed.mp4", _lying_table),
    ("5 h of frames behind a 10-s header (repair)", 66, "fixed.mp4", _hours_behind_short_header),
    ("recap final.mp4 with its header durations halved", 2, "final.mp4", _halved),
]


def _run_child(run: Path, mirror: Path, task: int) -> tuple[float, float, str]:
    env = {**os.environ, "AVB_JUDGE_MODE": "off"}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(run), str(mirror), str(task)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    line = (
        out.strip().splitlines()[-1]
        if out.strip()
        else json.dumps({"status": f"exit {status}", "reason": ""})
    )
    info = json.loads(line)
    return usage.ru_maxrss / 1024, wall, f"{info['status']}: {info['reason']}"


def main() -> None:
    """Print one markdown row per case: peak RSS (MiB), wall seconds, resulting status and reason."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--demo", help="an existing demo build (default: build one in a temp dir)")
    ap.add_argument("--only", default="", help="run only the cases whose name contains this text")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="avb-rss-") as tmp:
        demo = build_demo(args.demo or Path(tmp) / "demo")
        print("| case | peak RSS (MiB) | wall (s) | result |\n|---|---:|---:|---|")
        for i, (name, task, fname, plant) in enumerate(CASES):
            if args.only not in name:
                continue
            run = Path(tmp) / f"run{i}"
            shutil.copytree(demo.runs["perfect"], run, ignore=shutil.ignore_patterns("avb-results"))
            folder = run / str(task) / "output" if (run / str(task) / "output").is_dir() else run / str(task)
            if plant is not None:
                plant(folder / fname)
            rss, wall, what = _run_child(run, demo.mirror, task)
            print(f"| {name} | {rss:.0f} | {wall:.1f} | {what} |", flush=True)
            shutil.rmtree(run)


if __name__ == "__main__":
    main()
