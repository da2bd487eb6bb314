"""Regenerate this folder: small pairs whose audio the official scorer reads at and past the end of a file.

Needs what the official scorer ran with: Debian 12's ffmpeg 5.1 (`/usr/bin/ffmpeg`, `apt-get install ffmpeg`), a
checkout of PhiloLabs/AgentVBench at f058cd6 and a Python with its edit rubric's imports (numpy, scipy,
opencv-python-headless, scikit-image). Not run by the tests (they read what it wrote):

    python tests/data/repair-edit-ends/make.py --official /path/to/AgentVBench --python /path/to/venv/bin/python

Media are encoded with the bundled ffmpeg (the encoder an agent most likely has); only the official side runs
ffmpeg 5.1. Writes the mp4 files, `expected.json` (the official edit detail of every pair) and
`spans.npz` (what ffmpeg 5.1's `-ss S -t T` returns for a few spans of each file: the first 16,000 samples in
full, then every 127th, and the length).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OLD_FFMPEG = "/usr/bin/ffmpeg"
DURATION = 32.0
WINDOW = (2.0, 5.5)
SHARES = {"video_share": 0.4, "audio_share": 0.6}
SPANS = ((0.0, 10.0), (10.0, 10.0), (13.337, 10.0), (20.0, 10.0), (30.0, 2.0), (31.99, 10.0))
HEAD, STRIDE = 16000, 127
AUDIO = (
    "aevalsrc=0.3*sin(2*PI*(200+40*t)*t)*(1+0.5*sin(2*PI*0.7*t))+0.15*sin(2*PI*1234*t)"
    "|0.25*sin(2*PI*(700-9*t)*t):s=48000"
)


def bundled() -> str:
    import imageio_ffmpeg

    return imageio_ffmpeg.get_ffmpeg_exe()


def encode(
    out: Path, seconds: float, acodec: str, *, src: Path | None = None, extra: list[str] | None = None
) -> None:
    """A 64x36 25-fps clip with x264 keyframes every 10 s exactly (chunk starts land on keyframes)."""
    ff = [bundled(), "-v", "error", "-y"]
    if src is None:
        ff += ["-f", "lavfi", "-i", "testsrc2=s=64x36:r=25", "-f", "lavfi", "-i", AUDIO]
    else:
        ff += ["-i", str(src)]
    ff += [
        *(extra or []),
        "-t",
        f"{seconds}",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-crf",
        "40",
        "-g",
        "250",
        "-sc_threshold",
        "0",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        acodec,
        "-b:a",
        "32k",
        str(out),
    ]
    subprocess.run(ff, check=True)


def official_span(path: Path, start: float, dur: float) -> np.ndarray:
    """The official per-chunk extraction's command line, run by ffmpeg 5.1."""
    cmd = [
        OLD_FFMPEG,
        "-nostdin",
        "-v",
        "error",
        "-ss",
        f"{start:.3f}",
        "-t",
        f"{dur:.3f}",
        "-i",
        str(path),
        "-ac",
        "1",
        "-ar",
        "48000",
        "-f",
        "s16le",
        "-acodec",
        "pcm_s16le",
        "-",
    ]
    return np.frombuffer(subprocess.run(cmd, capture_output=True, check=True).stdout, "<i2")


def official_edit(args: argparse.Namespace, fixed: Path, source: Path) -> dict:
    """The official `score_edit` on the pair (its own ffmpeg calls resolve to ffmpeg 5.1 first on PATH)."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1] + '/verifiers/repair/lib')\n"
        "from rubrics.edit import score_edit\n"
        "prof = {'format': {'duration_s': float(sys.argv[4])},"
        " 'injection': {'start_s': float(sys.argv[5]), 'end_s': float(sys.argv[6])}}\n"
        "print(json.dumps(score_edit(sys.argv[2], sys.argv[3], prof, max_workers=1,"
        " video_share=float(sys.argv[7]), audio_share=float(sys.argv[8]))))\n"
    )
    out = subprocess.run(
        [
            args.python,
            "-c",
            code,
            args.official,
            str(fixed),
            str(source),
            str(DURATION),
            str(WINDOW[0]),
            str(WINDOW[1]),
            str(SHARES["video_share"]),
            str(SHARES["audio_share"]),
        ],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--official", required=True, help="a checkout of PhiloLabs/AgentVBench at f058cd6")
    ap.add_argument("--python", default=sys.executable, help="a Python with the official rubric's imports")
    args = ap.parse_args()
    cases, spans = [], {}
    for acodec, tag in (("aac", "aac"), ("libopus", "opus")):
        source = HERE / f"source_{tag}.mp4"
        encode(source, DURATION, acodec)
        fixes = {
            "end20": (20.0, ["-vf", "eq=brightness=0.03", "-af", "volume=0.9"]),
            "end17": (17.3, ["-vf", "eq=brightness=0.03", "-af", "volume=0.9"]),
            "late": (
                DURATION,
                ["-vf", "eq=brightness=0.03", "-af", "adelay=0|0,volume=0.9", "-output_ts_offset", "0"],
            ),
        }
        for name, (seconds, extra) in fixes.items():
            fixed = HERE / f"fixed_{tag}_{name}.mp4"
            encode(fixed, seconds, acodec, src=source, extra=extra)
            if name == "late":  # audio stream starting 0.35 s after the video: a stream copy with an offset
                tmp = fixed.with_suffix(".tmp.mp4")
                subprocess.run(
                    [
                        bundled(),
                        "-v",
                        "error",
                        "-y",
                        "-i",
                        str(fixed),
                        "-itsoffset",
                        "0.35",
                        "-i",
                        str(fixed),
                        "-map",
                        "0:v",
                        "-map",
                        "1:a",
                        "-c",
                        "copy",
                        str(tmp),
                    ],
                    check=True,
                )
                tmp.replace(fixed)
            cases.append(
                {
                    "source": source.name,
                    "fixed": fixed.name,
                    "duration_s": DURATION,
                    "window": list(WINDOW),
                    **SHARES,
                    "official": official_edit(args, fixed, source),
                }
            )
        for path in [source, *(HERE / f"fixed_{tag}_{n}.mp4" for n in fixes)]:
            for start, dur in SPANS:
                pcm = official_span(path, start, dur)
                key = f"{path.stem}@{start:.3f}+{dur:.3f}"
                spans[key + ":head"] = pcm[:HEAD]
                spans[key + ":strided"] = pcm[HEAD::STRIDE]
                spans[key + ":size"] = np.array([pcm.size], np.int64)
    np.savez_compressed(HERE / "spans.npz", **spans)
    meta = {
        "scored_by": "PhiloLabs/AgentVBench f058cd6, lib/rubrics/edit.py score_edit, Debian ffmpeg 5.1",
        "spans": {"head": HEAD, "stride": STRIDE, "list": [list(s) for s in SPANS]},
        "cases": cases,
    }
    (HERE / "expected.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
