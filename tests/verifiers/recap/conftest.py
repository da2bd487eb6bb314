"""Generated media for the recap kind tests: tiny clips whose measurements are known by construction.

All clips are built once per session with the bundled ffmpeg (lavfi sources) or, for on-screen text, with
cv2.putText frames piped to ffmpeg as rawvideo (no font files needed).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from agenticvbench.media import run_ffmpeg

W, H, FPS = 160, 120, 24
X264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]


def _ffmpeg(*args: str) -> None:
    run_ffmpeg(["-y", *args], check=True, timeout=120)


def _src(name: str, seconds: float) -> str:
    sep = ":" if "=" in name else "="
    return f"{name}{sep}s={W}x{H}:r={FPS}:d={seconds}"


@pytest.fixture(scope="session")
def media_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("recap-media")


@pytest.fixture(scope="session")
def main_clip(media_dir: Path) -> Path:
    """6 s, 160x120, 24 fps, h264 + stereo aac 48 kHz in mp4.

    Video: testsrc2 0-1.5 s, black 1.5-4.5 s (a 3 s black run), testsrc2 4.5-6 s.
    Audio: a 0.3-amplitude 440 Hz sine on both channels, silent from 1.0 to 3.5 s (a 2.5 s silence).
    """
    out = media_dir / "main.mp4"
    graph = (
        f"{_src('testsrc2', 1.5)}[a];{_src('color=c=black', 3)}[b];{_src('testsrc2', 1.5)}[c];"
        "[a][b][c]concat=n=3:v=1:a=0[v];"
        "aevalsrc='0.3*sin(2*PI*440*t)*(lt(t,1)+gte(t,3.5))|0.3*sin(2*PI*440*t)*(lt(t,1)+gte(t,3.5))'"
        ":s=48000:d=6[au]"
    )
    _ffmpeg(
        "-filter_complex",
        graph,
        "-map",
        "[v]",
        "-map",
        "[au]",
        *X264,
        "-c:a",
        "aac",
        "-b:a",
        "128k",
        str(out),
    )
    return out


@pytest.fixture(scope="session")
def freeze_clip(media_dir: Path) -> Path:
    """6 s, no audio: testsrc2 0-2 s, its last frame held until 4 s (a ~2 s freeze), testsrc2 4-6 s."""
    out = media_dir / "freeze.mp4"
    graph = (
        f"{_src('testsrc2', 2)},tpad=stop_mode=clone:stop_duration=2[a];{_src('testsrc2', 2)}[b];"
        "[a][b]concat=n=2:v=1:a=0[v]"
    )
    _ffmpeg("-filter_complex", graph, "-map", "[v]", *X264, str(out))
    return out


@pytest.fixture(scope="session")
def freeze_eof_clip(media_dir: Path) -> Path:
    """5 s, no audio: testsrc2 0-2 s, then its last frame held to the end (a freeze that never ends)."""
    out = media_dir / "freeze_eof.mp4"
    _ffmpeg(
        "-filter_complex",
        f"{_src('testsrc2', 2)},tpad=stop_mode=clone:stop_duration=3[v]",
        "-map",
        "[v]",
        *X264,
        str(out),
    )
    return out


@pytest.fixture(scope="session")
def cuts_clip(media_dir: Path) -> Path:
    """6 s with hard cuts at 1 s and 3 s: red 1 s, testsrc2 2 s, smptebars 3 s (shots 1, 2, 3 s)."""
    out = media_dir / "cuts.mp4"
    graph = (
        f"{_src('color=c=red', 1)}[a];{_src('testsrc2', 2)}[b];{_src('smptebars', 3)}[c];"
        "[a][b][c]concat=n=3:v=1:a=0[v]"
    )
    _ffmpeg("-filter_complex", graph, "-map", "[v]", *X264, str(out))
    return out


@pytest.fixture(scope="session")
def text_clip(media_dir: Path) -> Path:
    """4 s, 320x240, 10 fps: "AGENTIC" on screen for 0-2 s, then "RECAP 42" for 2-4 s (white on dark grey)."""
    out = media_dir / "text.mp4"
    w, h, fps = 320, 240, 10
    frames = []
    for i in range(4 * fps):
        img = np.full((h, w, 3), 40, np.uint8)
        word = "AGENTIC" if i < 2 * fps else "RECAP 42"
        cv2.putText(img, word, (20, 135), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (255, 255, 255), 4, cv2.LINE_AA)
        frames.append(img)
    run_ffmpeg(
        [
            "-y",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "bgr24",
            "-s",
            f"{w}x{h}",
            "-r",
            str(fps),
            "-i",
            "-",
            *X264,
            str(out),
        ],
        input_bytes=b"".join(f.tobytes() for f in frames),
        check=True,
        timeout=120,
    )
    return out


@pytest.fixture(scope="session")
def two_audio_clip(media_dir: Path) -> Path:
    """2 s matroska: h264 video, audio 1 = mono opus, audio 2 = stereo mp3."""
    out = media_dir / "two_audio.mkv"
    graph = (
        f"{_src('testsrc2', 2)}[v];sine=f=330:sample_rate=48000:d=2[a1];"
        "sine=f=550:sample_rate=44100:d=2,aformat=channel_layouts=stereo[a2]"
    )
    _ffmpeg(
        "-filter_complex",
        graph,
        "-map",
        "[v]",
        "-map",
        "[a1]",
        "-map",
        "[a2]",
        *X264,
        "-c:a:0",
        "libopus",
        "-c:a:1",
        "libmp3lame",
        str(out),
    )
    return out


@pytest.fixture(scope="session")
def corrupt_clip(main_clip: Path, media_dir: Path) -> Path:
    """main.mp4 with a block of its media data overwritten by a fixed byte pattern (decode errors)."""
    data = bytearray(main_clip.read_bytes())
    start = int(len(data) * 0.25)
    data[start : start + 4000] = bytes((i * 37 + 11) % 256 for i in range(4000))
    out = media_dir / "corrupt.mp4"
    out.write_bytes(bytes(data))
    return out


@pytest.fixture(scope="session")
def ramp_clip(media_dir: Path) -> Path:
    """3 s, 64x64, 24 fps, lossless: frame N has luma 3*N (so a frame's index can be read back from its YAVG)."""
    out = media_dir / "ramp.mp4"
    _ffmpeg(
        "-f",
        "lavfi",
        "-i",
        "color=black:s=64x64:r=24:d=3,format=gray,geq=lum='N*3'",
        "-c:v",
        "libx264",
        "-qp",
        "0",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        str(out),
    )
    return out
