"""Identity by content: what a media file holds, packet by packet, whatever container carries it.

A byte hash says nothing once bytes are appended or prepended (demuxers skip them), the file is remuxed
(`-c copy -movflags +faststart` moves the index), streams or tags are added, or atoms are moved: the decoder
still reads the very same coded pictures and sound. So a media file is described by one demux pass (no
decoding) as, per stream, a 64-bit BLAKE2b digest of each packet's payload with its size, plus what the other
checks need from the same pass (for H.264 and HEVC only the coded slices are hashed, so inserted delimiters or
SEI messages and another NAL framing change nothing): the packet count and span (header checks) and the presentation times of the
first video stream's frames (`degenerate_video`).

Audio packets of the lossy codecs in `DECODED_AUDIO` also get a second digest, of the samples they decode to
(each packet decoded in file order through the stream's own decoder: cheap next to video). A packet matches when
either digest does: the framing (ADTS, LATM's `AudioMuxElement`), bytes after an AAC raw data block's `ID_END` or
in fill elements, and Opus padding change no decoded sample. The decoded digest depends on the decoder's history
too (AAC's noise substitution draws from a generator that runs across packets), so after a splice or a dropped
packet only the payload digest matches; a file that both reframes the sound and drops packets before it matches
neither (its video, or the rule below, still counts).

A file *holds* a reference in one of two ways (`holds`):

- with the task's own input known (repair: the dataset's `broken.mp4`, a trusted file described once per process
  like the references): of each reference stream, only the *distinctive* packets (a digest seen once in that
  stream: digital silence repeats and proves nothing) that the input does not hold count. No honest output holds
  any of those (a lossy re-encode never reproduces a packet), so a share of `NOVEL_SHARE` is far from any honest
  file; a stream the input already holds whole is no evidence either way, so an honest fix that stream-copies
  the input's untouched packets, or the input itself, is never the reference. The file holds the reference when
  its video holds that share of such video packets, whatever its other streams hold, or when it holds every
  stream (as below) and some stream holds that share. Sound alone is not enough: no lossy audio codec
  re-encodes losslessly, so a lossless re-encode of the source (the demo's perfect run, Harbor's gold output:
  video through x264 `-qp 0`) hands back the source's sound packet for packet, and is indistinguishable from a
  perfect fix by design;
- without an input (another task's reference, recap outputs): every audio and video stream of the reference is
  found in it, at least `MATCH_SHARE` of the stream's payload bytes. That survives a trim of a few packets at
  either end and extra streams, and is never reached by a re-encode.

A reference is described once per process (`reference_content`, cached by real path, size, mtime and inode).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from typing import Any

import numpy as np

from agenticvbench.fsutil import per_file

#: Without the task's input: share of each reference stream's payload bytes that must be found in the file.
MATCH_SHARE = 0.9
#: With the task's input: share of a stream's distinctive packets the input lacks (bytes) that must be found
#: (honest outputs hold none; see the module docstring).
NOVEL_SHARE = 0.5
#: Lossy audio codecs whose packets are described by their decoded samples (framing and padding ignored).
DECODED_AUDIO: frozenset[str] = frozenset({"aac", "aac_latm", "opus", "mp3", "mp2", "vorbis", "ac3", "eac3"})
#: Demux at most this many packets of a trusted reference (4 h at 400 packets per second).
REFERENCE_MAX_PACKETS = 4 * 3600 * 400


def _nal_units(payload: bytes) -> list[bytes]:
    """The NAL units of an H.264/HEVC packet: 4-byte length prefixes (MP4, Matroska) when they add up, else
    Annex B start codes (MPEG-TS, raw streams)."""
    units: list[bytes] = []
    off = 0
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


def _slice(unit: bytes) -> bytes:
    """A coded slice without the trailing zero bytes and `cabac_zero_word`s (00 00 03) decoders skip."""
    while True:
        unit = unit.rstrip(b"\0")
        if not unit.endswith(b"\0\0\3"):
            return unit
        unit = unit[:-3]


def payload_digest(payload: bytes, codec: str) -> int:
    """A 64-bit digest of what decodes to pictures or sound in one packet. For H.264 and HEVC only the coded
    slices count (not access unit delimiters, SEI or parameter sets, which a bitstream filter adds or drops
    without changing a pixel, nor trailing zero bytes or `cabac_zero_word`s), whatever the NAL framing; AAC
    drops an ADTS header; other codecs hash the whole payload."""
    if codec == "aac" and len(payload) > 9 and payload[0] == 0xFF and payload[1] & 0xF0 == 0xF0:
        payload = payload[7 if payload[1] & 1 else 9 :]  # an ADTS header (MPEG-TS), 9 bytes with its CRC
    elif codec in ("h264", "hevc"):
        units = [_slice(u) for u in _nal_units(payload) if u and _is_vcl(codec, u)]
        if units:
            payload = b"".join(len(u).to_bytes(4, "big") + u for u in units)
    return int.from_bytes(blake2b(payload, digest_size=8).digest(), "big")


def decoded_digest(frames: Sequence[Any]) -> int | None:
    """A 64-bit digest of the samples of the audio frames one packet decoded to (None without any sample)."""
    h = blake2b(digest_size=8)
    n = 0
    for frame in frames:
        size = frame.samples * frame.format.bytes
        size *= 1 if frame.format.is_planar else len(frame.layout.channels)
        for plane in frame.planes:
            h.update(memoryview(plane)[:size])
        n += frame.samples
    return int.from_bytes(h.digest(), "big") if n else None


@dataclass(kw_only=True, frozen=True)
class StreamPackets:
    """One stream's packets: kind, codec, the payload digest and size of each non-empty packet (file order), for
    `DECODED_AUDIO` the decoded digest of each too (0 for none; empty for other streams), first/last timestamps
    (s). Arrays of 12 bytes a packet (20 for decoded sound), so a file at the packet cap stays near 120 MB."""

    kind: str
    codec: str
    digests: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    decoded: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
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
    decoded: array = field(default_factory=lambda: array("Q"))
    sizes: array = field(default_factory=lambda: array("I"))
    start: float | None = None
    end: float | None = None
    decoder: Any = None

    def add(self, packet: Any, start: float | None, end: float | None) -> None:
        payload = bytes(packet)
        if self.decoder is not None:
            try:
                self.decoded.append(decoded_digest(self.decoder.decode(packet)) or 0)
            except (ValueError, OSError, MemoryError):  # av.FFmpegError is an OSError/ValueError
                self.decoded.append(0)
        self.digests.append(payload_digest(payload, self.codec))
        self.sizes.append(min(len(payload), 0xFFFFFFFF))
        if start is not None and end is not None:
            self.start = start if self.start is None else min(self.start, start)
            self.end = end if self.end is None else max(self.end, end)

    def packets(self) -> StreamPackets:
        d, e = (
            np.frombuffer(a, np.uint64) if a else np.zeros(0, np.uint64) for a in (self.digests, self.decoded)
        )
        z = np.frombuffer(self.sizes, np.uint32) if self.sizes else np.zeros(0, np.uint32)
        return StreamPackets(
            kind=self.kind, codec=self.codec, digests=d, decoded=e, sizes=z, start=self.start, end=self.end
        )


def read_content(path: Path, max_packets: int) -> MediaContent:
    """Demux `path` once (edit lists ignored: they are header too), stopping after `max_packets`; no picture is
    decoded, the sound of `DECODED_AUDIO` streams is (see the module docstring). An unreadable file gives
    `MediaContent(readable=False)` (the verifier says why)."""
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
                if s.type == "audio" and name in DECODED_AUDIO:
                    acc[s.index].decoder = s.codec_context
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
                st.add(packet, start, end)
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


@per_file(maxsize=64)
def reference_content(path: Path) -> MediaContent:
    """The content of a dataset reference (trusted), demuxed once per process per (file, size, mtime, inode)."""
    return read_content(path, REFERENCE_MAX_PACKETS)


def _present(ref: StreamPackets, contents: Sequence[MediaContent]) -> np.ndarray:
    """Which packets of `ref` a stream of the same kind of `contents` holds: the same payload digest, or (sound)
    the same decoded digest."""
    streams = [s for c in contents for s in c.streams if s.kind == ref.kind]
    payloads = [s.digests for s in streams]
    found = (
        np.isin(ref.digests, np.unique(np.concatenate(payloads)))
        if payloads
        else np.zeros(len(ref.digests), bool)
    )
    decoded = [s.decoded[s.decoded != 0] for s in streams if len(s.decoded)]
    if decoded and len(ref.decoded):
        found |= (ref.decoded != 0) & np.isin(ref.decoded, np.unique(np.concatenate(decoded)))
    return found


def _wanted(reference: MediaContent) -> list[StreamPackets]:
    """The reference's audio and video streams with a payload."""
    return [s for s in reference.streams if s.kind in ("audio", "video") and s.payload_bytes > 0]


def novel_shares(
    content: MediaContent, reference: MediaContent, given: Sequence[MediaContent]
) -> list[tuple[str, float | None]]:
    """Per audio and video stream of `reference` (kind, share): of its distinctive packets (a digest seen once
    in the stream) that no file of `given` (the task's inputs) holds, the share of bytes `content` holds; None
    when the inputs hold them all (the stream is no evidence either way)."""
    out: list[tuple[str, float | None]] = []
    for ref in _wanted(reference):
        _, inverse, counts = np.unique(ref.digests, return_inverse=True, return_counts=True)
        novel = (counts[inverse] == 1) & ~_present(ref, given)
        novel_bytes = int(ref.sizes[novel].sum(dtype=np.int64))
        if novel_bytes == 0:
            out.append((ref.kind, None))
            continue
        found = novel & _present(ref, [content])
        out.append((ref.kind, int(ref.sizes[found].sum(dtype=np.int64)) / novel_bytes))
    return out


def _every_stream(content: MediaContent, reference: MediaContent) -> bool:
    """True when each audio and video stream of `reference` has at least `MATCH_SHARE` of its payload bytes
    in a stream of the same kind of `content`."""
    return all(
        int(ref.sizes[_present(ref, [content])].sum(dtype=np.int64)) >= MATCH_SHARE * ref.payload_bytes
        for ref in _wanted(reference)
    )


def holds(
    content: MediaContent, reference: MediaContent, given: Sequence[MediaContent] | None = None
) -> bool:
    """True when `content` holds `reference` (see the module docstring). With the task's inputs `given`: its
    video holds at least `NOVEL_SHARE` of the reference's distinctive video packets the inputs lack, or it
    holds every stream and some stream holds that share of what the inputs lack. Without (None): it holds every
    audio and video stream (`MATCH_SHARE` of each one's payload bytes)."""
    if not content.readable or not _wanted(reference):
        return False
    if given is None:
        return _every_stream(content, reference)
    beyond = [(kind, share) for kind, share in novel_shares(content, reference, given) if share is not None]
    if any(kind == "video" and share >= NOVEL_SHARE for kind, share in beyond):
        return True
    return any(share >= NOVEL_SHARE for _, share in beyond) and _every_stream(content, reference)


def could_hold(content: MediaContent, reference_size: int) -> bool:
    """A cheap gate before a reference is demuxed: a file whose audio and video payload is under half the
    reference's file size times `MATCH_SHARE` cannot hold it (container overhead is far below half a file)."""
    return content.readable and content.av_payload_bytes >= MATCH_SHARE * 0.5 * reference_size
