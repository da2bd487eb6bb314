"""Benchmark: the recap python checks on a full-size `final.mp4`, as a task runs them, against one decode.

Generates (once) a 180-s 1920x1080 30-fps clip with scene cuts (testsrc2 / rgbtestsrc / smptebars / testsrc
scenes, whose frame counters make every OCR sample a new text) and a sine tone. Then, each in a fresh
`MediaFacts` (no disk cache):
- `task`: a rubric with one item of each of the 20 check kinds through the real runner (`run_rubric`), which
  declares the items' needs so the video is decoded once by ffmpeg (black, freeze, decode errors) and once by
  PyAV (shots and OCR), the two running side by side; PyAV and ffmpeg decodes are counted;
- `--breakdown`: every measurement on its own (one pass each, as without declared needs), timed one by one.
Each line gives wall and CPU (this process plus ffmpeg children); both are compared with one plain gray decode
of the file measured in the same run (the floor).
Usage: `python benchmarks/bench_recap_checks.py [--seconds 180] [--size 1920x1080] [--work DIR] [--no-ocr]
[--breakdown]`.
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
    parts = [
        f"{looks[i % 4]}=s={size}:r=30,trim=duration={seg:g},setpts=PTS-STARTPTS[v{i}]" for i in range(8)
    ]
    graph = (
        ";".join(parts) + ";" + "".join(f"[v{i}]" for i in range(8)) + "concat=n=8:v=1:a=0,format=yuv420p[v]"
    )
    tmp = out.with_suffix(".tmp.mp4")
    run_ffmpeg(
        [
            "-y",
            "-v",
            "error",
            "-filter_complex",
            graph,
            "-f",
            "lavfi",
            "-i",
            f"sine=frequency=330:sample_rate=48000:duration={seconds}",
            "-map",
            "[v]",
            "-map",
            "0:a",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-crf",
            "23",
            "-g",
            "60",
            "-c:a",
            "aac",
            "-b:a",
            "128k",
            str(tmp),
        ],
        check=True,
        timeout=7200,
    )
    tmp.replace(out)
    return out


RUBRIC: list[tuple[str, dict[str, Any]]] = [
    ("scenedetect_median_shot_duration", {"min": 1}),
    ("scenedetect_max_shot_duration", {"max_seconds": 60}),
    ("pytesseract_substring_match", {"substrings": ["zebra"]}),
    ("librosa_silence_max_run", {"max_seconds": 2}),
    ("ffmpeg_audio_loudness_min", {"threshold_db": -40}),
    ("ffmpeg_blackdetect_max_run", {"max_seconds": 1}),
    ("ffmpeg_freeze_max_run", {"max_seconds": 2}),
    ("ffmpeg_brightness_at_times", {"times": [1, 10], "min_brightness": 20}),
    ("ffmpeg_decode_no_errors", {}),
    ("ffmpeg_loudness_lufs_range", {"min": -30, "max": -5}),
    ("ffprobe_duration_range", {"min": 60, "max": 600}),
    ("ffprobe_resolution_eq", {"width": 1920, "height": 1080}),
    ("ffprobe_resolution_in", {"options": [[1920, 1080]]}),
    ("ffprobe_video_codec_in", {"codecs": ["h264"]}),
    ("ffprobe_audio_codec_in", {"codecs": ["aac"]}),
    ("ffprobe_format_in", {"substrings": ["mp4"]}),
    ("ffprobe_fps_range", {"min": 24}),
    ("ffprobe_audio_streams", {"eq": 1}),
    ("ffprobe_audio_channels_eq", {"channels": 1}),
    ("ffprobe_bitrate_min", {"min_bps": 100000}),
]


class _NoJudge:
    def judge_many(self, requests: list[Any]) -> list[Any]:
        assert not requests
        return []


def run_task(clip: Path, no_ocr: bool) -> tuple[list[str], dict[str, int]]:
    """The python part of one recap task with every kind, through the runner; returns the outcomes and how
    many times the whole video was decoded by PyAV and by ffmpeg (audio-only runs and one-frame luma probes are
    not counted)."""
    from agenticvbench.media import filters, video
    from agenticvbench.verifiers.recap import frame_pass
    from agenticvbench.verifiers.recap.media_facts import MediaFacts
    from agenticvbench.verifiers.recap.rubric import parse_rubric
    from agenticvbench.verifiers.recap.runner import default_backend, run_rubric

    counts = {"pyav": 0, "ffmpeg": 0}
    real_decoded, real_ffmpeg = video.iter_decoded, filters.run_ffmpeg

    def decoded(*a: Any, **k: Any) -> Any:
        counts["pyav"] += 1
        return real_decoded(*a, **k)

    def ffmpeg(args: list[str], *a: Any, **k: Any) -> Any:
        if "-vn" not in args and "-frames:v" not in args:  # a run that decodes the whole video
            counts["ffmpeg"] += 1
        return real_ffmpeg(args, *a, **k)

    video.iter_decoded, frame_pass.iter_decoded, filters.run_ffmpeg = decoded, decoded, ffmpeg  # type: ignore[assignment]
    try:
        raw = [
            {"id": f"i{n}", "dispatch": "python", "kind": kind, "params": params, "weight": 1}
            for n, (kind, params) in enumerate(RUBRIC)
            if not (no_ocr and kind.startswith("pytesseract"))
        ]
        items, _ = parse_rubric(raw)
        report = run_rubric(items, facts=MediaFacts(clip), judge=_NoJudge(), backend=default_backend())
    finally:
        video.iter_decoded, frame_pass.iter_decoded, filters.run_ffmpeg = (
            real_decoded,
            real_decoded,
            real_ffmpeg,
        )
    return [f"{r.item.kind}: {r.outcome} ({r.reason[:80]})" for r in report.results], counts


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
    ap.add_argument("--breakdown", action="store_true", help="also time every measurement on its own")
    args = ap.parse_args(argv)
    from agenticvbench.verifiers.recap.media_facts import MediaFacts

    clip = generate(args.work, args.seconds, args.size)
    print(f"clip {clip} ({clip.stat().st_size / 1e6:.1f} MB)")
    rows: list[tuple[str, float, float]] = []
    _timed("floor: gray decode", lambda: sum(1 for _ in iter_frames(clip, pix_fmt="gray")), rows)
    floor_wall, floor_cpu = rows[0][1], rows[0][2]
    if not args.no_ocr:  # loaded once per worker process in a real run, not per task
        from agenticvbench.verifiers.recap.ocr import get_engine

        get_engine()
    found: dict[str, Any] = {}
    _timed(
        "task: all 20 kinds",
        lambda: found.update(zip(("outcomes", "counts"), run_task(clip, args.no_ocr), strict=True)),
        rows,
    )
    for line in found["outcomes"]:
        print(f"    {line}")
    wall, cpu = rows[-1][1], rows[-1][2]
    print(
        f"python part of a task: wall {wall:.1f} s ({wall / floor_wall:.2f}x the gray decode), "
        f"cpu {cpu:.1f} s ({cpu / floor_cpu:.2f}x); decodes of the file: {found['counts']['pyav']} by PyAV, "
        f"{found['counts']['ffmpeg']} by ffmpeg; peak RSS "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )
    if args.breakdown:
        facts = MediaFacts(clip)
        steps: list[tuple[str, Callable[[], Any]]] = [
            ("probe", facts.probe),
            ("black + freeze pass", facts.freeze_runs),
            ("decode-error pass", facts.decode_errors),
            ("volumedetect", facts.volume),
            ("loudnorm", facts.loudnorm),
            ("luma at 1 s", lambda: facts.luma_at(1.0)),
            ("shots", facts.shots),
            ("audio + RMS", facts.longest_silence_s),
        ]
        if not args.no_ocr:
            steps.append(("OCR text at 1 fps", lambda: facts.ocr_text(1.0)))
        first = len(rows)
        for label, fn in steps:
            _timed(label, fn, rows)
        wall, cpu = sum(r[1] for r in rows[first:]), sum(r[2] for r in rows[first:])
        print(
            f"one pass per measurement: wall {wall:.1f} s ({wall / floor_wall:.2f}x), cpu {cpu:.1f} s "
            f"({cpu / floor_cpu:.2f}x)"
        )
    with open("/proc/loadavg", encoding="ascii") as fh:
        print(f"load average {' '.join(fh.read().split()[:3])} (2 cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
