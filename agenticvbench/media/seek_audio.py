"""The audio of one time span exactly as the official per-chunk extraction returns it, without a process per chunk.

The official repair scorer extracts every 10-s chunk with its own `ffmpeg -ss S -t T -i FILE -ac 1 -ar 48000`
run of Debian 12's ffmpeg 5.1 (input seeking). What that returns is not a slice of one whole-file decode:

- The demuxer seeks the file's default stream (its video, when there is one) to the last keyframe at or
  before S, and every other stream to the packet at or before that keyframe's time, on a timeline shifted by
  the track's edit list. So the audio decode starts fresh at that packet, up to a GOP before S; when a
  keyframe falls exactly on S, it starts at S itself.
- A fresh decoder differs from a continuous one for a while: the MDCT overlap is missing for the first frame,
  Opus needs ~200 ms to converge, and AAC's noise substitution restarts its random generator. A chunk that
  holds only a few ms of audio (the encoder's padding after the end of a file) is made of exactly that.
- Nothing past the container's duration is trimmed: ffmpeg 5.1 decodes the last AAC or Opus packet in full
  (newer releases trim it to the edit list), so a file that ends on a chunk boundary still yields its padding.

`SeekAudio` reads a file's header once. Per span it asks libavformat (PyAV) to make the same seek, which gives
the packet to start from (the mov demuxer's seek logic, edit lists included, is the same in ffmpeg 5.1 and
PyAV's libavformat), decodes from there with a fresh decoder and without the packets' side data (so nothing
is trimmed; a fresh Opus decoder drops its pre-skip, which moves the first frame's samples later), keeps the
samples from S on by timestamp, and downmixes to mono int16 at 48 kHz as ffmpeg's resampler does for mono and
stereo input; other sample rates go through the ffmpeg binary for that last step.

Measured against Debian's ffmpeg 5.1 (`docs/decisions/repair-audio.md`; `benchmarks/check_seek_audio.py`): every
span of 158 files (the script's matrix and 66 more) has 5.1's length and its samples within 1 LSB (the
decoders' own rounding between releases), for AAC (48, 44.1 and 32 kHz, mono and stereo), Opus (10-, 20- and 60-ms frames) and MP3 in mp4, with and
without video, audio starting late, chunk starts on and off keyframes, at and past the end of the file. Only
that is emulated (`emulates`: the mov family, AAC, Opus or MP3, mono or stereo, one audio stream; Matroska
seeks land elsewhere in ffmpeg 5.1): for anything else callers run the official command line with the
bundled ffmpeg, one process per chunk.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import cast

import av
import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.media.chunks import mono_s16_output
from agenticvbench.media.container import open_input
from agenticvbench.media.ffmpeg import run_ffmpeg

OUTPUT_RATE = 48000
_US = Fraction(1, 1_000_000)
_MOV_FORMATS = frozenset({"mov", "mp4", "m4a", "3gp", "3g2", "mj2"})
_CODECS = frozenset(
    {"aac", "opus", "mp3", "mp3float"}
)  # the decoders checked against ffmpeg 5.1 (float planar)
MAX_ERROR_RATE = 2 / 3  # ffmpeg's -max_error_rate default: more failed decodes than this and it exits 69


class NotEmulated(MediaError):
    """The decoded audio is not what the emulation was checked on (sample format, channels, rate)."""


def rescale(value: int, src: Fraction, dst: Fraction) -> int:
    """`av_rescale_q`: `value` in time base `src` expressed in `dst`, rounded to nearest, halves away from 0."""
    exact = Fraction(value) * src / dst
    half = Fraction(1, 2)
    return int(exact + half) if exact >= 0 else -int(-exact + half)


class SeekAudio:
    """One file's first audio stream, ready to return any span as the official per-chunk ffmpeg 5.1 run.

    Construction only reads the header; every `span` opens the file, seeks and decodes just that span (from
    the packet the seek lands on), so memory stays at one span whatever the file holds. Raises `MediaError`
    when the file cannot be opened or has no audio stream (the official extraction fails the chunk then).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        with open_input(self.path, need="audio") as container:
            audio = container.streams.audio[0]
            ctx = audio.codec_context
            if ctx is None or audio.time_base is None or not ctx.sample_rate or not ctx.channels:
                raise MediaError(
                    f"{self.path}: audio stream without a decoder, time base, sample rate or channels"
                )
            # emulated: what was checked against ffmpeg 5.1; one audio stream, so ffmpeg's choice is the same
            self.emulates = (
                bool(set(container.format.name.split(",")) & _MOV_FORMATS)
                and ctx.name in _CODECS
                and ctx.channels in (1, 2)
                and len(container.streams.audio) == 1
            )
            self.codec = ctx.name
            self.sample_rate = int(ctx.sample_rate)
            self.layout = ctx.layout.name
            self.channels = int(ctx.channels)
            self.extradata = ctx.extradata
            # samples a fresh decoder drops from its first output (Opus pre-skip); its frame pts stays unchanged
            self.delay = int(getattr(ctx, "delay", 0) or 0) if self.codec == "opus" else 0
            self.atb = Fraction(audio.time_base)
            self.file_start = int(container.start_time) if container.start_time is not None else 0

    def _target(self, start_s: float) -> int:
        """The seek target in microseconds: `-ss` as the official formats it (%.3f), plus the file's start."""
        return round(float(f"{start_s:.3f}") * 1_000_000) + self.file_start

    def _decoder(self) -> av.AudioCodecContext:
        ctx = cast(av.AudioCodecContext, av.CodecContext.create(self.codec, "r"))
        ctx.extradata = self.extradata
        ctx.sample_rate = self.sample_rate
        ctx.layout = self.layout
        return ctx

    def span(self, start_s: float, duration_s: float) -> np.ndarray:
        """Mono int16 PCM at 48 kHz of `-ss start_s -t duration_s`, as the official extraction returns it.

        libavformat seeks as ffmpeg 5.1 does (the default stream, backward, to a keyframe; the others to the
        packet at or before its time); the audio is decoded afresh from the first audio packet after the seek,
        and samples are placed by their timestamps relative to the seek target: those before it are dropped, and
        the span ends `duration_s` after the target, so a decode that starts after the target (a pre-skip that
        reaches past it) returns fewer samples, as ffmpeg does. A failed seek decodes from the start, as ffmpeg
        goes on after one; a packet the decoder refuses is dropped, and when more
        than 2/3 of the span's packets fail `MediaError` is raised (ffmpeg exits 69 then, failing the chunk); a
        read error (a truncated file) ends the span there. `NotEmulated` is raised when the decoder's output is
        not what the emulation was checked on (float planar, the header's channels and rate, one frame per
        packet): the caller then runs the official command line instead.
        """
        if duration_s <= 0:
            return np.zeros(0, np.int16)
        target = rescale(self._target(start_s), _US, self.atb)
        rate = Fraction(1, self.sample_rate)
        keep = rescale(round(float(f"{duration_s:.3f}") * 1_000_000), _US, rate)
        pieces: list[np.ndarray] = []
        ctx = self._decoder()
        skip = self.delay  # what the fresh decoder still drops before its first output
        decoded = failed = 0

        def place(frames: list[av.AudioFrame], pts: int | None, nominal: int) -> bool:
            """Keep the part of `frames` (decoded from a packet at `pts`) inside the span; True once it is full."""
            nonlocal skip
            if not frames and skip:
                skip = max(0, skip - nominal)  # a packet shorter than the pre-skip produced nothing
            if len(frames) > 1 and pts is not None:
                raise NotEmulated(f"{self.path}: several audio frames per packet")
            for frame in frames:
                if (
                    frame.format.name != "fltp"
                    or len(frame.layout.channels) != self.channels
                    or frame.sample_rate != self.sample_rate
                ):
                    raise NotEmulated(
                        f"{self.path}: decoded audio is {frame.format.name} "
                        f"{len(frame.layout.channels)} ch {frame.sample_rate} Hz"
                    )
                at = pts if pts is not None else frame.pts
                if not frame.samples or at is None:
                    continue
                pos = rescale(at - target, self.atb, rate) + skip
                skip = 0
                lo, hi = max(0, -pos), min(frame.samples, keep - pos)
                if hi > lo:
                    pieces.append(frame.to_ndarray().reshape(self.channels, -1)[:, lo:hi])
                if pos + frame.samples >= keep:
                    return True
            return False

        with open_input(self.path) as container:
            stream = container.streams.audio[0]
            try:
                container.seek(self._target(start_s), backward=True, any_frame=False)
            except (av.FFmpegError, OSError):
                pass  # nothing was read yet: decoding starts at the beginning, as ffmpeg's does
            try:
                for packet in container.demux(stream):
                    if packet.dts is None or packet.size == 0:
                        continue
                    fresh = av.Packet(bytes(packet))  # no side data: no skip, no end trimming
                    fresh.pts, fresh.dts, fresh.time_base = packet.pts, packet.dts, packet.time_base
                    nominal = rescale(int(packet.duration or 0), self.atb, rate)
                    try:
                        frames = ctx.decode(fresh)  # type: ignore[attr-defined]
                        decoded += 1
                    except av.FFmpegError:
                        failed += 1  # as the ffmpeg binary: report, drop the packet, go on
                        continue
                    if place(frames, packet.pts, nominal):
                        break
                else:
                    place(ctx.decode(None), None, 0)  # type: ignore[attr-defined]
            except (av.FFmpegError, OSError):
                pass  # a read error ends the file there
        if failed and failed > MAX_ERROR_RATE * (decoded + failed):  # ffmpeg then exits 69: the chunk fails
            raise MediaError(f"{self.path}: {failed} of {decoded + failed} audio packets failed to decode")
        return self._to_mono_s16(np.concatenate(pieces, axis=1)) if pieces else np.zeros(0, np.int16)

    def _to_mono_s16(self, planar: np.ndarray) -> np.ndarray:
        """ffmpeg's `-ac 1 -ar 48000 -acodec pcm_s16le` of planar float samples (in numpy at 48 kHz mono or
        stereo, which is bit-exact; through the ffmpeg binary otherwise)."""
        if planar.shape[1] == 0:
            return np.zeros(0, np.int16)
        if self.sample_rate == OUTPUT_RATE and self.channels in (1, 2):
            mono = (
                planar[0] if self.channels == 1 else planar[0] * np.float32(0.5) + planar[1] * np.float32(0.5)
            )
            return np.clip(np.rint(mono.astype(np.float32) * np.float32(32768.0)), -32768, 32767).astype(
                np.int16
            )
        interleaved = np.ascontiguousarray(planar.T, dtype="<f4").tobytes()
        proc = run_ffmpeg(
            [
                "-v",
                "error",
                "-f",
                "f32le",
                "-ar",
                str(self.sample_rate),
                "-ch_layout",
                self.layout,
                "-i",
                "pipe:0",
                *mono_s16_output(OUTPUT_RATE),
            ],
            input_bytes=interleaved,
            timeout=600.0,
        )
        if proc.returncode != 0:
            raise MediaError(f"{self.path}: ffmpeg audio conversion failed (exit {proc.returncode})")
        return np.frombuffer(proc.stdout, dtype="<i2")
