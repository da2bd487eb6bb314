"""The one streaming frame reader: decode a video sequentially, one frame at a time, with threaded decoding."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.media.container import open_input


@dataclass(frozen=True)
class VideoFrame:
    """One decoded frame: its index in decode order, its presentation time (s) and its pixels."""

    index: int
    time: float
    image: np.ndarray


def iter_frames(path: str | Path, *, pix_fmt: str = "bgr24", start_s: float = 0.0, threads: bool = True,
                wanted: Callable[[int], bool] | None = None,
                last: int | None = None) -> Generator[VideoFrame, None, None]:
    """Yield the frames of the first video stream in order; memory stays at one frame.

    `pix_fmt` is any PyAV format (`bgr24` matches OpenCV's `VideoCapture`, `gray` is luma only).
    `start_s` skips frames before that time; frame indices still count from the start of the file so callers
    can reason in native frame numbers. `wanted(index)` selects frames: the others are decoded (decoding is
    sequential) but never converted to pixels, which is most of the per-frame cost. Decoding stops after `last`.
    """
    with open_input(path, need="video") as container:
        stream = container.streams.video[0]
        if threads:
            stream.thread_type = "AUTO"
        try:
            for i, frame in enumerate(container.decode(stream)):
                if last is not None and i > last:
                    return
                if wanted is not None and not wanted(i):
                    continue
                t = float(frame.time) if frame.time is not None else float("nan")
                if start_s and t < start_s - 1e-6:
                    continue
                yield VideoFrame(i, t, frame.to_ndarray(format=pix_fmt))
        except av.FFmpegError as exc:
            raise MediaError(f"{path}: decode failed ({exc})") from None
