"""What the judge shows the model about one video: its digest, its sampled frames, its audio and video parts and
its audio block.

Each is computed once per video, on first use, by a `memo.Memo` (items are judged on several threads; one lock
per value, and a failure is not memoised, so the next item tries again): the SHA-256 and media digest
(`cache.media_digest`, the cache key's media part), the frames (`sample_video`) and, for items about
sound, the text block of measured audio facts and, with `settings.transcribe`, a transcript
(`prompts.describe_audio`). A failure to measure or transcribe only leaves a note; the verdict is still asked.

The audio and video parts (`av_parts.encode_audio`, `encode_video`: bounded, mono, capped) are encoded once per
time range. The digest of a delivery (`delivery_digest`) is the cache key's media part: for frames alone it is
the original `media_digest` (so verdicts on frames keep their keys); with audio or video parts it adds the parts
sent, their encoding settings (`JudgeSettings.media_key`) and the version of their labels, so a changed audio
encoding is a different key.

Frames are taken at `frame_rate` per second (the first frame at or after t = 0, 1/rate, 2/rate, ...); when that
would exceed `max_frames`, `max_frames` times are spread evenly over the video instead (the middle of each of
`max_frames` equal slices), so a long recap is covered end to end. Decoding goes through the one media toolkit.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.fsutil import file_sha256, text_sha256
from agenticvbench.judge import prompts
from agenticvbench.judge.av_parts import EncodedMedia, encode_audio, encode_video
from agenticvbench.judge.cache import media_digest
from agenticvbench.judge.endpoint import CallFailed, short
from agenticvbench.judge.settings import JudgeSettings
from agenticvbench.media import decode_audio, iter_frames, probe
from agenticvbench.memo import Memo

AudioFacts = Callable[[], Mapping[str, Any] | None]


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


class JudgedVideo:
    """One task's video as the judge sees it (lazy, thread-safe)."""

    def __init__(
        self,
        video: str | Path,
        settings: JudgeSettings,
        *,
        note: Callable[[str], None],
        audio_facts: AudioFacts | None = None,
        transcribe: Callable[[bytes], str] | None = None,
    ) -> None:
        self.path = Path(video)
        self.settings = settings
        self.sha256: str | None = None
        self._note = note
        self._audio_facts = audio_facts
        self._transcribe = transcribe
        self._memo = Memo(memoise_failures=False)  # a failed hash, sampling or audio block is retried

    def digest(self) -> str:
        """The media digest (content SHA-256 plus the sampling settings); also sets `sha256`."""
        return self._memo.get("digest", self._digest)

    def delivery_digest(self, parts: tuple[str, ...]) -> str:
        """The media digest of a request carrying `parts` (module docstring)."""
        base = self.digest()
        if tuple(parts) == ("image",):
            return base
        media = {kind: self.settings.media_key(kind) for kind in parts}
        payload = {
            "media": base,
            "parts": list(parts),
            "encodings": media,
            "labels": prompts.MEDIA_LABELS_VERSION,
        }
        return text_sha256(json.dumps(payload, sort_keys=True))

    def duration(self) -> float:
        """The video's duration in seconds (0 when unknown)."""
        return self._memo.get("info", lambda: probe(self.path)).duration or 0.0

    def has_audio(self) -> bool:
        """True when the video has an audio stream."""
        return self._memo.get("info", lambda: probe(self.path)).audio is not None

    def audio(self, time_range: tuple[float, float] | None) -> EncodedMedia:
        """The bounded audio part (for `time_range`, else the whole video); a failure raises `CallFailed`."""

        def encode() -> EncodedMedia:
            try:
                return encode_audio(self.path, self.settings, duration=self.duration(), time_range=time_range)
            except MediaError as exc:
                raise CallFailed(f"cannot encode the audio ({exc})", fatal=False) from None

        return self._memo.get(("audio-part", time_range), encode)

    def video(self, time_range: tuple[float, float] | None) -> EncodedMedia:
        """The bounded video part; raises MediaError when it exceeds the endpoint's limit or cannot be encoded."""
        return self._memo.get(
            ("video-part", time_range),
            lambda: encode_video(self.path, self.settings, duration=self.duration(), time_range=time_range),
        )

    def frames(self) -> SampledVideo:
        """The sampled frames; an unreadable video raises a fatal `CallFailed` (no item can be asked)."""
        return self._memo.get("frames", self._sample)

    def audio_text(self) -> str:
        """The audio block for items about sound."""
        return self._memo.get("audio", self._audio_block)

    def _digest(self) -> str:
        self.sha256 = file_sha256(self.path)
        return media_digest(self.path, self.settings.sampling_key(), self.sha256)

    def _sample(self) -> SampledVideo:
        s = self.settings
        try:
            return sample_video(
                self.path,
                frame_rate=s.frame_rate,
                max_frames=s.max_frames,
                max_side=s.max_side,
                quality=s.jpeg_quality,
            )
        except MediaError as exc:
            raise CallFailed(f"cannot sample frames ({exc})", fatal=True) from None

    def _audio_block(self) -> str:
        facts: Mapping[str, Any] | None = None
        if self._audio_facts is not None:
            try:
                facts = self._audio_facts()
            except Exception as exc:  # a measurement failure must not sink the verdict
                self._note(f"audio facts unavailable: {short(exc)}")
        transcript = None
        if self.settings.transcribe and not (facts is not None and facts.get("has_audio") is False):
            transcript = self._transcript()
        return prompts.describe_audio(facts, transcript)

    def _transcript(self) -> str | None:
        if self._transcribe is None:
            return None
        try:
            wav = audio_wav_bytes(self.path)
        except MediaError as exc:
            self._note(f"transcript unavailable: {exc}")
            return None
        try:
            return self._transcribe(wav)
        except CallFailed as exc:
            self._note(f"transcript unavailable: {exc}")
            return None
