"""What the judge shows the model about one video: its digest, its sampled frames and its audio block.

Each is computed once per video, on first use, by a `memo.Memo` (items are judged on several threads; one lock
per value, and a failure is not memoised, so the next item tries again): the SHA-256 and media digest
(`cache.media_digest`, the cache key's media part), the frames (`frames.sample_video`) and, for items about
sound, the text block of measured audio facts and, with `settings.transcribe`, a transcript
(`prompts.describe_audio`). A failure to measure or transcribe only leaves a note; the verdict is still asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agenticvbench.errors import MediaError
from agenticvbench.fsutil import file_sha256
from agenticvbench.judge import prompts
from agenticvbench.judge.cache import media_digest
from agenticvbench.judge.endpoint import CallFailed, short
from agenticvbench.judge.frames import SampledVideo, audio_wav_bytes, sample_video
from agenticvbench.judge.settings import JudgeSettings
from agenticvbench.memo import Memo

AudioFacts = Callable[[], Mapping[str, Any] | None]


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
