"""The judge's prompt template, its version and its hash.

Any edit to the texts below changes `prompt_hash()`; bump `PROMPT_TEMPLATE_VERSION` (which is part of every
cache key) and record the new hash in `KNOWN_HASHES`, so cached verdicts from an older template are never
reused for the new one (a test pins the pair).

The request mirrors the public recap runner: the item's criterion followed by a fixed suffix asking for
exactly one line of strict JSON `{"pass": true|false, "reason": "..."}`. Differences: the video is shown as
timestamped frames (OpenAI-compatible endpoints take images, not video files), a short system prompt says so,
and items about sound get a measured description of the audio track (and optionally a transcript), because
most chat endpoints cannot listen to audio.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agenticvbench.fsutil import text_sha256

PROMPT_TEMPLATE_VERSION = "recap-judge-v1"

SYSTEM_PROMPT = (
    "You are a strict reviewer of edited videos. You are shown one edited video (final.mp4) as still frames "
    "sampled in time order, each labelled with its timestamp, and sometimes a measured description of its audio "
    "track. Judge ONLY the single criterion you are given. Base the verdict on the evidence shown; if the evidence "
    "does not show that the criterion is met, the verdict is false."
)
VIDEO_HEADER = (
    "The video lasts {duration:.2f} s at {width}x{height}. {n_frames} frames follow, in time order."
)
FRAME_LABEL = "Frame at t={time:.2f} s:"
AUDIO_HEADER = "Audio track (measured by tools, not heard):"
NO_AUDIO = "The video has no audio track."
TRANSCRIPT_HEADER = "Automatic transcript of the audio:"
CRITERION_HEADER = "Criterion:"
VERDICT_SUFFIX = (
    'Reply with exactly one line of strict JSON and nothing else: {"pass": true|false, '
    '"reason": "<explanation of at most 30 words>"}'
)

#: template version -> prompt_hash(); a test fails if the texts change without a version bump.
KNOWN_HASHES: dict[str, str] = {
    "recap-judge-v1": "c35dae6f13046707eeaba26ff4ca22335dba990f5b48a29894ff7b78557462aa",
    "recap-judge-violation-v1": "61e02624296b8aad9c1e5fd70f72afec7067446cf605ec8a1e6b08cb3dd5a2a5",
}

#: Labels of the audio and video parts (versioned on their own: they are part of the media digest of every item
#: that sends such a part, so the `legacy` template and its cached frame verdicts stay unchanged).
MEDIA_LABELS_VERSION = "media-labels-v1"
AUDIO_PART_LABEL = "Audio of the video from t={start:.2f} s to t={end:.2f} s (mono; listen to it):"
VIDEO_PART_LABEL = "The video itself from t={start:.2f} s to t={end:.2f} s, with its sound:"
MEDIA_HEADER = "The video lasts {duration:.2f} s. No frames are shown for this criterion."

#: Words that make an item "about sound": its request then carries the audio description.
SOUND_WORDS = tuple(
    (
        "audio sound sounds soundtrack music musical song songs dialogue dialog voice voices voiceover voice-over "
        "narration narrator speech spoken speaks speaking silence silent loud loudness quiet volume mute "
        "muted lufs hear heard audible inaudible sfx"
    ).split()
)
_SOUND_RE = re.compile(
    r"(?<![\w-])(" + "|".join(re.escape(w) for w in SOUND_WORDS) + r")(?![\w-])", re.IGNORECASE
)


def prompt_hash() -> str:
    """SHA-256 of the template version and every fixed text of the template (recorded in result provenance)."""
    parts = [
        PROMPT_TEMPLATE_VERSION,
        SYSTEM_PROMPT,
        VIDEO_HEADER,
        FRAME_LABEL,
        AUDIO_HEADER,
        NO_AUDIO,
        TRANSCRIPT_HEADER,
        CRITERION_HEADER,
        VERDICT_SUFFIX,
        ",".join(SOUND_WORDS),
    ]
    return text_sha256("\x1f".join(parts))


def is_about_sound(item_prompt: str) -> bool:
    """True when the criterion mentions sound (audio, music, dialogue, voice, silence, loud, ...)."""
    return bool(_SOUND_RE.search(item_prompt))


def describe_audio(facts: Mapping[str, Any] | None, transcript: str | None) -> str:
    """The audio block of a sound item's request: measured loudness facts, then the transcript if any."""
    if facts is not None and facts.get("has_audio") is False:
        return NO_AUDIO
    lines = [AUDIO_HEADER]
    labels = {
        "integrated_lufs": ("integrated loudness", "LUFS"),
        "mean_volume_db": ("mean volume", "dB"),
        "max_volume_db": ("peak volume", "dB"),
        "longest_silence_s": ("longest silence", "s"),
    }
    for key, value in (facts or {}).items():
        if key == "has_audio" or value is None:
            continue
        label, unit = labels.get(key, (key.replace("_", " "), ""))
        shown = f"{value:.2f}" if isinstance(value, float) else str(value)
        lines.append(f"- {label}: {shown}{' ' + unit if unit else ''}")
    if facts is None:
        lines.append("- (measurements unavailable)")
    if transcript is not None:
        lines += [TRANSCRIPT_HEADER, transcript.strip() or "(no speech recognised)"]
    return "\n".join(lines)


def build_messages(
    criterion_block: str,
    *,
    duration: float,
    width: int,
    height: int,
    frames: list[tuple[float, str]] | None,
    image_detail: str,
    audio_text: str | None,
    media_parts: list[dict[str, Any]] | None = None,
) -> list[dict]:
    """Chat messages for one item: system prompt, then one user turn of [header, (label, frame)..., audio and
    video parts, audio block, criterion block]. `frames` holds (time, data URL) pairs (None: no frames are
    sent); `criterion_block` is the profile's closing text (`profiles.Profile.criterion_block`)."""
    if frames is not None:
        header = VIDEO_HEADER.format(duration=duration, width=width, height=height, n_frames=len(frames))
    else:
        header = MEDIA_HEADER.format(duration=duration)
    content: list[dict[str, Any]] = [{"type": "text", "text": header}]
    for t, url in frames or []:
        content.append({"type": "text", "text": FRAME_LABEL.format(time=t)})
        content.append({"type": "image_url", "image_url": {"url": url, "detail": image_detail}})
    content += media_parts or []
    if audio_text:
        content.append({"type": "text", "text": audio_text})
    content.append({"type": "text", "text": criterion_block})
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": content}]
