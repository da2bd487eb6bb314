"""Check `SeekAudio` against a real ffmpeg 5.1 (the official scorer's) on a matrix of generated files.

    apt-get install ffmpeg                                  # Debian 12: ffmpeg 5.1, the official scorer's
    python benchmarks/check_seek_audio.py --ffmpeg /usr/bin/ffmpeg [--work DIR] [FILE ...]

Generates (with the bundled ffmpeg, and with the given one as a second muxer) AAC at 48, 44.1 and 32 kHz, mono
and stereo, Opus with 10-, 20- and 60-ms frames, MP3, audio-only and with H.264 video (GOPs on and off the 10-s
chunk starts, B-frames), audio starting 0.35 s late, files ending on and off a chunk boundary; then, for each
file (and any FILE given), compares 10 spans with `ffmpeg -ss S -t 10 -i F -ac 1 -ar 48000 -f s16le`. Prints
one line per file that differs (length, or more than 2 LSB) and the worst difference.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from agenticvbench.media.ffmpeg import ffmpeg_exe
from agenticvbench.media.seek_audio import SeekAudio

STARTS = (0, 5, 10, 13.337, 20, 20.007, 27.3, 29.99, 30, 31)
TONE = "aevalsrc=0.3*sin(2*PI*(200+50*t)*t)+0.2*sin(2*PI*1234*t)|0.2*sin(2*PI*700*t):s={rate}"
VIDEO = ["-f", "lavfi", "-i", "testsrc2=s=64x36:r={fps}"]


def _recipes() -> dict[str, list[str]]:
    """name -> encoder arguments after the inputs (audio is input 1 when there is video, else input 0)."""
    out: dict[str, list[str]] = {}
    for codec, extra in (
        ("aac", []),
        ("libopus", ["-frame_duration", "20"]),
        ("libopus", ["-frame_duration", "60"]),
        ("libopus", ["-frame_duration", "10"]),
        ("libmp3lame", []),
    ):
        tag = codec + "".join(extra[1:])
        for gop in ("250", "225"):
            out[f"{tag}_g{gop}"] = ["-c:v", "libx264", "-g", gop, "-sc_threshold", "0", "-c:a", codec, *extra]
        out[f"{tag}_audio"] = ["-vn", "-c:a", codec, *extra]
    out["aac441"] = ["-c:v", "libx264", "-c:a", "aac", "-ar", "44100"]
    out["aac32k_mono"] = ["-c:v", "libx264", "-bf", "3", "-c:a", "aac", "-ar", "32000", "-ac", "1"]
    return out


def generate(work: Path, ffmpegs: list[str]) -> list[Path]:
    """The matrix, muxed by each ffmpeg given, in 30.0-s and 27.3-s lengths, plus late-audio copies."""
    files = []
    for mux_index, exe in enumerate(ffmpegs):
        for name, args in _recipes().items():
            for seconds in (30.0, 27.3):
                out = work / f"m{mux_index}_{name}_{seconds}.mp4"
                rate = "44100" if "441" in name else "48000"
                video = [] if "-vn" in args else [a.format(fps=25) for a in VIDEO]
                if not out.exists():
                    subprocess.run(
                        [
                            exe,
                            "-v",
                            "error",
                            "-y",
                            *video,
                            "-f",
                            "lavfi",
                            "-i",
                            TONE.format(rate=rate),
                            "-t",
                            f"{seconds}",
                            *args,
                            str(out),
                        ],
                        check=True,
                    )
                files.append(out)
                if seconds == 30.0 and video:
                    late = out.with_name(out.stem + "_late.mp4")
                    if not late.exists():
                        subprocess.run(
                            [
                                exe,
                                "-v",
                                "error",
                                "-y",
                                "-i",
                                str(out),
                                "-itsoffset",
                                "0.35",
                                "-i",
                                str(out),
                                "-map",
                                "0:v",
                                "-map",
                                "1:a",
                                "-c",
                                "copy",
                                str(late),
                            ],
                            check=True,
                        )
                    files.append(late)
    return files


def reference(exe: str, path: Path, start: float) -> np.ndarray:
    cmd = [
        exe,
        "-nostdin",
        "-v",
        "error",
        "-ss",
        f"{start:.3f}",
        "-t",
        "10.000",
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
    return np.frombuffer(subprocess.run(cmd, capture_output=True, check=True).stdout, "<i2").astype(np.int32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ffmpeg", required=True, help="the reference ffmpeg (Debian 12's 5.1: /usr/bin/ffmpeg)")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "avb-check-seek-audio")
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    files = generate(args.work, [ffmpeg_exe(), args.ffmpeg]) + list(args.files)
    worst, bad = 0, 0
    for path in files:
        audio = SeekAudio(path)
        if not audio.emulates:
            print(path.name, "| not emulated: the scorer runs the official command line for it")
            continue
        problems = []
        for start in STARTS:
            ref, ours = reference(args.ffmpeg, path, start), audio.span(start, 10.0).astype(np.int32)
            n = min(ref.size, ours.size)
            diff = int(np.abs(ref[:n] - ours[:n]).max()) if n else 0
            if ref.size != ours.size or diff > 2:
                problems.append(f"{start}: {ref.size}/{ours.size} samples, max diff {diff}")
            worst = max(worst, diff)
        if problems:
            bad += 1
            print(path.name, "|", "; ".join(problems))
    print(
        f"{len(files)} files x {len(STARTS)} spans: {bad} files differ; worst sample difference {worst} LSB"
    )


if __name__ == "__main__":
    main()
