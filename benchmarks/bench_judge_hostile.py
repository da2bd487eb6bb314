"""Time `avb demo` against hostile judge endpoints: one that accepts connections and never answers, and one that
trickles one byte every 2 s. Compares with the judge off (same machine, same demo) and prints the extra time the
judge costs as a multiple of the per-request deadline.

    PYTHONPATH=.:tests python benchmarks/bench_judge_hostile.py [--deadline 20] [--jobs 2]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import openai_server  # tests/openai_server.py, the loopback OpenAI-compatible server


def demo_seconds(dest: Path, jobs: int, extra: list[str]) -> float:
    """Wall-clock seconds of one `avb demo --force` scoring pass (the demo is already built)."""
    t0 = time.monotonic()
    subprocess.run(
        ["avb", "demo", "--dest", str(dest), "--force", "--jobs", str(jobs), *extra],
        check=True,
        capture_output=True,
    )
    return time.monotonic() - t0


def main() -> None:
    """Build the demo once, then time judge off, a silent endpoint and a trickling endpoint."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--deadline", type=float, default=20.0)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "demo"
        subprocess.run(["avb", "demo", "--dest", str(dest), "--no-score"], check=True, capture_output=True)
        base = demo_seconds(dest, args.jobs, ["--judge", "off"])
        print(f"judge off: {base:.1f} s")
        for mode in ("hang", "trickle"):
            with openai_server.FakeOpenAIServer() as srv:
                srv.hang = mode == "hang"
                srv.trickle_s = 2.0 if mode == "trickle" else 0.0
                secs = demo_seconds(
                    dest,
                    args.jobs,
                    [
                        "--judge",
                        "cache",
                        "--judge-base-url",
                        srv.base_url,
                        "--judge-timeout",
                        str(args.deadline),
                    ],
                )
            print(
                f"{mode}: {secs:.1f} s total = {secs / args.deadline:.2f} x deadline; judge overhead "
                f"{secs - base:.1f} s = {(secs - base) / args.deadline:.2f} x deadline; {srv.calls} request(s)"
            )


if __name__ == "__main__":
    main()
