"""Container-level recap kinds: duration, resolution, codecs, format, frame rate, audio streams,
channels and bit rate, all from one memoised probe. Like the official kinds they read the first video / audio
stream."""

from __future__ import annotations

from typing import Any

from agenticvbench.media.probe import parse_rate
from agenticvbench.verifiers.recap.kind_registry import KindResult, ParamError, fmt, kind, num, req, str_list
from agenticvbench.verifiers.recap.media_facts import MediaFacts


@kind("ffprobe_duration_range")
def duration_range(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """min <= format duration <= max; no duration fails."""
    lo, hi = num(req(params, "min"), "min"), num(req(params, "max"), "max")
    d = facts.probe().duration
    if d is None:
        return KindResult(False, "no duration")
    return KindResult(lo <= d <= hi, f"duration {fmt(d, 's')} (range {fmt(lo)}-{fmt(hi)} s)")


def _resolution(facts: MediaFacts) -> tuple[int, int] | None:
    v = facts.probe().video
    if v is None or v.width is None or v.height is None:
        return None
    return int(v.width), int(v.height)


@kind("ffprobe_resolution_eq")
def resolution_eq(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """Exact width and height of the first video stream."""
    w, h = num(req(params, "width"), "width"), num(req(params, "height"), "height")
    res = _resolution(facts)
    if res is None:
        return KindResult(False, "no video stream")
    return KindResult(res == (w, h), f"resolution {res[0]}x{res[1]} (want {fmt(w)}x{fmt(h)})")


@kind("ffprobe_resolution_in")
def resolution_in(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """(width, height) is one of `options` ([[w, h], ...])."""
    raw = req(params, "options")
    try:
        options = [(num(o[0], "options"), num(o[1], "options")) for o in raw]
    except (TypeError, IndexError, KeyError):
        raise ParamError(f"parameter 'options' must be a list of [w, h] pairs, got {raw!r}") from None
    res = _resolution(facts)
    if res is None:
        return KindResult(False, "no video stream")
    shown = ", ".join(f"{fmt(w)}x{fmt(h)}" for w, h in options)
    return KindResult(res in options, f"resolution {res[0]}x{res[1]} (allowed {shown})")


def _codec_in(facts: MediaFacts, params: dict[str, Any], what: str) -> KindResult:
    allowed = [c.lower() for c in str_list(req(params, "codecs"), "codecs")]
    stream = facts.probe().video if what == "video" else facts.probe().audio
    if stream is None:
        return KindResult(False, f"no {what} stream")
    name = (stream.codec_name or "").lower()
    return KindResult(
        bool(name) and name in allowed, f"{what} codec {name or 'unknown'} (allowed {', '.join(allowed)})"
    )


@kind("ffprobe_video_codec_in")
def video_codec_in(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """The first video stream's codec_name (lower-cased) is in `codecs`."""
    return _codec_in(facts, params, "video")


@kind("ffprobe_audio_codec_in")
def audio_codec_in(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """The first audio stream's codec_name is in `codecs`; no audio fails."""
    return _codec_in(facts, params, "audio")


@kind("ffprobe_format_in")
def format_in(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """Any lower-cased substring occurs in the lower-cased format_name."""
    subs = [s.lower() for s in str_list(req(params, "substrings"), "substrings")]
    name = facts.probe().format_name.lower()
    return KindResult(any(s in name for s in subs), f"format {name} (want any of {', '.join(subs)})")


@kind("ffprobe_fps_range")
def fps_range(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """min <= r_frame_rate <= max (default 1e9) of the first video stream."""
    lo, hi = num(req(params, "min"), "min"), num(params.get("max", 1e9), "max")
    v = facts.probe().video
    if v is None:
        return KindResult(False, "no video stream")
    fps = parse_rate(v.r_frame_rate)
    if fps is None:
        return KindResult(False, f"unknown frame rate ({v.r_frame_rate})")
    return KindResult(
        lo <= fps <= hi, f"fps {fmt(fps)} (r_frame_rate {v.r_frame_rate}; range {fmt(lo)}-{fmt(hi)})"
    )


@kind("ffprobe_audio_streams")
def audio_streams(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """The number of audio streams equals `eq`, else lies in [min (0), max (1e6)]."""
    n = len(facts.probe().audio_streams)
    if "eq" in params:
        eq = num(params["eq"], "eq")
        return KindResult(n == eq, f"{n} audio stream(s) (want {fmt(eq)})")
    lo, hi = num(params.get("min", 0), "min"), num(params.get("max", 1e6), "max")
    return KindResult(lo <= n <= hi, f"{n} audio stream(s) (range {fmt(lo)}-{fmt(hi)})")


@kind("ffprobe_audio_channels_eq")
def audio_channels_eq(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """The first audio stream has exactly `channels` channels; no audio fails."""
    want = num(req(params, "channels"), "channels")
    a = facts.probe().audio
    if a is None:
        return KindResult(False, "no audio stream")
    return KindResult(a.channels == want, f"{a.channels} audio channel(s) (want {fmt(want)})")


@kind("ffprobe_bitrate_min")
def bitrate_min(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """The video stream's bit_rate, or else the container's, is at least `min_bps`."""
    lo = num(req(params, "min_bps"), "min_bps")
    info = facts.probe()
    v = info.video
    rate, source = (
        (v.bit_rate, "video stream") if v is not None and v.bit_rate else (info.bit_rate, "container")
    )
    if not rate:
        return KindResult(False, "no bit rate")
    return KindResult(rate >= lo, f"bit rate {rate} bps ({source}; min {fmt(lo)})")
