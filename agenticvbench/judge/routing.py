"""Which senses a recap `llm` item needs: route each item to a modality, from its dispatch, check kinds and text.

The rule is one table (`ROUTING_RULES`), read top to bottom; the first rule whose condition holds wins:

| rule | condition | modality |
|---|---|---|
| `sync` | a sync word (sync, beat, rhythm, lip-sync, ...) and a sound word | `video` |
| `sound-and-picture` | a sound word and a picture word (shot, frame, title, card, colour, on screen, ...) | `audio_visual` |
| `sound` | a sound word (audio, music, sound, dialogue, voice, narration, silence, ...), or an audio check kind | `audio` |
| `picture` | anything else | `visual` |

Words match whole words, case-insensitively, in the item's prompt and criterion. A compound item's python stages
count too: an audio check kind (`librosa_*`, `ffmpeg_audio_*`, `ffprobe_audio_*`, ...) adds a sound signal.

What each modality sends (`MODALITY_PARTS`): `visual` the sampled frames (image parts); `audio` the audio itself
(one audio part); `audio_visual` frames and audio; `video` one video part, or, where the endpoint refuses video,
frames and audio (`VIDEO_FALLBACK`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

Modality = Literal["visual", "audio", "audio_visual", "video"]
MODALITIES: tuple[Modality, ...] = ("visual", "audio", "audio_visual", "video")
PartKind = Literal["image", "audio", "video"]
PART_KINDS: tuple[PartKind, ...] = ("image", "audio", "video")

#: The parts each modality sends to the judge.
MODALITY_PARTS: dict[Modality, tuple[PartKind, ...]] = {
    "visual": ("image",),
    "audio": ("audio",),
    "audio_visual": ("image", "audio"),
    "video": ("video",),
}
#: What `video` sends when the endpoint does not accept video parts.
VIDEO_FALLBACK: tuple[PartKind, ...] = ("image", "audio")


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


SOUND_WORDS = _words(
    "audio sound sounds soundtrack music musical song songs dialogue dialog voice voices voiceover "
    "voice-over narration narrator narrated speech spoken speaks speaking speaker silence silent loud loudness "
    "quiet volume mute muted hear heard audible inaudible sfx ambience ambient"
)
PICTURE_WORDS = _words(
    "shot shots frame frames framing title card cards caption captions subtitle subtitles text on-screen "
    "screen image images visual visuals visible colour color colours colors picture scene scenes logo graphic "
    "graphics shows shown show see seen opens"
)
SYNC_WORDS = _words(
    "sync synced synchronised synchronized synchrony lip-sync beat beats rhythm rhythmic on-beat"
)
AUDIO_KIND_PREFIXES = ("librosa_", "ffmpeg_audio", "ffprobe_audio", "ffmpeg_silence", "ffmpeg_loudnorm")


def _matcher(words: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(r"(?<![\w-])(" + alternatives + r")(?![\w-])", re.IGNORECASE)


_SOUND, _PICTURE, _SYNC = _matcher(SOUND_WORDS), _matcher(PICTURE_WORDS), _matcher(SYNC_WORDS)


@dataclass(frozen=True)
class Signals:
    """What an item's text and kinds say: the sound, picture and sync words found, and audio check kinds."""

    sound: tuple[str, ...]
    picture: tuple[str, ...]
    sync: tuple[str, ...]
    audio_kinds: tuple[str, ...]


@dataclass(frozen=True)
class RoutingRule:
    """One row of the routing table: its name, its condition and the modality it routes to."""

    name: str
    when: Callable[[Signals], bool]
    modality: Modality


ROUTING_RULES: tuple[RoutingRule, ...] = (
    RoutingRule("sync", lambda s: bool(s.sync) and bool(s.sound or s.audio_kinds), "video"),
    RoutingRule(
        "sound-and-picture", lambda s: bool(s.sound or s.audio_kinds) and bool(s.picture), "audio_visual"
    ),
    RoutingRule("sound", lambda s: bool(s.sound or s.audio_kinds), "audio"),
    RoutingRule("picture", lambda s: True, "visual"),
)


@dataclass(frozen=True)
class Route:
    """An item's modality, the rule that chose it and the words (or kinds) that triggered it."""

    modality: Modality
    rule: str
    because: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (a result's item detail)."""
        return {"modality": self.modality, "rule": self.rule, "because": list(self.because)}


def _found(pattern: re.Pattern[str], text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m.group(1).lower() for m in pattern.finditer(text)))


def signals(text: str, kinds: Iterable[str] = ()) -> Signals:
    """The routing signals of an item's text and check kinds."""
    audio_kinds = tuple(k for k in kinds if k and k.startswith(AUDIO_KIND_PREFIXES))
    return Signals(_found(_SOUND, text), _found(_PICTURE, text), _found(_SYNC, text), audio_kinds)


def route_item(dispatch: str, kinds: Iterable[str], text: str) -> Route:
    """The modality of one judged item (`dispatch` llm or compound; `kinds` its python stages' check kinds; `text`
    its prompt and criterion), by the first matching row of `ROUTING_RULES`."""
    s = signals(text, kinds if dispatch == "compound" else ())
    for rule in ROUTING_RULES:
        if rule.when(s):
            because = {
                "sync": s.sync + s.sound + s.audio_kinds,
                "sound-and-picture": s.sound + s.audio_kinds + s.picture,
                "sound": s.sound + s.audio_kinds,
            }.get(rule.name, ())
            return Route(rule.modality, rule.name, because)
    raise AssertionError("the last routing rule always matches")  # pragma: no cover


_T = r"(\d+(?::\d{1,2})?(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)?"
_RANGE = re.compile(r"\b(?:between|from)\s+" + _T + r"\s*(?:and|to|-|–)\s*" + _T, re.IGNORECASE)
_FIRST = re.compile(r"\bfirst\s+(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)\b", re.IGNORECASE)
_LAST = re.compile(r"\b(?:last|final)\s+(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)\b", re.IGNORECASE)


def _seconds(token: str) -> float:
    if ":" in token:
        minutes, secs = token.split(":", 1)
        return int(minutes) * 60 + float(secs)
    return float(token)


def item_time_range(text: str, duration: float) -> tuple[float, float] | None:
    """The time range an item names ("between 0:05 and 0:12", "from 3 s to 8 s", "the first 10 seconds", "the
    last 5 s"), clamped to [0, duration]; None when it names none (or an empty one)."""
    span: tuple[float, float] | None = None
    if m := _RANGE.search(text):
        span = (_seconds(m.group(1)), _seconds(m.group(2)))
    elif m := _FIRST.search(text):
        span = (0.0, float(m.group(1)))
    elif m := _LAST.search(text):
        span = (duration - float(m.group(1)), duration)
    if span is None:
        return None
    start, end = max(0.0, min(span)), min(duration, max(span)) if duration > 0 else max(span)
    return (start, end) if end > start else None
