"""Edit rubric, audio part: per-chunk FFT cross-correlation of fixed vs source, as the official edit rubric.

Each file's audio is decoded once to 48 kHz mono s16 and sliced per chunk, which is bit-identical to the official
per-chunk `ffmpeg -ss S -t T` extraction; when an audio stream does not start with its file, slicing would
misalign, so the official per-chunk extraction is used instead. When chunks reach past the end of a file's
audio, the decode keeps the AAC end padding as the official scorer's ffmpeg 5.1 does (`with_end_padding`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from scipy.signal import correlate

from agenticvbench.errors import MediaError
from agenticvbench.media.chunks import audio_start_offset, pcm_s16, pcm_s16_untrimmed

if TYPE_CHECKING:  # pragma: no cover
    from agenticvbench.verifiers.repair.features import SourceCache


class ChunkSpan(Protocol):
    """The time span of one 10-s chunk (what this module needs of `edit.ChunkPlan`)."""

    @property
    def start(self) -> float: ...
    @property
    def end(self) -> float: ...
    @property
    def dur(self) -> float: ...

AUDIO_SR = 48000
AUDIO_MAX_LAG_MS = 150
MAX_LAG_SAMPLES = round(AUDIO_MAX_LAG_MS / 1000 * AUDIO_SR)  # 7200
END_GUARD = 256  # trailing samples where a resampled untrimmed decode may differ from the trimmed one


def xcorr_score(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """(score, peak_norm, lag_ms): signed FFT cross-correlation peak within +/-150 ms, lag-penalised."""
    if a.size == 0 or b.size == 0:
        return None, None, None
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 and nb == 0.0:  # the official detail values of these two cases
        return 1.0, 1.0, 0.0
    if na == 0.0 or nb == 0.0:
        return 0.0, 0.0, None
    xc = correlate(a, b, mode="full", method="fft")
    zero = a.size - 1
    lo, hi = max(0, zero - MAX_LAG_SAMPLES), min(xc.size - 1, zero + MAX_LAG_SAMPLES)
    peak = lo + int(np.argmax(xc[lo:hi + 1]))
    lag = peak - zero
    peak_norm = float(xc[peak]) / (na * nb)
    score = min(1.0, max(0.0, peak_norm * max(0.0, 1.0 - abs(lag) / MAX_LAG_SAMPLES)))
    return score, peak_norm, lag * 1000.0 / AUDIO_SR


def _chunk_audio(a16: np.ndarray, b16: np.ndarray, plan: ChunkSpan,
                 window: tuple[float, float] | None) -> dict[str, Any]:
    """Audio signals of one chunk: fixed `a16` vs source `b16` (int16 PCM of the chunk), split by the window."""
    n = min(a16.size, b16.size)
    a = a16[:n].astype(np.float32) / np.float32(32768.0)
    b = b16[:n].astype(np.float32) / np.float32(32768.0)
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
    return {"audio_xcorr_in": sin[0], "audio_xcorr_out": sout[0], "audio_peak_norm_in": sin[1],
            "audio_peak_norm_out": sout[1], "audio_peak_lag_ms_in": sin[2], "audio_peak_lag_ms_out": sout[2],
            "audio_dur_in": dur_in, "audio_dur_out": dur_out}


def with_end_padding(path: Path, pcm: np.ndarray, needed: int | None, note: dict[str, int],
                     name: str) -> np.ndarray:
    """`pcm` (a whole-file decode) extended by the AAC end padding when the chunks read past its end.

    The official scorer extracts each chunk with its own ffmpeg 5.1 run, which decodes the last AAC packet in
    full: a file whose audio ends before the last chunk still yields up to 1023 samples past its duration, and
    a chunk starting exactly at the end of the file gets an xcorr on them. `pcm_s16_untrimmed` gives that
    decode; it is used only when it agrees with `pcm` sample for sample up to `pcm`'s end (the last 256
    samples excepted, where a resampler flushes differently), so it can only add the tail. `note[name]`
    records how many samples were added. `needed` (samples the chunks read) skips the work when `pcm` is long
    enough; None always tries.
    """
    if needed is not None and pcm.size >= needed:
        return pcm
    try:
        full = pcm_s16_untrimmed(path)
    except MediaError:
        return pcm  # the trimmed decode stands; the tail is a few ms at most
    if full is None or full.size <= pcm.size:
        return pcm
    keep = max(0, pcm.size - END_GUARD)
    if not np.array_equal(full[:keep], pcm[:keep]):
        return pcm
    note[name] = int(full.size - pcm.size)
    return full


def audio_pass(fixed: Path, source: Path, plans: Sequence[ChunkSpan], window: tuple[float, float] | None,
                cache: SourceCache, info: dict[str, Any]) -> list[dict[str, Any] | str]:
    """Per-chunk audio detail, or an error string for a chunk whose extraction failed (D-R8: every chunk)."""
    t0 = time.perf_counter()
    try:
        return _audio_chunks(fixed, source, plans, window, cache, info)
    finally:
        info["audio_s"] = time.perf_counter() - t0


def _audio_chunks(fixed: Path, source: Path, plans: Sequence[ChunkSpan], window: tuple[float, float] | None,
                  cache: SourceCache, info: dict[str, Any]) -> list[dict[str, Any] | str]:
    offsets = []
    for path in (fixed, source):
        try:
            offsets.append(audio_start_offset(path) or 0.0)
        except MediaError:
            offsets.append(0.0)
    if max(abs(o) for o in offsets) > 5e-4:  # audio not starting with the file: slicing would misalign
        info["audio_mode"] = "per-chunk"
        out: list[dict[str, Any] | str] = []
        for p in plans:
            try:
                a = pcm_s16(fixed, start_s=p.start, duration_s=p.dur)
                b = pcm_s16(source, start_s=p.start, duration_s=p.dur)
            except MediaError as exc:
                out.append(f"chunk failed: RuntimeError: {exc}")
                continue
            out.append(_chunk_audio(a, b, p, window))
        return out
    info["audio_mode"] = "whole"
    last = plans[-1]
    needed = round(float(f"{last.start:.3f}") * AUDIO_SR) + round(float(f"{last.dur:.3f}") * AUDIO_SR)
    padding: dict[str, int] = {}
    src_pcm = cache.load_audio()
    try:
        if src_pcm is None:
            # cached across profiles, so padded whatever this profile's duration needs
            src_pcm = with_end_padding(source, pcm_s16(source), None, padding, "source")
            cache.save_audio(src_pcm)  # best-effort: a failed write lands in cache.write_errors
        fix_pcm = with_end_padding(fixed, pcm_s16(fixed), needed, padding, "fixed")
    except MediaError as exc:
        return [f"chunk failed: RuntimeError: {exc}"] * len(plans)
    info["audio_end_padding"] = padding
    info["audio_len_s"] = (fix_pcm.size / AUDIO_SR, src_pcm.size / AUDIO_SR)
    out = []
    for p in plans:
        a0, n = round(float(f"{p.start:.3f}") * AUDIO_SR), round(float(f"{p.dur:.3f}") * AUDIO_SR)
        out.append(_chunk_audio(fix_pcm[a0:a0 + n], src_pcm[a0:a0 + n], p, window))
    return out
