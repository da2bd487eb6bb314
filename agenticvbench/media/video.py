"""Decoding with PyAV: the one streaming frame reader (a video decoded sequentially, one frame at a time, with
threaded decoding) and the audio decoder (resampled with libswresample, streamed frame by frame)."""

from __future__ import annotations

import os
import platform
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.media.container import open_input


def _bgr_converter() -> str:
    """Who converts decoded YUV frames to BGR: `swscale` (PyAV's libswscale) or `portable` (`media/yuv_rgb.py`,
    the x86 arithmetic in integers). libswscale runs that arithmetic itself on x86-64, so it stays there; on other
    CPUs its C code rounds differently, so the portable converter takes over. `AVB_BGR_CONVERTER` forces one."""
    forced = os.environ.get("AVB_BGR_CONVERTER", "").strip().lower()
    if forced in ("swscale", "portable"):
        return forced
    return "swscale" if platform.machine().lower() in ("x86_64", "amd64") else "portable"


BGR_CONVERTER = _bgr_converter()


@dataclass(frozen=True)
class VideoFrame:
    """One decoded frame: its index in decode order, its presentation time (s) and its pixels."""

    index: int
    time: float
    image: np.ndarray


@dataclass(frozen=True)
class DecodedFrame:
    """One decoded frame not yet converted to pixels: convert with `image()` only when it is needed."""

    index: int
    time: float
    frame: av.VideoFrame
    path: str

    def image(self, pix_fmt: str = "bgr24") -> np.ndarray:
        """The frame's pixels in `pix_fmt` (raises `MediaError` when the conversion fails). The BGR of 8-bit
        4:2:0 and 4:2:2 frames of even size is the same on every CPU (`BGR_CONVERTER`)."""
        try:
            if pix_fmt == "bgr24" and BGR_CONVERTER == "portable":
                from agenticvbench.media.yuv_rgb import frame_to_bgr

                bgr = frame_to_bgr(self.frame)
                if bgr is not None:
                    return bgr
            return self.frame.to_ndarray(format=pix_fmt)
        except (av.FFmpegError, ValueError) as exc:
            raise MediaError(f"{self.path}: frame {self.index} conversion failed ({exc})") from None


def iter_decoded(
    path: str | Path, *, threads: bool = True, last: int | None = None
) -> Generator[DecodedFrame, None, None]:
    """Yield every frame of the first video stream in decode order, unconverted; decoding stops after `last`.

    For callers that decide which frames they need only after seeing later ones (a frame-rate filter), so
    the frames they drop never cost a pixel conversion. `iter_frames` is built on it.
    """
    with open_input(path, need="video") as container:
        stream = container.streams.video[0]
        if threads:
            stream.thread_type = "AUTO"
        try:
            for i, frame in enumerate(container.decode(stream)):
                if last is not None and i > last:
                    return
                t = float(frame.time) if frame.time is not None else float("nan")
                yield DecodedFrame(i, t, frame, str(path))
        except av.FFmpegError as exc:
            raise MediaError(f"{path}: decode failed ({exc})") from None


def iter_frames(
    path: str | Path,
    *,
    pix_fmt: str = "bgr24",
    start_s: float = 0.0,
    threads: bool = True,
    wanted: Callable[[int], bool] | None = None,
    last: int | None = None,
) -> Generator[VideoFrame, None, None]:
    """Yield the frames of the first video stream in order; memory stays at one frame.

    `pix_fmt` is any PyAV format (`bgr24` matches OpenCV's `VideoCapture`, `gray` is luma only).
    `start_s` skips frames before that time; frame indices still count from the start of the file so callers
    can reason in native frame numbers. `wanted(index)` selects frames: the others are decoded (decoding is
    sequential) but never converted to pixels, which is most of the per-frame cost. Decoding stops after `last`.
    """
    frames = iter_decoded(path, threads=threads, last=last)
    try:
        for df in frames:
            if wanted is not None and not wanted(df.index):
                continue
            if start_s and df.time < start_s - 1e-6:
                continue
            yield VideoFrame(df.index, df.time, df.image(pix_fmt))
    finally:
        frames.close()


def decode_audio(
    path: str | Path,
    *,
    sample_rate: int = 48000,
    mono: bool = True,
    start_s: float = 0.0,
    duration_s: float | None = None,
) -> np.ndarray:
    """Return the first audio stream as float32 in [-1, 1] at `sample_rate` (mono: shape (n,); else (ch, n)).

    Raises `MediaError` when the file has no audio stream or cannot be decoded. Samples before `start_s`
    and after `start_s + duration_s` are dropped.
    """
    with open_input(path, need="audio") as container:
        stream = container.streams.audio[0]
        layout = "mono" if mono else None
        # planar float: to_ndarray() gives one row per channel (packed "flt" would interleave them in one row)
        resampler = av.AudioResampler(format="fltp", layout=layout, rate=sample_rate)
        chunks: list[np.ndarray] = []
        try:
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    chunks.append(out.to_ndarray().reshape(out.layout.nb_channels, -1))
            for out in resampler.resample(None):
                chunks.append(out.to_ndarray().reshape(out.layout.nb_channels, -1))
        except av.FFmpegError as exc:
            raise MediaError(f"{path}: audio decode failed ({exc})") from None
    if not chunks:
        data = np.zeros((1 if mono else 2, 0), dtype=np.float32)
    else:
        data = np.concatenate(chunks, axis=1).astype(np.float32, copy=False)
    a = int(round(start_s * sample_rate))
    b = None if duration_s is None else a + int(round(duration_s * sample_rate))
    data = data[:, a:b]
    return data[0] if mono else data
