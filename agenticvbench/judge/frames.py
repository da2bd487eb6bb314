"""What the judge shows the model: sampled, downscaled JPEG frames and (for transcription) a WAV of the audio.

Frames are taken at `frame_rate` per second (the first frame at or after t = 0, 1/rate, 2/rate, ...); when that
would exceed `max_frames`, `max_frames` times are spread evenly over the video instead (the middle of each of
`max_frames` equal slices), so a long recap is covered end to end. Decoding goes through the one media toolkit.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.media import decode_audio, iter_frames, probe


@dataclass(frozen=True)
class SampledVideo:
    """The frames shown to the judge: (time s, data URL) pairs plus the video's duration and size."""

    duration: float
    width: int
    height: int
    frames: list[tuple[float, str]]


def sample_times(duration: float, frame_rate: float, max_frames: int) -> list[float]:
    """The timestamps to show: every 1/frame_rate s, or `max_frames` slice midpoints when that is too many."""
    if duration <= 0:
        return [0.0]
    n_rate = int(np.floor(duration * frame_rate + 1e-9))
    n_rate = max(1, n_rate)
    if n_rate <= max_frames:
        return [i / frame_rate for i in range(n_rate)]
    return [(i + 0.5) * duration / max_frames for i in range(max_frames)]


def encode_jpeg(image: np.ndarray, *, max_side: int, quality: int) -> str:
    """Downscale a BGR frame so its longer side is <= max_side and return it as a base64 JPEG data URL."""
    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    if scale < 1.0:
        image = cv2.resize(
            image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
        )
    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
    if not ok:
        raise MediaError("JPEG encoding failed")
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def sample_video(
    path: str | Path, *, frame_rate: float, max_frames: int, max_side: int, quality: int = 85
) -> SampledVideo:
    """Decode `path` once and keep the first frame at or after each sample time (raises MediaError)."""
    info = probe(path)
    if info.video is None:
        raise MediaError(f"{path}: no video stream")
    duration = float(info.duration or info.video.duration or 0.0)
    times = sample_times(duration, frame_rate, max_frames)
    frames: list[tuple[float, str]] = []
    last = None
    k = 0
    for fr in iter_frames(path):
        last = fr
        if k < len(times) and (fr.time >= times[k] - 1e-6 or np.isnan(fr.time)):
            frames.append(
                (
                    fr.time if not np.isnan(fr.time) else times[k],
                    encode_jpeg(fr.image, max_side=max_side, quality=quality),
                )
            )
            while k < len(times) and times[k] <= fr.time + 1e-6:
                k += 1
            if np.isnan(fr.time):
                k += 1
        if k >= len(times):
            break
    if not frames and last is not None:
        frames.append((last.time, encode_jpeg(last.image, max_side=max_side, quality=quality)))
    if not frames:
        raise MediaError(f"{path}: no decodable video frames")
    return SampledVideo(duration, int(info.video.width or 0), int(info.video.height or 0), frames)


def audio_wav_bytes(path: str | Path, *, sample_rate: int = 16000) -> bytes:
    """The first audio stream as 16-bit mono WAV bytes (for a transcription request; raises MediaError)."""
    import soundfile as sf

    samples = decode_audio(path, sample_rate=sample_rate, mono=True)
    buf = io.BytesIO()
    sf.write(buf, samples, sample_rate, format="WAV", subtype="PCM_16")
    return buf.getvalue()
