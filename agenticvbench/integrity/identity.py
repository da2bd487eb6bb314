"""Identity by content: what a media file holds, packet by packet, whatever container carries it.

A byte hash says nothing once bytes are appended or prepended (demuxers skip them), the file is remuxed
(`-c copy -movflags +faststart` moves the index), streams or tags are added, or atoms are moved: the decoder
still reads the very same coded pictures and sound. So a media file is described by one demux pass (no
decoding) as, per stream, a 64-bit BLAKE2b digest of each packet's payload with its size, plus what the other
checks need from the same pass (for H.264 and HEVC only the coded slices are hashed, so inserted delimiters or
SEI messages and another NAL framing change nothing): the packet count and span (header checks) and the presentation times of the
first video stream's frames (`degenerate_video`).

A file *holds* a reference when every audio and video stream of the reference is found in it: at least
`MATCH_SHARE` of the stream's payload bytes are packets with a digest present in a stream of the same kind of the
file. That survives a trim of a few packets at either end and extra streams, and is never reached by a re-encode
(which changes every packet) or by an honest repair that re-encodes the stream it fixed: the broken input keeps
the untouched stream packet for packet, and that alone is not enough.

A reference is described once per process (`reference_content`, cached by real path, size, mtime and inode).
"""

from __future__ import annotations

import os
from array import array
from dataclasses import dataclass, field
from functools import lru_cache
from hashlib import blake2b
from pathlib import Path

import numpy as np

#: Share of each reference stream's payload bytes that must be found in the file.
MATCH_SHARE = 0.9
#: Demux at most this many packets of a trusted reference (4 h at 400 packets per second).
REFERENCE_MAX_PACKETS = 4 * 3600 * 400


def _nal_units(payload: bytes) -> list[bytes]:
    """The NAL units of an H.264/HEVC packet: 4-byte length prefixes (MP4, Matroska) when they add up, else
    Annex B start codes (MPEG-TS, raw streams)."""
    units, off = [], 0
    while off + 4 <= len(payload):
        size = int.from_bytes(payload[off : off + 4], "big")
        if size == 0 or off + 4 + size > len(payload):
            break
        units.append(payload[off + 4 : off + 4 + size])
        off += 4 + size
    if off == len(payload) and units:
        return units
    return [u for u in (piece.rstrip(b"\0") for piece in payload.split(b"\0\0\1")) if u]


def _is_vcl(codec: str, unit: bytes) -> bool:
    if codec == "h264":
        return 1 <= (unit[0] & 0x1F) <= 5
    return (unit[0] >> 1) & 0x3F <= 31  # hevc


def payload_digest(payload: bytes, codec: str) -> int:
    """A 64-bit digest of what decodes to pictures or sound in one packet. For H.264 and HEVC only the coded
    slices count (not access unit delimiters, SEI or parameter sets, which a bitstream filter adds or drops
    without changing a pixel), whatever the NAL framing; AAC drops an ADTS header; other codecs hash the whole
    payload."""
    if codec == "aac" and len(payload) > 9 and payload[0] == 0xFF and payload[1] & 0xF0 == 0xF0:
        payload = payload[7 if payload[1] & 1 else 9 :]  # an ADTS header (MPEG-TS), 9 bytes with its CRC
    elif codec in ("h264", "hevc"):
        units = [u for u in _nal_units(payload) if u and _is_vcl(codec, u)]
        if units:
            payload = b"".join(len(u).to_bytes(4, "big") + u for u in units)
    return int.from_bytes(blake2b(payload, digest_size=8).digest(), "big")


@dataclass(kw_only=True, frozen=True)
class StreamPackets:
    """One stream's packets: kind, codec, the payload digest and size of each non-empty packet (file order),
    first/last timestamps (s). Arrays of 12 bytes a packet, so a file at the packet cap stays near 70 MB."""

    kind: str
    codec: str
    digests: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    sizes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))
    start: float | None = None
    end: float | None = None

    @property
    def payload_bytes(self) -> int:
        """Payload bytes of the stream's packets."""
        return int(self.sizes.sum(dtype=np.int64))

    @property
    def span(self) -> float:
        """Seconds from the first packet's start to the last one's end (0 without timed packets)."""
        return 0.0 if self.start is None or self.end is None else self.end - self.start


@dataclass(kw_only=True, frozen=True)
class MediaContent:
    """What one demux pass saw: `packets` read (stopped past the cap: `over_cap`), their overall span, each
    stream, and the sorted presentation times of the first video stream's non-empty packets (its frames)."""

    packets: int = 0
    span: float | None = None
    streams: tuple[StreamPackets, ...] = ()
    frame_times: np.ndarray = field(default_factory=lambda: np.zeros(0))
    over_cap: bool = False
    readable: bool = False

    def first(self, kind: str) -> StreamPackets | None:
        """The first stream of `kind` ("video" or "audio"), or None."""
        return next((s for s in self.streams if s.kind == kind), None)

    @property
    def av_payload_bytes(self) -> int:
        """Payload bytes of every audio and video stream."""
        return sum(s.payload_bytes for s in self.streams if s.kind in ("audio", "video"))


@dataclass(kw_only=True)
class _Acc:
    """One stream's packets while they are read."""

    kind: str
    codec: str
    digests: array = field(default_factory=lambda: array("Q"))
    sizes: array = field(default_factory=lambda: array("I"))
    start: float | None = None
    end: float | None = None

    def add(self, payload: bytes, start: float | None, end: float | None) -> None:
        self.digests.append(payload_digest(payload, self.codec))
        self.sizes.append(min(len(payload), 0xFFFFFFFF))
        if start is not None and end is not None:
            self.start = start if self.start is None else min(self.start, start)
            self.end = end if self.end is None else max(self.end, end)

    def packets(self) -> StreamPackets:
        d = np.frombuffer(self.digests, np.uint64) if self.digests else np.zeros(0, np.uint64)
        z = np.frombuffer(self.sizes, np.uint32) if self.sizes else np.zeros(0, np.uint32)
        return StreamPackets(
            kind=self.kind, codec=self.codec, digests=d, sizes=z, start=self.start, end=self.end
        )


def read_content(path: Path, max_packets: int) -> MediaContent:
    """Demux `path` once without decoding (edit lists ignored: they are header too), stopping after
    `max_packets`; an unreadable file gives `MediaContent(readable=False)` (the verifier says why)."""
    import av

    from agenticvbench.errors import MediaError
    from agenticvbench.media.container import open_input

    n = 0
    lo: float | None = None
    hi: float | None = None
    acc: dict[int, _Acc] = {}
    times = array("d")
    first_video: int | None = None
    try:
        with open_input(path, options={"ignore_editlist": "1"}) as container:
            for s in container.streams:
                name = s.codec_context.name if s.codec_context is not None else ""
                acc[s.index] = _Acc(kind=str(s.type), codec=name or "")
                if s.type == "video" and first_video is None:
                    first_video = s.index
            for packet in container.demux():
                n += 1
                if n > max_packets:
                    break
                t = packet.pts if packet.pts is not None else packet.dts
                start = end = None
                if t is not None and packet.time_base is not None:
                    start = float(t * packet.time_base)
                    end = start + float((packet.duration or 0) * packet.time_base)
                    lo = start if lo is None else min(lo, start)
                    hi = end if hi is None else max(hi, end)
                st = acc.get(packet.stream.index)
                if st is None or packet.size == 0:
                    continue
                st.add(bytes(packet), start, end)
                if start is not None and packet.stream.index == first_video:
                    times.append(start)
    except (MediaError, av.FFmpegError, OSError, ValueError):
        return MediaContent()
    streams = tuple(a.packets() for a in acc.values())
    span = None if lo is None or hi is None else hi - lo
    frames = np.sort(np.frombuffer(times, np.float64)) if times else np.zeros(0)
    return MediaContent(
        packets=min(n, max_packets + 1),
        span=span,
        streams=streams,
        frame_times=frames,
        over_cap=n > max_packets,
        readable=True,
    )


@lru_cache(maxsize=64)
def _reference_cached(real: str, size: int, mtime_ns: int, ino: int) -> MediaContent:
    return read_content(Path(real), REFERENCE_MAX_PACKETS)


def reference_content(path: Path) -> MediaContent:
    """The content of a dataset reference (trusted), demuxed once per process per (file, size, mtime, inode)."""
    real = os.path.realpath(path)
    st = os.stat(real)
    return _reference_cached(real, st.st_size, st.st_mtime_ns, st.st_ino)


def holds(content: MediaContent, reference: MediaContent) -> bool:
    """True when `content` holds every audio and video stream of `reference` (see the module docstring)."""
    wanted = [s for s in reference.streams if s.kind in ("audio", "video") and s.payload_bytes > 0]
    if not wanted or not content.readable:
        return False
    for ref_stream in wanted:
        same_kind = [s.digests for s in content.streams if s.kind == ref_stream.kind]
        if not same_kind:
            return False
        present = np.isin(ref_stream.digests, np.unique(np.concatenate(same_kind)))
        found = int(ref_stream.sizes[present].sum(dtype=np.int64))
        if found < MATCH_SHARE * ref_stream.payload_bytes:
            return False
    return True


def could_hold(content: MediaContent, reference_size: int) -> bool:
    """A cheap gate before a reference is demuxed: a file whose audio and video payload is under half the
    reference's file size times `MATCH_SHARE` cannot hold it (container overhead is far below half a file)."""
    return content.readable and content.av_payload_bytes >= MATCH_SHARE * 0.5 * reference_size
