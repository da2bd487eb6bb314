"""Render the HTML report in headless Chromium and check the screenshot is a real page, not a blank one.

This is a script, not a test, because Chromium is a system package the test environment does not have (a test
that skipped without it would pass without checking anything). Run it where Chromium is installed:

    python benchmarks/screenshot_report.py                     # the demo, scored for the fast families
    python benchmarks/screenshot_report.py RUN_DIR [RUN_DIR...] --out /tmp/shots

Exit status: 0 the screenshot looks like a rendered report; 1 it does not; 2 Chromium not found.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CANDIDATES = ("chromium", "chromium-browser", "chromium-headless-shell", "google-chrome")


def find_chromium(explicit: str | None) -> str | None:
    """The Chromium executable to use, or None."""
    if explicit:
        return explicit if Path(explicit).exists() or shutil.which(explicit) else None
    return next((p for p in (shutil.which(c) for c in CANDIDATES) if p), None)


def demo_report_html(work: Path, families: list[str]) -> str:
    """Build the demo in `work`, score `families`, and render the report."""
    from agenticvbench.dataset.loader import load_tasks
    from agenticvbench.demo import build_demo
    from agenticvbench.report import build_report, load_comparison, render_html
    from agenticvbench.scoring.engine import verify_run

    demo = build_demo(work / "demo")
    tasks = [t for t in load_tasks(dataset=demo.mirror) if t.family in families]
    verify_run(list(demo.runs.values()), dataset=demo.mirror, tasks=tasks, cache_dir=work / "cache")
    return render_html(build_report(load_comparison(list(demo.runs.values())), tasks=tasks))


def screenshot(chromium: str, html: Path, png: Path, width: int = 1280, height: int = 3000) -> float:
    """Headless screenshot of a local HTML file; returns the seconds it took."""
    t0 = time.perf_counter()
    subprocess.run(
        [
            chromium,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--hide-scrollbars",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            html.resolve().as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return time.perf_counter() - t0


def analyse(png: Path) -> dict[str, float]:
    """Size, share of non-white pixels, distinct colours and the share of 'plot-coloured' (saturated) pixels."""
    import matplotlib.image as mpimg

    img = (mpimg.imread(png)[..., :3] * 255).astype(np.uint8)
    flat = img.reshape(-1, 3)
    non_white = float((flat.min(axis=1) < 235).mean())
    saturated = float(((flat.max(axis=1).astype(int) - flat.min(axis=1)) > 60).mean())
    colours = len(np.unique(flat[:: max(1, len(flat) // 200000)], axis=0))
    return {
        "width": img.shape[1],
        "height": img.shape[0],
        "bytes": png.stat().st_size,
        "non_white": non_white,
        "saturated": saturated,
        "colours": colours,
    }


def looks_rendered(stats: dict[str, float]) -> list[str]:
    """Reasons the screenshot does not look like a rendered report (empty list = it does)."""
    problems = []
    if stats["width"] < 1000 or stats["height"] < 1000:
        problems.append(f"screenshot only {stats['width']}x{stats['height']}")
    if stats["non_white"] < 0.03:
        problems.append(f"only {stats['non_white']:.1%} of the pixels are not white (blank page?)")
    if stats["saturated"] < 0.005:
        problems.append(f"only {stats['saturated']:.2%} coloured pixels (plots missing?)")
    if stats["colours"] < 200:
        problems.append(f"only {stats['colours']} distinct colours (plots missing?)")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Render, screenshot, analyse, print the numbers."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="*", help="scored run directories (default: the demo)")
    ap.add_argument("--families", default="sequencing,assembly,repair", help="demo families to score")
    ap.add_argument("--out", type=Path, default=None, help="keep report.html and report.png here")
    ap.add_argument("--chromium", default=None, help="Chromium executable (default: search PATH)")
    args = ap.parse_args(argv)
    chromium = find_chromium(args.chromium)
    if chromium is None:
        print("chromium not found (apt-get install chromium); nothing checked", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="avb-shot-") as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        if args.runs:
            from agenticvbench.report import build_report, load_comparison, render_html

            page = render_html(build_report(load_comparison(args.runs)))
        else:
            page = demo_report_html(Path(tmp), args.families.split(","))
        html, png = out / "report.html", out / "report.png"
        html.write_text(page, encoding="utf-8")
        seconds = screenshot(chromium, html, png)
        stats = analyse(png)
    print(
        f"chromium {chromium}: {seconds:.1f} s; html {len(page) / 1e3:.0f} kB; screenshot "
        + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in stats.items())
    )
    problems = looks_rendered(stats)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
