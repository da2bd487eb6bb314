"""Edit rubric (60 pts): fixed.mp4 against the source over the whole video, as the official `lib/rubrics/edit.py`.

Same numbers, different machinery. The official scorer re-opens and seeks both videos for
every 10-s chunk and buffers a chunk of full-resolution source frames. Here each video is decoded once,
sequentially (`edit_video.video_pass`); only frames inside the +/-10-frame lag band stay in memory; per-frame
features are computed lazily (`FrameFeatures`); SSIM is one compiled pass per pair (`ssim.py`); a lag candidate
whose upper bound sharp*chroma*lagpen cannot beat the best value so far skips its SSIM (exact, as SSIM <= 1); and
every chunk's audio is decoded as the official per-chunk `ffmpeg -ss` returns it (`edit_audio.audio_pass`). Both
passes return typed values (`VideoPass`, `AudioPass`) from which `score_edit` builds the official detail.

Frame sets, exactly as upstream: chunk c starts at OpenCV's seek frame `int(start * fps + 0.5)` of each video;
the source buffer is round(dur * fps_src) frames; fixed frames i = 0, k, 2k, ... (k = max(1, round(fps_fix/10)))
up to round(dur * 10) samples (min 2); candidates are the dHash top-3 of the band [i-10, i+10] (clipped to the
buffer) plus i itself. A sample whose band is empty (no source frame within +/-10, e.g. past the end of the
source or at a fixed frame rate above the source's) is skipped, as the official `lo >= hi: continue`.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.media import probe
from agenticvbench.media.chunks import opencv_seek_frame
from agenticvbench.verifiers.repair.constants import (
    EDIT_MAX,
    MAX_DURATION_S,
    NO_AUDIO_WARNING,
    NO_VIDEO_WARNING,
    clamp01,
)
from agenticvbench.verifiers.repair.edit_audio import AUDIO_MAX_LAG_MS, AUDIO_SR, AudioPass, audio_pass
from agenticvbench.verifiers.repair.edit_video import ChunkPlan, ChunkVideo, VideoPass, video_pass
from agenticvbench.verifiers.repair.features import (
    CHROMA_NORM,
    LAG_BAND_FRAMES,
    LAG_PENALTY_PER_FRAME,
    LAG_TOPK,
)
from agenticvbench.verifiers.repair.source_cache import SourceCache

SAMPLE_FPS = 10
CHUNK_DURATION_S = 10.0
MAX_DEDUCT_FRAC = 1.0
FLOOR_FRAC = 0.0
HASH_THRESHOLD = 4  # diagnostic only upstream; changes no score


@dataclass
class EditResult:
    """Edit rubric outcome: `score` in 0..60, the official `detail.edit` dict, warnings and timings (s)."""

    score: float
    detail: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def plan_chunks(duration_s: float, fps_src: float, fps_fix: float) -> list[ChunkPlan]:
    """Chunks [t, min(t+10, D)] for t = 0, 10, ... while t < D - 1e-6, with the official frame sets.

    Raises `ValueError` for a non-finite `duration_s` or one above `MAX_DURATION_S`: past ~1.8e17 s, `t += 10`
    no longer changes `t` and the loop would never end (profiles.derive rejects such profiles first).
    """
    if not math.isfinite(duration_s) or duration_s > MAX_DURATION_S:
        raise ValueError(f"duration_s must be finite and at most {MAX_DURATION_S:g} s, got {duration_s!r}")
    plans: list[ChunkPlan] = []
    k = max(1, round(fps_fix / SAMPLE_FPS))
    t = 0.0
    while t < duration_s - 1e-6:
        end = min(t + CHUNK_DURATION_S, duration_s)
        dur = end - t
        cap = max(2, round(dur * SAMPLE_FPS))
        samples = tuple(range(0, round(dur * fps_fix), k))[:cap]
        plans.append(
            ChunkPlan(
                index=len(plans),
                start=t,
                end=end,
                src_first=opencv_seek_frame(t, fps_src),
                src_count=round(dur * fps_src),
                fix_first=opencv_seek_frame(t, fps_fix),
                samples=samples,
            )
        )
        t += CHUNK_DURATION_S
    return plans


# ------------------------------------------------------------------------------------------ aggregation ----


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if values else None


def _weighted(pairs: list[tuple[float | None, float]]) -> float | None:
    """Weighted mean skipping None signals and zero weights (None when nothing is left)."""
    kept = [(v, w) for v, w in pairs if v is not None and w > 0]
    total = sum(w for _, w in kept)
    return sum(v * w for v, w in kept) / total if kept else None


def _deduct(budget: float, weight: float, signal: float | None) -> float:
    return 0.0 if signal is None else min(MAX_DEDUCT_FRAC * budget, weight * budget * max(0.0, 1.0 - signal))


def _modality(
    budget: float,
    signal: str,
    signals: tuple[float | None, float | None],
    weights: tuple[float, float],
    extra: dict[str, Any],
) -> dict[str, Any]:
    """One modality's detail in the official key order: sub-score, `signal`_in/_out, deductions, `extra`, weights."""
    d_in, d_out = _deduct(budget, weights[0], signals[0]), _deduct(budget, weights[1], signals[1])
    return {
        "sub": max(FLOOR_FRAC * budget, budget - d_in - d_out),
        f"{signal}_in": signals[0],
        f"{signal}_out": signals[1],
        "deduct_in": d_in,
        "deduct_out": d_out,
        **extra,
        "w_in": weights[0],
        "w_out": weights[1],
    }


def _chunk_detail(
    plan: ChunkPlan, video: ChunkVideo, audio: dict[str, Any], window: tuple[float, float] | None
) -> dict[str, Any]:
    inside = [window is not None and window[0] <= t <= window[1] for t in video.ts]
    v_in = [v for v, f in zip(video.values, inside, strict=True) if f]
    v_out = [v for v, f in zip(video.values, inside, strict=True) if not f]
    l_in = [abs(g) for g, f in zip(video.lags, inside, strict=True) if f]
    l_out = [abs(g) for g, f in zip(video.lags, inside, strict=True) if not f]
    return {
        "start_s": plan.start,
        "end_s": plan.end,
        "duration_s": plan.dur,
        "n_video_in": len(v_in),
        "n_video_out": len(v_out),
        "video_ssim_in": clamp01(_mean(v_in)),
        "video_ssim_out": clamp01(_mean(v_out)),
        "video_lag_in_frames": _mean(l_in),
        "video_lag_out_frames": _mean(l_out),
        **audio,
    }


def aggregate_chunks(
    chunks: list[dict[str, Any]], *, video_share: float, audio_share: float, w_in: float, w_out: float
) -> tuple[float, dict[str, Any], dict[str, Any]]:
    """(edit score, detail.video, detail.audio) from per-chunk details (`detail["chunks"]`).

    Video signals are sample-count-weighted and audio signals seconds-weighted means of the chunk signals
    (None or zero weight skipped); each modality's budget B = 60 * share loses
    min(B, w * B * max(0, 1 - s)) for s_in and s_out, floored at 0; a None signal deducts nothing. Shares and
    weights enter only here, so other settings can be scored from one pass.
    """

    def sw(key: str, n: str) -> float | None:
        return _weighted([(c[key], c[n]) for c in chunks])

    ssim = sw("video_ssim_in", "n_video_in"), sw("video_ssim_out", "n_video_out")
    xcorr = sw("audio_xcorr_in", "audio_dur_in"), sw("audio_xcorr_out", "audio_dur_out")
    lags = {
        "mean_abs_lag_frames_in": sw("video_lag_in_frames", "n_video_in"),
        "mean_abs_lag_frames_out": sw("video_lag_out_frames", "n_video_out"),
    }
    video = _modality(EDIT_MAX * video_share, "ssim", ssim, (w_in, w_out), lags)
    audio = _modality(EDIT_MAX * audio_share, "xcorr", xcorr, (w_in, w_out), {})
    total = float(video["sub"] or 0.0) + float(audio["sub"] or 0.0)  # both set by _modality, never None
    return total, video, audio


def _constants(video_share: float, audio_share: float, w_in: float, w_out: float) -> dict[str, Any]:
    return {
        "sample_fps": SAMPLE_FPS,
        "chunk_duration_s": CHUNK_DURATION_S,
        "audio_sr": AUDIO_SR,
        "video_share": video_share,
        "audio_share": audio_share,
        "w_in": w_in,
        "w_out": w_out,
        "audio_max_lag_ms": AUDIO_MAX_LAG_MS,
        "max_deduct_frac": MAX_DEDUCT_FRAC,
        "floor_frac": FLOOR_FRAC,
        "chroma_norm": CHROMA_NORM,
        "lag_band_frames": LAG_BAND_FRAMES,
        "lag_penalty_per_frame": LAG_PENALTY_PER_FRAME,
        "lag_topk": LAG_TOPK,
        "hash_threshold": HASH_THRESHOLD,
    }


def _all_failed(n_chunks: int, errors: list[str]) -> dict[str, Any]:
    """The edit detail when no chunk could be scored (edit 0)."""
    return {"score": 0.0, "max": EDIT_MAX, "error": f"all {n_chunks} chunks failed", "chunk_errors": errors}


def _warnings(
    plans: list[ChunkPlan], fps_fix: float, video: VideoPass, audio: AudioPass, duration_s: float
) -> list[str]:
    out: list[str] = []
    tails = [
        p
        for p in plans
        if p.samples and (p.samples[-1] + max(1, round(fps_fix / SAMPLE_FPS))) < round(p.dur * fps_fix)
    ]
    if tails:
        p = tails[0]
        covered = (p.samples[-1] + 1) / fps_fix
        out.append(
            f"D-R6: at {fps_fix:.3f} fps the fixed video is sampled every {round(fps_fix / SAMPLE_FPS)} "
            f"frames with a cap of {len(p.samples)} samples per chunk, so only the first {covered:.2f} s "
            f"of each {p.dur:g}-s chunk is video-checked ({len(tails)} chunks); defects in the tails "
            "are invisible to the video SSIM, as in the official scorer"
        )
    ended = [p.start for p, v in zip(plans, video.chunks, strict=True) if v.fixed_ended]
    fixed_error = video.fixed_error
    fix_len, src_len = audio.len_s if audio.len_s is not None else (0.0, 0.0)
    short_audio = audio.len_s is not None and fix_len < min(src_len, duration_s) - 0.1
    if (ended and fixed_error is None) or short_audio:
        what = [f"its video ends in the chunk at {ended[0]:g} s"] if ended and fixed_error is None else []
        what += [f"its audio is {fix_len:.2f} s vs {min(src_len, duration_s):.2f} s"] if short_audio else []
        out.append(
            f"D-R7: fixed.mp4 is shorter than the source ({'; '.join(what)}); as upstream the missing "
            "part simply drops out of the weighted means, so edit does not penalise it"
        )
    if fixed_error is not None:
        out.append(
            f"fixed.mp4 video could not be fully decoded ({fixed_error}); as with OpenCV's read() the "
            "unreadable part gives no samples and deducts nothing"
        )
    n_empty = video.n_empty_band
    if n_empty:
        out.append(
            f"{n_empty} video samples had no source frame within +/-{LAG_BAND_FRAMES} frames (fixed "
            "frame rate above the source's, or a source shorter than the profile duration); as upstream "
            "they are skipped and count in no mean"
        )
    return out


def score_edit(
    fixed_mp4: Path,
    source_mp4: Path,
    *,
    duration_s: float,
    window: tuple[float, float] | None,
    video_share: float,
    audio_share: float,
    w_in: float = 2.5,
    w_out: float = 1.0,
    cache_dir: Path | None = None,
    workers: int = 2,
) -> EditResult:
    """Score the edit rubric of `fixed_mp4` against `source_mp4` (official numbers within decoder noise).

    `duration_s` is the profile's source duration (it alone drives the chunking), `window` the in-window
    span (None: every sample is out-of-window), the shares split the 60 points between video and audio.
    `cache_dir` enables the source feature cache; `workers` threads score samples and audio (1: inline).
    Raises `MediaError` only when the source cannot be read at all.
    """
    t0 = time.perf_counter()
    workers = max(1, int(workers))
    fixed, source = Path(fixed_mp4), Path(source_mp4)
    pr_src, pr_fix = probe(source), probe(fixed)
    if pr_src.video is None:
        raise MediaError(f"{source}: no video stream")
    fps_src = pr_src.video.fps or 24.0
    fps_fix = (pr_fix.video.fps if pr_fix.video is not None else None) or 24.0
    size = (int(pr_src.video.width or 0), int(pr_src.video.height or 0))
    plans = plan_chunks(duration_s, fps_src, fps_fix)
    win = None if window is None else (float(window[0]), float(window[1]))
    timings: dict[str, float] = {}
    if not plans:
        return EditResult(0.0, {"score": 0.0, "max": EDIT_MAX, "error": "no chunks (duration_s <= 0)"})
    if pr_fix.video is None:  # OpenCV cannot open it: upstream fails every chunk before reading any audio
        detail = _all_failed(len(plans), ["cv2 open failed"] * len(plans))
        return EditResult(0.0, detail, [NO_VIDEO_WARNING], {"total_s": time.perf_counter() - t0})
    cache = SourceCache(cache_dir, source)
    timings["setup_s"] = time.perf_counter() - t0
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="edit") if workers > 1 else None
    try:
        t1 = time.perf_counter()
        audio_job: Future[AudioPass] | None = None
        audio: AudioPass | None = None
        if pr_fix.audio is None or pr_src.audio is None:  # D-R8: every chunk will fail; learn it first
            audio = audio_pass(fixed, source, plans, win, cache)
        elif pool is not None:
            # in this task's context, so an ffmpeg failure there is still this task's (collect_tool_failures)
            audio_job = pool.submit(
                contextvars.copy_context().run, audio_pass, fixed, source, plans, win, cache
            )
        if audio is not None and audio.all_failed:
            video = VideoPass.skipped(len(plans))  # nothing would survive
        else:
            video = video_pass(fixed, source, plans, fps_fix, size, cache, pool, workers)
        timings["video_s"] = time.perf_counter() - t1
        t2 = time.perf_counter()
        if audio is None:
            audio = audio_job.result() if audio_job else audio_pass(fixed, source, plans, win, cache)
        timings["audio_wait_s"] = time.perf_counter() - t2
        timings["audio_s"] = audio.elapsed_s
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    chunks: list[dict[str, Any]] = []
    errors: list[str] = []
    for plan, chunk_v, chunk_a in zip(plans, video.chunks, audio.chunks, strict=True):
        if isinstance(chunk_a, str) or chunk_v.error:
            errors.append(chunk_a if isinstance(chunk_a, str) else str(chunk_v.error))
            continue
        chunks.append(_chunk_detail(plan, chunk_v, chunk_a.detail(), win))
    warnings = _warnings(plans, fps_fix, video, audio, duration_s)
    if pr_fix.audio is None:
        warnings.insert(0, NO_AUDIO_WARNING)
    # the cache is best-effort: a failed write is reported, and the score does not depend on it
    cache_note = {"cache_error": "; ".join(cache.write_errors)} if cache.write_errors else {}
    cache_warn = [f"{cache_note['cache_error']} (best-effort cache; score unaffected)"] if cache_note else []
    timings["total_s"] = time.perf_counter() - t0
    if not chunks:
        d_r8 = [w for w in warnings if w.startswith("D-R8")]
        return EditResult(0.0, _all_failed(len(plans), errors) | cache_note, d_r8 + cache_warn, timings)
    score, video_d, audio_d = aggregate_chunks(
        chunks, video_share=video_share, audio_share=audio_share, w_in=w_in, w_out=w_out
    )
    detail = {
        "score": score,
        "max": EDIT_MAX,
        "window_s": None if win is None else list(win),
        "video": video_d,
        "audio": audio_d,
        "video_sub": video_d["sub"],
        "audio_sub": audio_d["sub"],
        "video_ssim_mean": video_d["ssim_out"],
        "audio_xcorr_peak": audio_d["xcorr_out"],
        "scoring": {
            **_constants(video_share, audio_share, w_in, w_out),
            "n_chunks": len(plans),
            "n_workers": workers,
            "n_failed_chunks": len(errors),
            "n_hash_skipped": video.n_hash_skipped,
            "n_samples_total": sum(c["n_video_in"] + c["n_video_out"] for c in chunks),
        },
        "chunks": chunks,
        "engine": {
            "n_ssim_pairs": video.n_ssim,
            "n_bound_pruned": video.n_pruned,
            "n_source_frames_read": video.n_src_frames,
            "source_cache_hits": cache.hits,
            "audio_mode": audio.mode,
        },
    }
    if errors:
        detail["chunk_errors"] = errors
    return EditResult(score, detail | cache_note, warnings + cache_warn, timings)
