"""Is a submitted video nearly a given one? Second-by-second signatures of the picture and the sound, compared.

Used by the `near_copy_of_input` integrity flag: a recap that re-encodes or remuxes the whole input film has other
bytes than the film, so the byte check (`identical_to_input`) misses it. The test is cheap for real recaps: a
probe first, and nothing is decoded unless the output lasts at least `MIN_COVERAGE` of the film (a recap is a
fraction of it). Then, per second of the film: a 16x9 grey thumbnail of the picture (ffmpeg `fps=1`, area
scaling) and the RMS of the sound (mono, 8 kHz). A second matches when the thumbnails differ by at most
`PICTURE_TOL` grey levels on average and the RMS by at most `SOUND_TOL` (relative to the film's loudest second,
so silence matches silence); the output is a near copy when at least `MIN_MATCHING` of the film's seconds match.
Either signature alone decides when the other stream is absent from both files.
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


def _duration(path: Path) -> float:
    from agenticvbench.media import probe

    info = probe(path)
    return float(info.duration or 0.0)


def thumbnails(path: Path, seconds: int) -> np.ndarray:
    """One 16x9 grey thumbnail per second of `path` (at most `seconds`), shape (n, 9, 16) uint8; (0, 9, 16) when
    there is no video stream."""
    from agenticvbench.media import probe, run_ffmpeg

    if probe(path).video is None:
        return np.zeros((0, THUMB_H, THUMB_W), np.uint8)
    vf = f"fps=1,scale={THUMB_W}:{THUMB_H}:flags=area,format=gray"
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
            str(seconds),
            "-f",
            "rawvideo",
            "pipe:1",
        ],
        check=True,
    )
    n = len(proc.stdout) // (THUMB_W * THUMB_H)
    return np.frombuffer(proc.stdout[: n * THUMB_W * THUMB_H], np.uint8).reshape(n, THUMB_H, THUMB_W)


def loudness(path: Path, seconds: int) -> np.ndarray:
    """RMS of each second of `path`'s first audio stream (mono, 8 kHz), at most `seconds`; empty without audio."""
    from agenticvbench.media import decode_audio, probe

    if probe(path).audio is None:
        return np.zeros(0, np.float64)
    pcm = decode_audio(path, sample_rate=AUDIO_RATE, mono=True, duration_s=float(seconds)).astype(np.float64)
    n = len(pcm) // AUDIO_RATE
    return np.sqrt(np.mean(pcm[: n * AUDIO_RATE].reshape(n, AUDIO_RATE) ** 2, axis=1)) if n else np.zeros(0)


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


def matching_share(
    out_thumbs: np.ndarray, out_rms: np.ndarray, film_thumbs: np.ndarray, film_rms: np.ndarray
) -> float:
    """Share of the film's seconds that the output matches at the same second (see the module docstring)."""
    n_film = max(len(film_thumbs), len(film_rms))
    if n_film == 0:
        return 0.0
    checks: list[np.ndarray] = []
    if len(film_thumbs) or len(out_thumbs):
        k = min(len(out_thumbs), len(film_thumbs))
        pic = np.zeros(n_film, bool)
        diff = np.abs(out_thumbs[:k].astype(np.int16) - film_thumbs[:k].astype(np.int16)).mean(axis=(1, 2))
        pic[:k] = diff <= PICTURE_TOL
        checks.append(pic)
    if len(film_rms) or len(out_rms):
        k = min(len(out_rms), len(film_rms))
        scale = float(film_rms.max()) if len(film_rms) and film_rms.max() > 0 else 1.0
        snd = np.zeros(n_film, bool)
        snd[:k] = np.abs(out_rms[:k] - film_rms[:k]) <= SOUND_TOL * scale
        checks.append(snd)
    together = np.logical_and.reduce(checks)
    return float(together.mean())


def nearly_same_media(path: Path, film: Path) -> bool:
    """True when `path` lasts at least `MIN_COVERAGE` of `film` and matches it on at least `MIN_MATCHING` of
    the film's seconds, picture and sound. Raises `MediaError` when `path` cannot be read."""
    film_thumbs, film_rms, film_s = film_signature(film)
    if film_s <= 0:
        return False
    try:
        out_s = _duration(path)
    except MediaError:
        return False  # an unreadable output is the verifier's to report
    if out_s < MIN_COVERAGE * film_s:
        return False
    seconds = max(len(film_thumbs), len(film_rms))
    share = matching_share(thumbnails(path, seconds), loudness(path, seconds), film_thumbs, film_rms)
    return share >= MIN_MATCHING
