"""What screening (`integrity.screen_inputs`) costs per repair task: the content identity, the frame count and
the re-encode signature against the other tasks' references, before and after a change.

Each repair task of a demo run is screened once cold (the first call of the process for that task: references
described and cached) and then `--reps` times warm (medians), wall and CPU seconds (this process and its
ffmpeg children). Point PYTHONPATH at another checkout to time that one on the same demo.

    python benchmarks/bench_integrity_cost.py --demo DIR [--run perfect] [--reps 5]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time
from pathlib import Path


def _cpu() -> float:
    """CPU seconds of this process and its finished children (ffmpeg), user + system."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    """Print one JSON line per repair task: cold and warm (median) screening seconds, and the flags."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--demo", type=Path, required=True)
    ap.add_argument("--run", default="perfect")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    from agenticvbench.dataset.loader import load_tasks
    from agenticvbench.fsutil import file_sha256
    from agenticvbench.integrity.leaks import dataset_references
    from agenticvbench.integrity.screen import screen_inputs
    from agenticvbench.runs.submission import open_run

    tasks = load_tasks(dataset=args.demo / "mirror")
    refs, _ = dataset_references(tasks)
    run = open_run(args.demo / "runs" / args.run)
    for task in [t for t in tasks if t.family == "repair"]:
        sub = run.submission(task.task_id)
        files = [p for p in (sub.task_root.rglob("*") if sub.task_root else []) if p.is_file()]
        hashes = {p: file_sha256(p) for p in files if sub.owns(p)}
        t0, c0 = time.perf_counter(), _cpu()
        flags = screen_inputs(task, sub, hashes, refs).flags
        cold, cold_cpu = time.perf_counter() - t0, _cpu() - c0
        warm, warm_cpu = [], []
        for _ in range(args.reps):
            t0, c0 = time.perf_counter(), _cpu()
            screen_inputs(task, sub, hashes, refs)
            warm.append(time.perf_counter() - t0)
            warm_cpu.append(_cpu() - c0)
        print(json.dumps({
            "task": task.task_id, "cold_s": round(cold, 3), "cold_cpu_s": round(cold_cpu, 3),
            "warm_s": round(statistics.median(warm), 3), "warm_cpu_s": round(statistics.median(warm_cpu), 3),
            "flags": flags,
        }))  # fmt: skip


if __name__ == "__main__":
    main()
