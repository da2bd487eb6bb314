"""Edit rubric, audio part: per-chunk FFT cross-correlation of fixed vs source, as the official edit rubric.

Each chunk's audio is what the official per-chunk `ffmpeg -ss S -t T` extraction (ffmpeg 5.1) returns, made by
`media.seek_audio.SeekAudio` in this process: the same seek (to the video keyframe at or before S),
a fresh decode from there, nothing trimmed past the end. A slice of one whole-file decode is not the same: a
chunk that starts on a keyframe begins with a fresh decoder's transient, AAC noise substitution differs
throughout, and a chunk holding only the encoder's end padding is nothing but that transient. What the
emulation was not checked on (`SeekAudio.emulates`: other containers, codecs, layouts, several audio streams)
is extracted per chunk with the bundled ffmpeg binary, the official command line. The source's spans are
cached (`SourceCache`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.signal import correlate

from agenticvbench.errors import MediaError
from agenticvbench.media.chunks import pcm_s16
from agenticvbench.media.seek_audio import NotEmulated, SeekAudio
from agenticvbench.verifiers.repair.pcm_norm import pcm_norm

if TYPE_CHECKING:  # pragma: no cover
    from agenticvbench.verifiers.repair.edit_video import ChunkPlan
    from agenticvbench.verifiers.repair.source_cache import SourceCache


AUDIO_SR = 48000
AUDIO_MAX_LAG_MS = 150
MAX_LAG_SAMPLES = round(AUDIO_MAX_LAG_MS / 1000 * AUDIO_SR)  # 7200


@dataclass(kw_only=True, frozen=True)
class ChunkAudio:
    """One chunk's audio signals, in- and out-of-window: xcorr score, peak norm, peak lag (ms), seconds."""

    xcorr_in: float | None
    xcorr_out: float | None
    peak_norm_in: float | None
    peak_norm_out: float | None
    peak_lag_ms_in: float | None
    peak_lag_ms_out: float | None
    dur_in: float
    dur_out: float

    def detail(self) -> dict[str, Any]:
        """The official per-chunk `audio_*` keys, in the official order (the fields' order)."""
        return {f"audio_{f.name}": getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class AudioPass:
    """Outcome of `audio_pass`.

    `chunks`: per chunk its `ChunkAudio`, or the official worker's error string when its extraction failed;
    `mode`: how the fixed file's chunks were extracted ("seek" or "per-chunk"; None when extraction failed before);
    `len_s`: seconds of PCM over all chunks, (fixed, source) (None when extraction failed before);
    `elapsed_s`: wall time of the pass.
    """

    chunks: tuple[ChunkAudio | str, ...]
    mode: str | None = None
    len_s: tuple[float, float] | None = None
    elapsed_s: float = 0.0

    @property
    def all_failed(self) -> bool:
        """True when every chunk's extraction failed (D-R8), so no chunk can be scored."""
        return all(isinstance(c, str) for c in self.chunks)


def xcorr_score(a16: np.ndarray, b16: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """(score, peak_norm, lag_ms) of two int16 PCM spans of equal length: the signed FFT cross-correlation peak
    within +/-150 ms of their float32 samples, over the product of their norms (`pcm_norm`), lag-penalised."""
    if a16.size == 0 or b16.size == 0:
        return None, None, None
    na, nb = pcm_norm(a16), pcm_norm(b16)
    if na == 0.0 and nb == 0.0:  # the official detail values of these two cases
        return 1.0, 1.0, 0.0
    if na == 0.0 or nb == 0.0:
        return 0.0, 0.0, None
    a = a16.astype(np.float32) / np.float32(32768.0)
    b = b16.astype(np.float32) / np.float32(32768.0)
    xc = correlate(a, b, mode="full", method="fft")
    zero = a.size - 1
    lo, hi = max(0, zero - MAX_LAG_SAMPLES), min(xc.size - 1, zero + MAX_LAG_SAMPLES)
    peak = lo + int(np.argmax(xc[lo : hi + 1]))
    lag = peak - zero
    peak_norm = float(xc[peak]) / (na * nb)
    score = min(1.0, max(0.0, peak_norm * max(0.0, 1.0 - abs(lag) / MAX_LAG_SAMPLES)))
    return score, peak_norm, lag * 1000.0 / AUDIO_SR


def _chunk_audio(
    a16: np.ndarray, b16: np.ndarray, plan: ChunkPlan, window: tuple[float, float] | None
) -> ChunkAudio:
    """Audio signals of one chunk: fixed `a16` vs source `b16` (int16 PCM of the chunk), split by the window."""
    n = min(a16.size, b16.size)
    a, b = a16[:n], b16[:n]
    start, end = plan.start, plan.end
    if window is not None and end > window[0] and start < window[1]:
        ws, we = window
        i0 = min(n, max(0, round((max(start, ws) - start) * AUDIO_SR)))
        i1 = min(n, max(0, round((min(end, we) - start) * AUDIO_SR)))
        dur_in = min(end, we) - max(start, ws)
        sin = xcorr_score(a[i0:i1], b[i0:i1])
        sout = xcorr_score(np.concatenate([a[:i0], a[i1:]]), np.concatenate([b[:i0], b[i1:]]))
        dur_out = plan.dur - dur_in
    else:
        sin, dur_in = (None, None, None), 0.0
        sout, dur_out = xcorr_score(a, b), plan.dur
    return ChunkAudio(
        xcorr_in=sin[0],
        xcorr_out=sout[0],
        peak_norm_in=sin[1],
        peak_norm_out=sout[1],
        peak_lag_ms_in=sin[2],
        peak_lag_ms_out=sout[2],
        dur_in=dur_in,
        dur_out=dur_out,
    )


def audio_pass(
    fixed: Path,
    source: Path,
    plans: Sequence[ChunkPlan],
    window: tuple[float, float] | None,
    cache: SourceCache,
) -> AudioPass:
    """Per-chunk audio signals of `fixed` vs `source`, or an error string for a chunk whose extraction failed
    (D-R8: every chunk), with the extraction mode, the PCM lengths and the pass's wall time."""
    t0 = time.perf_counter()
    chunks, mode, len_s = _audio_chunks(fixed, source, plans, window, cache)
    return AudioPass(tuple(chunks), mode, len_s, time.perf_counter() - t0)


def span_key(plan: ChunkPlan) -> str:
    """Cache key of a chunk's span, as the official command line spells it (`-ss %.3f -t %.3f`)."""
    return f"{plan.start:.3f}+{plan.dur:.3f}"


def file_spans(path: Path, plans: Sequence[ChunkPlan]) -> tuple[dict[str, np.ndarray | str], str]:
    """Each chunk's mono int16 48-kHz PCM of `path` as the official extraction returns it (or the chunk's error
    string, where the official extraction would fail), and how it was made: "seek", emulated in-process, or
    "per-chunk", one bundled-ffmpeg run per chunk (the official command line), for what the emulation was not
    checked on. Raises `MediaError` when the file has no readable audio stream (every chunk fails then)."""
    audio = SeekAudio(path)
    if audio.emulates:
        # NotEmulated: the decoder's output was not what the emulation was checked on; the whole file goes below
        with suppress(NotEmulated):
            return {span_key(p): _extract(audio.span, p) for p in plans}, "seek"
    return {
        span_key(p): _extract(lambda s, d: pcm_s16(path, start_s=s, duration_s=d), p) for p in plans
    }, "per-chunk"


def _extract(extract: Callable[[float, float], np.ndarray], plan: ChunkPlan) -> np.ndarray | str:
    """One chunk's PCM, or the official worker's error string when the extraction fails (`NotEmulated` passes)."""
    try:
        return extract(plan.start, plan.dur)
    except NotEmulated:
        raise
    except MediaError as exc:
        return f"chunk failed: RuntimeError: {exc}"


def _audio_chunks(
    fixed: Path,
    source: Path,
    plans: Sequence[ChunkPlan],
    window: tuple[float, float] | None,
    cache: SourceCache,
) -> tuple[list[ChunkAudio | str], str | None, tuple[float, float] | None]:
    try:
        src: dict[str, np.ndarray | str] = dict(cache.load_audio_spans())
        if not all(span_key(p) in src for p in plans):
            computed, _ = file_spans(source, plans)
            src = {**src, **computed}
            # best-effort (a failed write lands in cache.write_errors); a chunk's error is not cached
            cache.save_audio_spans({k: v for k, v in src.items() if not isinstance(v, str)})
        fix, mode = file_spans(fixed, plans)
    except MediaError as exc:
        return [f"chunk failed: RuntimeError: {exc}"] * len(plans), None, None
    keys = [span_key(p) for p in plans]
    fix_len, src_len = (
        sum(v.size for k in keys if not isinstance(v := side[k], str)) / AUDIO_SR for side in (fix, src)
    )
    out: list[ChunkAudio | str] = []
    for k, p in zip(keys, plans, strict=True):
        a, b = fix[k], src[k]
        out.append(a if isinstance(a, str) else b if isinstance(b, str) else _chunk_audio(a, b, p, window))
    return out, mode, (fix_len, src_len)
