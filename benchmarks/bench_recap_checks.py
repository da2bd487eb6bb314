"""Benchmark: the recap python checks on a full-size `final.mp4`, measurement by measurement, against one decode.

Generates (once) a 180-s 1920x1080 30-fps clip with scene cuts and text cards (testsrc2 / rgbtestsrc / smptebars / testsrc
scenes, a sine tone), then, in one fresh `MediaFacts` (no disk cache), times every measurement the 20 check kinds
draw on: probe, the black+freeze filter pass, the decode-error pass, volumedetect, loudnorm, a luma probe, shot
detection, the 22 050-Hz audio and its RMS, and the OCR text at 1 fps. Each line gives wall and CPU (this process
plus ffmpeg children); the total is compared with one plain gray decode of the file measured in the same run.
Usage: `python benchmarks/bench_recap_checks.py [--seconds 180] [--size 1920x1080] [--work DIR] [--no-ocr]`.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agenticvbench.media import iter_frames, run_ffmpeg


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def generate(work: Path, seconds: int, size: str) -> Path:
    """A clip of four scenes repeated (cuts every seconds/8 s), with a drawn text label, encoded fast."""
    out = work / f"final_{size}_{seconds}s.mp4"
    if out.is_file():
        return out
    work.mkdir(parents=True, exist_ok=True)
    seg = seconds / 8
    looks = ["testsrc2", "rgbtestsrc", "smptebars", "testsrc"]
    parts = [f"{looks[i % 4]}=s={size}:r=30,trim=duration={seg:g},setpts=PTS-STARTPTS[v{i}]" for i in range(8)]
    graph = ";".join(parts) + ";" + "".join(f"[v{i}]" for i in range(8)) + "concat=n=8:v=1:a=0,format=yuv420p[v]"
    tmp = out.with_suffix(".tmp.mp4")
    run_ffmpeg(["-y", "-v", "error", "-filter_complex", graph, "-f", "lavfi", "-i",
                f"sine=frequency=330:sample_rate=48000:duration={seconds}", "-map", "[v]", "-map", "0:a",
                "-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-g", "60", "-c:a", "aac", "-b:a", "128k",
                str(tmp)], check=True, timeout=7200)
    tmp.replace(out)
    return out


def _timed(label: str, fn: Callable[[], Any], rows: list[tuple[str, float, float]]) -> None:
    t0, c0 = time.perf_counter(), _cpu()
    fn()
    rows.append((label, time.perf_counter() - t0, _cpu() - c0))
    print(f"  {label:28s} wall {rows[-1][1]:7.1f} s  cpu {rows[-1][2]:7.1f} s", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=180)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--work", type=Path, default=Path("/tmp/avb-bench-recap"))
    ap.add_argument("--no-ocr", action="store_true", help="skip the OCR measurement (the slowest)")
    args = ap.parse_args(argv)
    from agenticvbench.verifiers.recap.media_facts import MediaFacts

    clip = generate(args.work, args.seconds, args.size)
    print(f"clip {clip} ({clip.stat().st_size / 1e6:.1f} MB)")
    rows: list[tuple[str, float, float]] = []
    _timed("floor: gray decode", lambda: sum(1 for _ in iter_frames(clip, pix_fmt="gray")), rows)
    facts = MediaFacts(clip)
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("probe", facts.probe), ("black + freeze pass", facts.freeze_runs), ("decode-error pass", facts.decode_errors),
        ("volumedetect", facts.volume), ("loudnorm", facts.loudnorm), ("luma at 1 s", lambda: facts.luma_at(1.0)),
        ("shots", facts.shots), ("audio + RMS", facts.longest_silence_s)]
    if not args.no_ocr:
        steps.append(("OCR text at 1 fps", lambda: facts.ocr_text(1.0)))
    for label, fn in steps:
        _timed(label, fn, rows)
    floor_wall, floor_cpu = rows[0][1], rows[0][2]
    wall, cpu = sum(r[1] for r in rows[1:]), sum(r[2] for r in rows[1:])
    print(f"python part: wall {wall:.1f} s ({wall / floor_wall:.2f}x the gray decode), "
          f"cpu {cpu:.1f} s ({cpu / floor_cpu:.2f}x); peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    with open("/proc/loadavg", encoding="ascii") as fh:
        print(f"load average {' '.join(fh.read().split()[:3])} (2 cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
