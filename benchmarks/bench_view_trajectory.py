"""Time a task page of `avb view` whose agent log is long: the trajectory section (`view.timeline`).

    python benchmarks/bench_view_trajectory.py [--steps 5000 50000] [--demo DIR] [--reps 3]

For each size, a copy of the demo's partial run gets a Claude Code stream-json log for task 37 (written by the
trajectory tests' generator, `tests/trajectory/traj_logs.py`: a text step and a tool call per turn, so N steps
are N/2 calls), one call in the middle reading the parquet being scored (a flagged step), and the task is scored
(`avb verify`, which audits the log and records its SHA-256). Then, in this process:

- `read`: the log read alone (`trajectory.locate.read_log`), the reader the audit and the page share;
- `section`: the trajectory section's data (hash, read, hash again, rows);
- `page`: the whole task page, first (template compiled) and the median of `--reps` more;
- the page's size and the number of steps it draws (`view.timeline.MAX_ROWS` and the flagged one).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agenticvbench.demo import build_demo
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.submission import RESULTS_DIRNAME
from agenticvbench.scoring.engine import verify_run
from agenticvbench.trajectory.locate import read_log
from agenticvbench.view import Thumbnailer, build_model
from agenticvbench.view.disclosure import LOCAL
from agenticvbench.view.pages import Site, task_page
from agenticvbench.view.timeline import section

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "trajectory"))
import traj_logs as logs  # noqa: E402  (the trajectory tests' log writers)

TASK = 37


def _timed(fn):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def bench(demo, root: Path, steps: int, reps: int) -> None:  # type: ignore[no-untyped-def]
    """One size: write, score, read and render (module docstring)."""
    run = root / f"run-{steps}"
    shutil.copytree(demo.runs["partial"], run, ignore=shutil.ignore_patterns(RESULTS_DIRNAME))
    parquet = next(demo.mirror.rglob("*.parquet"))
    calls = [
        logs.shell(f"ffmpeg -ss {i} -i clips/{i % 5}.mp4 -frames:v 1 f_{i}.png") for i in range(steps // 2)
    ]
    calls[len(calls) // 2] = logs.shell(f"cat {parquet}")
    log = logs.write(run / str(TASK), "claude-code", calls)
    _, scored = _timed(lambda: verify_run([run], dataset=demo.mirror, task_ids=[TASK], jobs=1))
    with JobDir(run) as job:
        traj, read_s = _timed(lambda: read_log(job, (str(TASK), "agent", log.name)))
    model = build_model([run], dataset=demo.mirror, resamples=0)
    cell = model.cell(0, TASK)
    assert cell is not None
    sec, section_s = _timed(lambda: section(model, LOCAL, cell))
    thumbs = Thumbnailer(root / "thumbs", progress=False)
    page, first = _timed(lambda: task_page(model, Site(), thumbs, 0, TASK))
    warm = [_timed(lambda: task_page(model, Site(), thumbs, 0, TASK))[1] for _ in range(reps)]
    drawn = page.count('<tr id="step-')
    print(
        f"{steps:>6} steps ({log.stat().st_size / 2**20:.1f} MiB log, {len(traj.steps)} read): "
        f"scored {scored:.2f} s; read {read_s * 1000:.0f} ms; section {section_s * 1000:.0f} ms; "
        f"page first {first * 1000:.0f} ms, warm median {statistics.median(warm) * 1000:.0f} ms; "
        f"page {len(page) / 1024:.0f} KiB, {drawn} steps drawn, flags {len(sec['flags'])}"
    )


def main() -> None:
    """Build (or reuse) the demo and time each size."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--steps", type=int, nargs="+", default=[5000, 50000])
    ap.add_argument("--demo", type=Path, default=None, help="a demo built before (else one is built)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        demo = build_demo(args.demo or root / "demo")
        for steps in args.steps:
            bench(demo, root, steps, args.reps)


if __name__ == "__main__":
    main()
