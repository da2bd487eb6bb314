"""Per-task memory growth of honest scoring, to size the per-task memory cap (`scoring/memory_cap.py`).

Each task of a demo run is scored alone in a fresh process (`verify_run(..., jobs=1, force=True)`, judge off,
the cap off) while a thread reads `/proc/self/status` every 10 ms. Printed per task: the growth of the data
segment (VmData, what `RLIMIT_DATA` limits) over its size before scoring, and the peak RSS (VmHWM).

    python benchmarks/bench_task_memory.py [--demo DIR] [--size small|full] [--run perfect]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import json, sys, threading, time
from pathlib import Path
from agenticvbench.scoring.engine import verify_run

def status():
    out = {}
    for line in open("/proc/self/status"):
        k, _, v = line.partition(":")
        if k in ("VmData", "VmHWM"):
            out[k] = int(v.split()[0]) // 1024
    return out

base = status()["VmData"]
peak = [base]
stop = threading.Event()
def watch():
    while not stop.wait(0.01):
        peak[0] = max(peak[0], status()["VmData"])
t = threading.Thread(target=watch, daemon=True); t.start()
t0 = time.perf_counter()
s = verify_run(sys.argv[1], dataset=sys.argv[2], task_ids=[int(sys.argv[3])], jobs=1, force=True,
               out=Path(sys.argv[4]))
stop.set(); t.join()
r = s.results[0]
print(json.dumps({"task": r.task_id, "family": r.family, "status": r.status, "data_growth_mb": peak[0] - base,
                  "hwm_mb": status()["VmHWM"], "wall_s": round(time.perf_counter() - t0, 2)}))
"""


def main() -> None:
    """Score every task of one demo run alone and print one JSON line per task."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--demo", type=Path, help="an existing demo build (default: build one in a temp dir)")
    ap.add_argument("--size", default="small")
    ap.add_argument("--run", default="perfect")
    args = ap.parse_args()
    demo = args.demo
    if demo is None:
        from agenticvbench.demo import build_demo

        demo = Path(tempfile.mkdtemp(prefix="avb-mem-")) / "build"
        build_demo(demo, size=args.size) if args.size != "small" else build_demo(demo)
    run = demo / "runs" / args.run
    env = {**os.environ, "AVB_TASK_MEMORY_MB": "0"}
    with tempfile.TemporaryDirectory() as out:
        for folder in sorted((p for p in run.iterdir() if p.name.isdigit()), key=lambda p: int(p.name)):
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, str(run), str(demo / "mirror"), folder.name, out],
                capture_output=True, text=True, env=env, check=False,
            )  # fmt: skip
            line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else json.dumps(
                {"task": folder.name, "failed": proc.stderr[-300:]}
            )  # fmt: skip
            print(line, flush=True)


if __name__ == "__main__":
    main()
