"""Probe a media file with PyAV and describe it in ffprobe's vocabulary.

PyAV reads the same libavformat fields `ffprobe -show_format -show_streams` prints (`format_name`, `codec_name`,
`avg_frame_rate`, `r_frame_rate`, size, duration, sample rate), so no ffprobe binary is needed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import av

from agenticvbench.errors import MediaError
from agenticvbench.media.container import open_input
from agenticvbench.runs.pinned import pinned


def _ratio(fr: Fraction | None) -> str:
    """Render a rate the way ffprobe does (`30000/1001`, `0/0` when unknown)."""
    if fr is None:
        return "0/0"
    fr = Fraction(fr)
    return f"{fr.numerator}/{fr.denominator}"


def parse_rate(text: str | None) -> float | None:
    """Parse an ffprobe rate string (`24/1`, `30000/1001`, `0/0`) to a float; None when unknown."""
    if not text:
        return None
    try:
        num, _, den = text.partition("/")
        n, d = float(num), float(den or 1)
    except ValueError:
        return None
    return None if d == 0 or n == 0 else n / d


@dataclass(kw_only=True, frozen=True)
class StreamInfo:
    """One stream, with ffprobe's field names."""

    index: int
    codec_type: str
    codec_name: str | None
    width: int | None = None
    height: int | None = None
    pix_fmt: str | None = None
    avg_frame_rate: str = "0/0"
    r_frame_rate: str = "0/0"
    sample_rate: int | None = None
    channels: int | None = None
    bit_rate: int | None = None
    duration: float | None = None
    nb_frames: int | None = None

    @property
    def fps(self) -> float | None:
        """Average frame rate, falling back to r_frame_rate when it is `0/0` (the official format rule)."""
        return parse_rate(self.avg_frame_rate) or parse_rate(self.r_frame_rate)


@dataclass(kw_only=True, frozen=True)
class ProbeResult:
    """What `ffprobe -show_format -show_streams` would say about a file."""

    path: str
    format_name: str
    duration: float | None
    bit_rate: int | None
    size: int
    streams: list[StreamInfo] = field(default_factory=list)

    @property
    def video(self) -> StreamInfo | None:
        """The first video stream (the one every official check uses)."""
        return next((s for s in self.streams if s.codec_type == "video"), None)

    @property
    def audio(self) -> StreamInfo | None:
        """The first audio stream."""
        return next((s for s in self.streams if s.codec_type == "audio"), None)

    @property
    def audio_streams(self) -> list[StreamInfo]:
        """All audio streams."""
        return [s for s in self.streams if s.codec_type == "audio"]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form, for result details and caches."""
        return asdict(self)


def _stream_info(stream: av.stream.Stream) -> StreamInfo:
    cc: Any = stream.codec_context
    kind = stream.type
    tb = stream.time_base
    dur = float(stream.duration * tb) if stream.duration is not None and tb is not None else None
    common: dict[str, Any] = {
        "index": stream.index,
        "codec_type": kind,
        "codec_name": cc.name if cc is not None else None,
        "bit_rate": (cc.bit_rate or None) if cc is not None else None,
        "duration": dur,
        "nb_frames": stream.frames or None,
    }
    if kind == "video":
        return StreamInfo(
            **common,
            width=cc.width or None,
            height=cc.height or None,
            pix_fmt=cc.pix_fmt,
            avg_frame_rate=_ratio(stream.average_rate),
            r_frame_rate=_ratio(stream.base_rate),
        )
    if kind == "audio":
        channels = cc.layout.nb_channels if getattr(cc, "layout", None) is not None else None
        return StreamInfo(**common, sample_rate=cc.sample_rate or None, channels=channels)
    return StreamInfo(**common)


def probe(path: str | Path) -> ProbeResult:
    """Probe `path`; raises `MediaError` when the file is missing or libavformat cannot open it."""
    p = Path(path)
    pin = pinned(p)
    if pin is None and not p.is_file():
        raise MediaError(f"{p}: file not found")
    try:
        with open_input(p) as container:
            duration = container.duration / av.time_base if container.duration is not None else None
            return ProbeResult(
                path=str(p),
                format_name=container.format.name,
                duration=duration,
                bit_rate=container.bit_rate or None,
                size=pin.size if pin is not None else p.stat().st_size,
                streams=[_stream_info(s) for s in container.streams],
            )
    except (av.FFmpegError, OSError, ValueError) as exc:
        raise MediaError(f"{p}: cannot probe ({exc})") from None
