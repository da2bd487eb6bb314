"""Time `avb view` on a built and scored demo: the model, the overview and every task page, cold and cached.

    python benchmarks/view_bench.py --demo DIR [--reps 3] [--size-1080p]

DIR is an `avb demo --dest DIR` folder (mirror/ and runs/ with avb-results/). With `--reps N` each run folder is
copied N times (distinct paths, so the grid has runs x N columns, as for a stack scored N times). Prints:

- `model`: reading the results, the report (bootstrap) and the tasks (`build_model`);
- `cold`: the overview and every task page rendered the first time, thumbnails made (the first `avb view`);
- `warm`: a fresh model and fresh pages again, thumbnails already cached (any later `avb view` of these runs);
- `memory`: with `--size-1080p`, the peak RSS of a child process thumbnailing 8 frames of a generated
  1920x1080 video, against the same child importing the decoder only.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agenticvbench.view import Thumbnailer, build_model
from agenticvbench.view.pages import Site, overview, task_page


def copies(demo: Path, reps: int, where: Path) -> list[Path]:
    """The demo's run folders, each copied `reps` times (a single rep uses the folders as they are)."""
    runs = sorted(p for p in (demo / "runs").iterdir() if p.is_dir())
    if reps <= 1:
        return runs
    out = []
    for run in runs:
        for k in range(1, reps + 1):
            dst = where / f"{run.name}-rep{k}"
            shutil.copytree(run, dst, symlinks=True)
            out.append(dst)
    return out


def render_all(runs: list[Path], demo: Path, cache: Path) -> dict[str, float | int]:
    """Build the model and render every page once; seconds per step."""
    t0 = time.perf_counter()
    model = build_model(runs, dataset=demo / "mirror")
    t1 = time.perf_counter()
    site, thumbs = Site(), Thumbnailer(cache, progress=False)
    overview(model, site)
    t2 = time.perf_counter()
    times = []
    for fam in model.families:
        for tid in model.task_ids(fam):
            for r in model.runs:
                s = time.perf_counter()
                task_page(model, site, thumbs, r.index, tid)
                times.append(time.perf_counter() - s)
    return {
        "model_s": t1 - t0,
        "overview_s": t2 - t1,
        "pages": len(times),
        "page_median_s": statistics.median(times),
        "page_max_s": max(times),
        "pages_total_s": sum(times),
        "thumbs_made": thumbs.made,
        "cells": len(times),
    }


CHILD = """
import resource, sys, time
from pathlib import Path
import av, cv2  # the decoding stack, loaded in both modes
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if sys.argv[2] == "thumbs":
    from agenticvbench.view.thumbs import Thumbnailer
    t = time.perf_counter()
    names = Thumbnailer(Path(sys.argv[3]), progress=False).frames(Path(sys.argv[1]), [0.5 + k for k in range(8)])
    assert all(names), names
    print(f"{time.perf_counter() - t:.2f}", end=" ")
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def video_1080p(path: Path, seconds: int = 10) -> Path:
    """A 1920x1080 25 fps x264 video of moving noise (hard to compress, so frames are real-sized)."""
    import av
    import numpy as np

    rng = np.random.default_rng(0)
    with av.open(str(path), "w") as out:
        s = out.add_stream("libx264", rate=25)
        s.width, s.height, s.pix_fmt = 1920, 1080, "yuv420p"
        s.options = {"preset": "ultrafast"}
        base = rng.integers(0, 255, (1080, 1920, 3), dtype=np.uint8)
        for k in range(25 * seconds):
            frame = np.roll(base, 8 * k, axis=1)
            for p in s.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                out.mux(p)
        for p in s.encode():
            out.mux(p)
    return path


def main() -> None:
    """Parse the options, run the measurements and print them."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--demo", type=Path, required=True)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--size-1080p", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        runs = copies(args.demo, args.reps, where)
        cache = where / "cache"
        for label in ("cold", "warm"):
            r = render_all(runs, args.demo, cache)
            print(
                f"{label}: {len(runs)} run(s), {r['cells']} cells; model {r['model_s']:.2f} s, overview "
                f"{r['overview_s'] * 1000:.0f} ms, task page median {r['page_median_s'] * 1000:.0f} ms / max "
                f"{r['page_max_s'] * 1000:.0f} ms (all {r['pages_total_s']:.1f} s), {r['thumbs_made']} thumbnail(s) made"
            )
        if args.size_1080p:
            video = video_1080p(where / "big.mp4")
            for mode in ("import", "thumbs"):
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, str(video), mode, str(where / f"c-{mode}")],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.split()
                print(f"memory ({mode}): " + " ".join(out) + " (seconds, RSS growth KiB, peak RSS KiB)")


if __name__ == "__main__":
    main()
