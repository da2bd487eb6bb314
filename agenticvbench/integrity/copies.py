"""Is a submitted video nearly a given one? Second-by-second signatures of the picture and the sound, compared.

Used by the `near_copy_of_input` integrity flag: a recap that re-encodes or remuxes the whole input film has other
bytes than the film, so the byte check (`identical_to_input`) misses it. The test is cheap for real recaps: a
probe first, and nothing is decoded unless the output lasts at least `MIN_COVERAGE` of the film (a recap is a
fraction of it). Then, per second of the film: a 16x9 grey thumbnail of the picture (ffmpeg `fps=1`, area
scaling) and the RMS of the sound (mono, 8 kHz). A second matches when the thumbnails differ by at most
`PICTURE_TOL` grey levels on average and the RMS by at most `SOUND_TOL` (relative to the film's loudest second,
so silence matches silence); the output is a near copy when at least `MIN_MATCHING` of the film's seconds match.
Either signature alone decides when the other stream is absent from both files.

The output is aligned with the film before comparing (`aligned_share`): its signature is taken every quarter
second, and the shifts where its loudness (or brightness) correlates best with the film's are tried, so the film
behind seconds of black, or with its first seconds cut, is still the film. The same test tells a re-encode of a
verifier-only reference (`leaks`), with the output's length bounded on both sides.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from agenticvbench.errors import MediaError

MIN_COVERAGE = 0.8
MIN_MATCHING = 0.8
PICTURE_TOL = 12.0  # mean absolute difference, grey levels 0..255
SOUND_TOL = 0.1  # share of the film's loudest second's RMS
THUMB_W, THUMB_H = 16, 9
AUDIO_RATE = 8000
MAX_SECONDS = 4 * 3600  # the longest recap output screening accepts (integrity.MAX_DURATION_S)
OUTPUT_SAMPLES_PER_S = 4  # the output's signature is sampled every quarter second, so shifts align to 0.25 s
CANDIDATE_LAGS = 4  # lags tried per phase, besides 0 (the best correlations of the 1-D series)


def _duration(path: Path) -> float:
    from agenticvbench.media import probe

    info = probe(path)
    return float(info.duration or 0.0)


def thumbnails(path: Path, seconds: int, per_second: int = 1) -> np.ndarray:
    """`per_second` 16x9 grey thumbnails per second of `path` (at most `seconds` seconds), shape (n, 9, 16)
    uint8, sample j at j / per_second s; (0, 9, 16) when there is no video stream."""
    from agenticvbench.media import probe, run_ffmpeg

    if probe(path).video is None:
        return np.zeros((0, THUMB_H, THUMB_W), np.uint8)
    vf = f"fps={per_second},scale={THUMB_W}:{THUMB_H}:flags=area,format=gray"
    proc = run_ffmpeg(
        [
            "-v",
            "error",
            "-i",
            str(path),
            "-map",
            "0:v:0",
            "-vf",
            vf,
            "-frames:v",
            str(seconds * per_second),
            "-f",
            "rawvideo",
            "pipe:1",
        ],
        check=True,
    )
    n = len(proc.stdout) // (THUMB_W * THUMB_H)
    return np.frombuffer(proc.stdout[: n * THUMB_W * THUMB_H], np.uint8).reshape(n, THUMB_H, THUMB_W)


def loudness(path: Path, seconds: int, per_second: int = 1) -> np.ndarray:
    """RMS of one-second windows of `path`'s first audio stream (mono, 8 kHz), one window starting every
    1 / `per_second` s, within at most `seconds` s; empty without audio."""
    from agenticvbench.media import decode_audio, probe

    if probe(path).audio is None:
        return np.zeros(0, np.float64)
    pcm = decode_audio(path, sample_rate=AUDIO_RATE, mono=True, duration_s=float(seconds)).astype(np.float64)
    hop = AUDIO_RATE // per_second
    n = (len(pcm) - AUDIO_RATE) // hop + 1 if len(pcm) >= AUDIO_RATE else 0
    if n <= 0:
        return np.zeros(0)
    cs = np.concatenate([[0.0], np.cumsum(pcm**2)])
    starts = np.arange(n) * hop
    return np.sqrt(np.maximum(cs[starts + AUDIO_RATE] - cs[starts], 0.0) / AUDIO_RATE)


@lru_cache(maxsize=16)
def _film_signature(real: str, size: int, mtime_ns: int) -> tuple[np.ndarray, np.ndarray, float]:
    path = Path(real)
    seconds = min(MAX_SECONDS, int(_duration(path)) + 1)
    return thumbnails(path, seconds), loudness(path, seconds), _duration(path)


def film_signature(path: Path) -> tuple[np.ndarray, np.ndarray, float]:
    """(thumbnails, loudness, duration) of a dataset film (trusted), computed once per process per file."""
    real = os.path.realpath(path)
    st = os.stat(real)
    return _film_signature(real, st.st_size, st.st_mtime_ns)


def share_at(
    out_thumbs: np.ndarray, out_rms: np.ndarray, film_thumbs: np.ndarray, film_rms: np.ndarray, lag: int = 0
) -> float:
    """Share of the film's seconds that the output matches when film second k is compared with output second
    k + `lag` (a second outside the output matches nothing; see the module docstring)."""
    n_film = max(len(film_thumbs), len(film_rms))
    if n_film == 0:
        return 0.0
    k = np.arange(n_film)
    j = k + lag
    checks: list[np.ndarray] = []
    if len(film_thumbs) or len(out_thumbs):
        pic = np.zeros(n_film, bool)
        idx = np.nonzero((j >= 0) & (j < len(out_thumbs)) & (k < len(film_thumbs)))[0]
        if idx.size:
            a, b = out_thumbs[j[idx]].astype(np.int16), film_thumbs[idx].astype(np.int16)
            pic[idx] = np.abs(a - b).mean(axis=(1, 2)) <= PICTURE_TOL
        checks.append(pic)
    if len(film_rms) or len(out_rms):
        scale = float(film_rms.max()) if len(film_rms) and film_rms.max() > 0 else 1.0
        snd = np.zeros(n_film, bool)
        idx = np.nonzero((j >= 0) & (j < len(out_rms)) & (k < len(film_rms)))[0]
        snd[idx] = np.abs(out_rms[j[idx]] - film_rms[idx]) <= SOUND_TOL * scale
        checks.append(snd)
    return float(np.logical_and.reduce(checks).mean())


def matching_share(
    out_thumbs: np.ndarray, out_rms: np.ndarray, film_thumbs: np.ndarray, film_rms: np.ndarray
) -> float:
    """Share of the film's seconds that the output matches at the same second (see the module docstring)."""
    return share_at(out_thumbs, out_rms, film_thumbs, film_rms, 0)


def _candidate_lags(out: np.ndarray, film: np.ndarray, keep: int = CANDIDATE_LAGS) -> list[int]:
    """The `keep` lags (output index minus film index) where the two 1-D series correlate best (FFT, after
    removing each one's mean), for lags that leave at least half the film inside the output."""
    from scipy.signal import correlate

    if len(out) == 0 or len(film) == 0:
        return [0]
    a, b = out - out.mean(), film - film.mean()
    corr = correlate(a, b, mode="full", method="fft")
    lags = np.arange(-(len(b) - 1), len(a))
    overlap = np.minimum(len(a), lags + len(b)) - np.maximum(0, lags)
    corr = np.where(overlap >= len(b) / 2, corr / np.maximum(overlap, 1), -np.inf)
    best = np.argsort(corr)[::-1][:keep]
    return sorted({0, *(int(lags[i]) for i in best if np.isfinite(corr[i]))})


def aligned_share(
    out_thumbs: np.ndarray,
    out_rms: np.ndarray,
    film_thumbs: np.ndarray,
    film_rms: np.ndarray,
    per_second: int,
) -> float:
    """The best `share_at` over time shifts: the output is sampled `per_second` times a second (thumbnails and
    RMS windows), the film once a second; for each phase of the output the lags are found by correlating the
    loudness (or, without sound, the mean brightness) series, so a film behind seconds of black or with its
    start cut is compared with itself. The sound alone bounds the share, so without a sound match no picture
    lag is tried."""
    best = 0.0
    for phase in range(per_second):
        o_t, o_r = out_thumbs[phase::per_second], out_rms[phase::per_second]
        if len(film_rms) and len(o_r):
            lags = _candidate_lags(o_r, film_rms)
        else:
            lags = _candidate_lags(
                o_t.reshape(len(o_t), -1).mean(axis=1), film_thumbs.reshape(len(film_thumbs), -1).mean(axis=1)
            )
        for lag in lags:
            best = max(best, share_at(o_t, o_r, film_thumbs, film_rms, lag))
    return best


def _sound_bound(out_rms: np.ndarray, film_rms: np.ndarray, per_second: int) -> float:
    """The best share the sound alone allows (an upper bound of `aligned_share` when the film has sound)."""
    empty = np.zeros((0, THUMB_H, THUMB_W), np.uint8)
    best = 0.0
    for phase in range(per_second):
        o_r = out_rms[phase::per_second]
        for lag in _candidate_lags(o_r, film_rms):
            best = max(best, share_at(empty, o_r, empty, film_rms, lag))
    return best


def nearly_same_media(path: Path, film: Path, *, max_coverage: float | None = None) -> bool:
    """True when `path` lasts at least `MIN_COVERAGE` of `film` (and at most `max_coverage` times it, when
    given) and matches it, after alignment, on at least `MIN_MATCHING` of the film's seconds, picture and
    sound. The sound is compared first (cheap); the pictures are decoded only when it matches."""
    film_thumbs, film_rms, film_s = film_signature(film)
    if film_s <= 0:
        return False
    try:
        out_s = _duration(path)
    except MediaError:
        return False  # an unreadable output is the verifier's to report
    if out_s < MIN_COVERAGE * film_s or (max_coverage is not None and out_s > max_coverage * film_s):
        return False
    seconds = min(MAX_SECONDS, int(out_s) + 1)
    out_rms = loudness(path, seconds, OUTPUT_SAMPLES_PER_S)
    if len(film_rms) and _sound_bound(out_rms, film_rms, OUTPUT_SAMPLES_PER_S) < MIN_MATCHING:
        return False
    out_thumbs = thumbnails(path, seconds, OUTPUT_SAMPLES_PER_S)
    return aligned_share(out_thumbs, out_rms, film_thumbs, film_rms, OUTPUT_SAMPLES_PER_S) >= MIN_MATCHING
