"""Decode and resample audio with PyAV (libswresample), streamed frame by frame."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.media.container import open_input


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
