"""Benchmark: how long each test tier takes, on a clean clone of this checkout (what CONTRIBUTING.md promises).

What it prints, per tier (`fast` = `pytest -q -m "not slow"`, `full` = `pytest -q`, README's command,
`privileges` = `pytest -q -m privileges`, the tests CI runs again without root): wall seconds, and the counts
pytest reports. Each tier runs in a fresh `git clone` of HEAD (no caches from this working tree) with the
interpreter that runs this script, so the package must be installed there (`pip install -e ".[test]"`). The
machine may be shared: run it when it is quiet, and read `uptime` (printed first) before trusting a figure.

Usage: `python benchmarks/bench_test_tiers.py [--tiers fast,full,privileges] [--json]`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TIERS = {
    "fast": ["-m", "not slow"],
    "full": [],
    "privileges": ["-m", "privileges"],
}


def run_tier(name: str, clone: Path) -> dict[str, object]:
    """Run one tier in `clone`; its wall time and pytest's closing counts."""
    cmd = [sys.executable, "-m", "pytest", "-q", *TIERS[name]]
    env = {**os.environ, "PYTHONPATH": str(clone)}
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=clone, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|deselected|errors?)", tail)}
    return {"tier": name, "wall_s": round(wall, 1), "exit": done.returncode, **counts}


def main() -> int:
    """Clone HEAD, run the tiers asked for, print one line (or a JSON object) per tier."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiers", default="fast,full,privileges", help="comma-separated: fast, full, privileges")
    ap.add_argument("--json", action="store_true", help="one JSON object per tier")
    args = ap.parse_args()
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    with tempfile.TemporaryDirectory(prefix="avb-bench-tiers-") as tmp:
        clone = Path(tmp) / "src"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        for name in args.tiers.split(","):
            row = run_tier(name.strip(), clone)
            print(json.dumps(row) if args.json else " ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
