"""The portable YUV -> BGR converter: libswscale's x86 SIMD output, bit for bit, on any CPU."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import av
import numpy as np
import pytest

from agenticvbench.media import video
from agenticvbench.media.video import iter_frames
from agenticvbench.media.yuv_rgb import COLORSPACES, frame_to_bgr, planes_to_bgr

X86 = video.platform.machine().lower() in ("x86_64", "amd64")
CLIP = Path(__file__).resolve().parents[1] / "data" / "repair-edit" / "f_reencode.mp4"

# sha256 (first 16 hex digits) of the BGR of `_every_colour()`, as libswscale's x86 SIMD code gives it
# (FFmpeg 8.0 in PyAV 18.1), per colour space (1 BT.709, 2 unspecified = BT.601, 4 FCC, 7 SMPTE 240M,
# 9 BT.2020) and range (limited, full).
PINNED = {
    (2, False): "3f63ad956ed6bbbb",
    (2, True): "7755889a71ebd11b",
    (1, False): "8e8b4978bff81f54",
    (1, True): "32ca7995493c0727",
    (4, False): "a9467e4f97706402",
    (4, True): "8be7e6725bb1b967",
    (7, False): "896c1225fefc2094",
    (7, True): "e64f61fbae65c257",
    (9, False): "b62cbf9e124b7f0b",
    (9, True): "1b5fdc3899692f5b",
}


def _every_colour() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 4096x4096 4:2:0 frame holding every (Y, U, V) triple once: 64 chroma samples per (U, V) pair, each
    covering four of the 256 luma values."""
    n = 2048
    idx = np.arange(n * n).reshape(n, n)
    pair, k = idx // 64, idx % 64
    u, v = (pair >> 8).astype(np.uint8), (pair & 255).astype(np.uint8)
    y = np.empty((2 * n, 2 * n), np.uint8)
    for dy in (0, 1):
        for dx in (0, 1):
            y[dy::2, dx::2] = (4 * k + 2 * dy + dx).astype(np.uint8)
    return y, u, v


@pytest.fixture(scope="module")
def every_colour() -> tuple[np.ndarray, np.ndarray, np.ndarray, av.VideoFrame]:
    y, u, v = _every_colour()
    frame = av.VideoFrame.from_ndarray(
        np.concatenate([y.ravel(), u.ravel(), v.ravel()]).reshape(-1, y.shape[1]), format="yuv420p"
    )
    return y, u, v, frame


@pytest.mark.slow
@pytest.mark.parametrize(("colorspace", "full"), sorted(PINNED))
def test_every_colour_is_libswscale_x86_output(every_colour, colorspace: int, full: bool) -> None:
    """All 2^24 colours of each matrix and range give the pinned x86 bytes; on x86 also exactly what PyAV's
    libswscale returns for the same frame (whose SIMD code the converter reproduces)."""
    y, u, v, frame = every_colour
    ours = planes_to_bgr(y, u, v, pix_fmt="yuv420p", colorspace=colorspace, full_range=full)
    assert hashlib.sha256(ours.tobytes()).hexdigest()[:16] == PINNED[(colorspace, full)]
    if X86:
        frame.colorspace, frame.color_range = colorspace, 2 if full else 1
        assert np.array_equal(ours, frame.to_ndarray(format="bgr24"))


def _frame(fmt: str, w: int, h: int, seed: int) -> av.VideoFrame:
    rng = np.random.default_rng(seed)
    frame = av.VideoFrame(w, h, fmt)
    for plane in frame.planes:
        buf = np.frombuffer(plane, np.uint8)
        buf[:] = rng.integers(0, 256, buf.size, dtype=np.uint8)
    return frame


@pytest.mark.parametrize("fmt", ["yuv420p", "yuvj420p", "yuv422p", "yuvj422p"])
@pytest.mark.parametrize(("w", "h"), [(2, 2), (64, 36), (1918, 1078), (1280, 720)])
def test_even_frames_of_each_format_match_libswscale(fmt: str, w: int, h: int) -> None:
    """Both chroma layouts, both implied ranges, widths that are not a multiple of 8, and the colour space and
    range a frame carries are all honoured as libswscale honours them."""
    frame = _frame(fmt, w, h, seed=w + h)
    for colorspace, color_range in ((2, 0), (1, 1), (5, 2), (0, 0)):
        frame.colorspace, frame.color_range = colorspace, color_range
        ours = frame_to_bgr(frame)
        assert ours is not None and ours.shape == (h, w, 3)
        if X86:
            assert np.array_equal(ours, frame.to_ndarray(format="bgr24")), (colorspace, color_range)


@pytest.mark.parametrize(
    ("fmt", "w", "h", "colorspace"),
    [
        ("yuv420p", 33, 8, 2),
        ("yuv420p", 32, 9, 2),  # odd sizes: libswscale takes its generic scaler there
        ("yuv444p", 32, 8, 2),
        ("nv12", 32, 8, 2),
        ("yuv420p10le", 32, 8, 2),  # formats without the SIMD path
        ("yuv420p", 32, 8, 10),
        ("yuv420p", 32, 8, 3),  # colour spaces libswscale refuses to convert
    ],
)
def test_frames_outside_the_simd_path_are_left_to_libswscale(
    fmt: str, w: int, h: int, colorspace: int
) -> None:
    """Where libswscale itself would not run the x86 SIMD code, the converter declines (None), so the reader
    gives libswscale's result (or its refusal) exactly as before."""
    frame = _frame(fmt, w, h, seed=1)
    frame.colorspace = colorspace
    assert frame_to_bgr(frame) is None
    if colorspace not in COLORSPACES:
        with pytest.raises(av.FFmpegError):
            frame.to_ndarray(format="bgr24")


def test_reader_uses_the_converter_chosen_for_the_host(monkeypatch) -> None:
    """x86-64 keeps libswscale (same bytes, faster), other CPUs get the portable converter, the variable forces
    either; and a clip read through the portable path is byte-identical to the libswscale one on x86."""
    monkeypatch.delenv("AVB_BGR_CONVERTER", raising=False)
    monkeypatch.setattr(video.platform, "machine", lambda: "arm64")
    assert video._bgr_converter() == "portable"
    monkeypatch.setattr(video.platform, "machine", lambda: "x86_64")
    assert video._bgr_converter() == "swscale"
    monkeypatch.setenv("AVB_BGR_CONVERTER", "portable")
    assert video._bgr_converter() == "portable"

    monkeypatch.setattr(video, "BGR_CONVERTER", "swscale")
    libswscale = [f.image for f in iter_frames(CLIP, last=12)]
    monkeypatch.setattr(video, "BGR_CONVERTER", "portable")
    portable = [f.image for f in iter_frames(CLIP, last=12)]
    assert len(portable) == 13
    digests = {hashlib.sha256(img.tobytes()).hexdigest() for img in portable}
    assert len(digests) > 1  # real, changing frames
    if X86:
        assert all(np.array_equal(a, b) for a, b in zip(libswscale, portable, strict=True))


_NO_SIMD_CHILD = """
import ctypes, glob, hashlib, json, os, sys
import av
util = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(av.__file__), "..", "av.libs", "libavutil-*"))[0])
util.av_force_cpu_flags(0)  # libav as on a CPU it has no SIMD code for
from agenticvbench.media.video import iter_frames
print(json.dumps([hashlib.sha256(f.image.tobytes()).hexdigest() for f in iter_frames(sys.argv[1], last=12)]))
"""


def _libavutil_found() -> bool:
    return bool(glob.glob(os.path.join(os.path.dirname(av.__file__), "..", "av.libs", "libavutil-*")))


@pytest.mark.skipif(
    not (X86 and _libavutil_found()), reason="needs x86 and PyAV's bundled libavutil to compare"
)
@pytest.mark.slow
def test_without_libav_simd_libswscale_drifts_and_the_portable_converter_does_not() -> None:
    """The reason the converter exists: with libav's SIMD switched off (its code path on CPUs it has no x86
    assembly for) libswscale's BGR changes, the portable converter's does not."""

    def child(converter: str) -> list[str]:
        env = {**os.environ, "AVB_BGR_CONVERTER": converter}
        out = subprocess.run(
            [sys.executable, "-c", _NO_SIMD_CHILD, str(CLIP)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        return json.loads(out)

    reference = [hashlib.sha256(f.image.tobytes()).hexdigest() for f in iter_frames(CLIP, last=12)]
    assert child("portable") == reference
    assert child("swscale") != reference


def test_planes_that_do_not_make_a_frame_are_refused() -> None:
    """The compiled loop does no bounds checks, so planes of the wrong size or type must never reach it."""
    y = np.zeros((8, 8), np.uint8)
    good = np.zeros((4, 4), np.uint8)
    for u, v, fmt in (
        (np.zeros((3, 4), np.uint8), good, "yuv420p"),
        (good, good, "yuv422p"),
        (good.astype(np.int16), good, "yuv420p"),
    ):
        with pytest.raises(ValueError, match="not an even-sized 8-bit"):
            planes_to_bgr(y, u, v, pix_fmt=fmt, colorspace=2, full_range=False)
    with pytest.raises(ValueError):
        planes_to_bgr(
            np.zeros((7, 8), np.uint8), good, good, pix_fmt="yuv420p", colorspace=2, full_range=False
        )
