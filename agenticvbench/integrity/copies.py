"""Is a submitted video nearly a given one? Second-by-second signatures of the picture and the sound, compared
after a time alignment that tolerates shifts, trims and small speed changes.

Used by the `near_copy_of_input` integrity flag: a recap that re-encodes or remuxes the whole input film has other
bytes than the film, so the byte check (`identical_to_input`) misses it. The test is cheap for real recaps: a
probe first, and nothing is decoded unless the output lasts at least `MIN_COVERAGE` of the film (a recap is a
fraction of it). The same test tells a re-encode of a verifier-only reference (`leaks`), with the output's
length bounded on both sides.

Signatures, per second of the film and every quarter second of the output:

- the picture: a 16x9 grey thumbnail (ffmpeg `fps`, area scaling), compared after removing its mean and
  dividing by its spread, so a scale, a frame rate, a brightness/contrast grade or a hue turn (which leaves the
  grey alone) changes nothing, and by correlation, which a crop of a tenth of the frame lowers but does not
  break. Two thumbnails match when they correlate by at least `PICTURE_CORR`; two flat ones (spread under
  `FLAT_STD`, a black card) match when their means are within `FLAT_TOL` grey levels;
- the sound: the RMS of a one-second window (mono, 8 kHz). Two seconds match when their RMS differ by at most
  `SOUND_TOL` of the film's loudest second (so silence matches silence) or by a ratio of at most `SOUND_RATIO`.

Alignment (`aligned_shares`): film second k is compared with the output at time `speed * k + shift`. The
speeds tried are 1, and a grid around the ratio of the two durations within `MAX_SPEED_CHANGE` (fine enough
that the drift over the film stays under half a second), so a film played 5 % faster or slower, with seconds
trimmed or padded at its ends, is compared with itself; for each speed the shifts where the loudness (and the
mean brightness) series correlate best are tried (FFT). The output is a near copy when, at the best
alignment, a second of the film matches in picture (and sound, when both files have sound) on at least
`MIN_MATCHING` of the film's seconds that fall inside the output, and on at least `MIN_FILM_SHARE` of all the
film's seconds. The sound alone is compared first (cheap): when it cannot reach those shares, nothing is
decoded for the pictures. Either signature alone decides when the other stream is absent from both files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.fsutil import per_file

MIN_COVERAGE = 0.8  # the output lasts at least this share of the film before anything is decoded
MIN_MATCHING = 0.8  # share of the film's seconds inside the output that match
MIN_FILM_SHARE = 0.7  # share of all the film's seconds that match
PICTURE_CORR = 0.6  # correlation of two normalised thumbnails
FLAT_STD = 3.0  # a thumbnail whose grey levels spread less than this is flat (a card, black)
FLAT_TOL = 40.0  # two flat thumbnails match when their means are this close (grey levels)
SOUND_TOL = 0.1  # share of the film's loudest second's RMS
SOUND_RATIO = 1.5  # or the louder RMS is at most this many times the quieter
THUMB_W, THUMB_H = 16, 9
FILM_SCALE = 3  # the film's thumbnails are kept at 3x (48x27), for the crops tried
CROP_ALIGNMENTS = 2  # the best alignments at which the crops are tried
CROPS = (0.0, 0.05, 0.1)  # share of the width (height) cropped on one side, each side, at most 0.1 in all
AUDIO_RATE = 8000
MAX_SECONDS = 4 * 3600  # the longest recap output screening accepts (integrity.MAX_DURATION_S)
OUTPUT_SAMPLES_PER_S = 4  # the output's signature is sampled every quarter second, so shifts align to 0.25 s
CANDIDATE_LAGS = 4  # shifts tried per speed and series, besides 0 (the best correlations of the 1-D series)
MAX_SPEED_CHANGE = 0.06  # speeds tried: 1 +- this at most
SPEED_STEP = 0.01  # at most this far apart (closer for long films: drift under half a second)
DURATION_SLACK_S = 6.0  # speeds tried around the duration ratio: seconds padded or trimmed, all told

_PicSig = tuple[np.ndarray, np.ndarray, np.ndarray]  # (normalised thumbnails (n, 144), flat (n,), mean (n,))


def _duration(path: Path) -> float:
    from agenticvbench.media import probe

    info = probe(path)
    return float(info.duration or 0.0)


def thumbnails(path: Path, seconds: int, per_second: int = 1, scale: int = 1) -> np.ndarray:
    """`per_second` grey thumbnails per second of `path` (at most `seconds` seconds), 16x9 times `scale`, shape
    (n, 9 * scale, 16 * scale) uint8, sample j at j / per_second s; (n = 0) when there is no video stream."""
    from agenticvbench.media import probe, run_ffmpeg

    w, h = THUMB_W * scale, THUMB_H * scale
    if probe(path).video is None:
        return np.zeros((0, h, w), np.uint8)
    vf = f"fps={per_second},scale={w}:{h}:flags=area,format=gray"
    args = ["-v", "error", "-i", str(path), "-map", "0:v:0", "-vf", vf]
    proc = run_ffmpeg([*args, "-frames:v", str(seconds * per_second), "-f", "rawvideo", "pipe:1"], check=True)
    n = len(proc.stdout) // (w * h)
    return np.frombuffer(proc.stdout[: n * w * h], np.uint8).reshape(n, h, w)


def _area_axis(x: np.ndarray, axis: int, lo: float, hi: float, bins: int) -> np.ndarray:
    """Area-average `x` along `axis` over [lo, hi) (fractions of its length) into `bins` equal bins."""
    n = x.shape[axis]
    cs = np.concatenate([np.zeros_like(np.take(x, [0], axis=axis)), np.cumsum(x, axis=axis)], axis=axis)
    edges = np.linspace(lo * n, hi * n, bins + 1)
    i = np.clip(np.floor(edges).astype(int), 0, n - 1)
    frac = (edges - i).reshape([-1 if d == axis else 1 for d in range(x.ndim)])
    at = np.take(cs, i, axis=axis) + frac * (np.take(cs, i + 1, axis=axis) - np.take(cs, i, axis=axis))
    return np.diff(at, axis=axis) / ((hi - lo) * n / bins)


def cropped(big: np.ndarray, left: float, right: float, top: float, bottom: float) -> np.ndarray:
    """16x9 thumbnails (float) of large thumbnails `big` (n, h, w) with those shares of each side cut off."""
    x = _area_axis(big.astype(np.float32), 2, left, 1.0 - right, THUMB_W)
    return _area_axis(x, 1, top, 1.0 - bottom, THUMB_H)


def crop_variants() -> list[tuple[float, float, float, float]]:
    """(left, right, top, bottom) crops tried: each side 0, 5 or 10 %, at most 10 % of a dimension in all."""
    sides = [(a, b) for a in CROPS for b in CROPS if a + b <= max(CROPS) + 1e-9]
    return [(lft, rgt, top, bot) for lft, rgt in sides for top, bot in sides]


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


@per_file(maxsize=16)
def film_signature(path: Path) -> tuple[np.ndarray, np.ndarray, float]:
    """(thumbnails at `FILM_SCALE` times the size, loudness, duration) of a dataset film (trusted), computed
    once per process per file."""
    seconds = min(MAX_SECONDS, int(_duration(path)) + 1)
    return thumbnails(path, seconds, 1, FILM_SCALE), loudness(path, seconds), _duration(path)


def picture_signature(thumbs: np.ndarray) -> _PicSig:
    """Thumbnails as compared: each flattened, minus its mean, over its spread (zero when flat); the flat ones
    and every thumbnail's mean grey level."""
    x = thumbs.reshape(len(thumbs), -1).astype(np.float32)
    mean = x.mean(axis=1) if len(x) else np.zeros(0, np.float32)
    std = x.std(axis=1) if len(x) else np.zeros(0, np.float32)
    flat = std < FLAT_STD
    z = (x - mean[:, None]) / np.where(flat, 1.0, std)[:, None]
    z[flat] = 0.0
    return z, flat, mean


def _picture_matches(out: _PicSig, film: _PicSig, j: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Whether output thumbnail j[i] matches film thumbnail k[i], for each i."""
    (oz, of, om), (fz, ff, fm) = out, film
    corr = np.einsum("ij,ij->i", oz[j], fz[k]) / oz.shape[1] if len(j) else np.zeros(0)
    both_flat = of[j] & ff[k]
    return np.where(both_flat, np.abs(om[j] - fm[k]) <= FLAT_TOL, ~of[j] & ~ff[k] & (corr >= PICTURE_CORR))


def _sound_matches(out_rms: np.ndarray, film_rms: np.ndarray, j: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Whether output RMS window j[i] matches film second k[i] (see the module docstring)."""
    scale = float(film_rms.max()) if len(film_rms) and film_rms.max() > 0 else 1.0
    a, b = out_rms[j], film_rms[k]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return (hi - lo <= SOUND_TOL * scale) | (hi <= SOUND_RATIO * lo)


def shares_at(
    out_pic: _PicSig | None,
    out_rms: np.ndarray,
    film_pic: _PicSig | None,
    film_rms: np.ndarray,
    positions: np.ndarray,
) -> tuple[float, float]:
    """(share of the film's seconds, share of those falling inside the output) that match when film second k
    is compared with output sample `positions[k]` (a sample outside the output matches nothing). A signature
    is compared when either file has it (None or empty on one side: nothing matches)."""
    n_film = len(positions)
    if n_film == 0:
        return 0.0, 0.0
    k = np.arange(n_film)
    n_out = max(len(out_pic[0]) if out_pic else 0, len(out_rms))
    inside = (positions >= 0) & (positions < n_out)
    ok = inside.copy()
    if (film_pic and len(film_pic[0])) or (out_pic and len(out_pic[0])):
        pic = np.zeros(n_film, bool)
        if out_pic and film_pic:
            idx = np.nonzero(inside & (positions < len(out_pic[0])) & (k < len(film_pic[0])))[0]
            pic[idx] = _picture_matches(out_pic, film_pic, positions[idx], idx)
        ok &= pic
    if len(film_rms) or len(out_rms):
        snd = np.zeros(n_film, bool)
        idx = np.nonzero(inside & (positions < len(out_rms)) & (k < len(film_rms)))[0]
        if idx.size:
            snd[idx] = _sound_matches(out_rms, film_rms, positions[idx], idx)
        ok &= snd
    return float(ok.mean()), float(ok.sum() / max(int(inside.sum()), 1))


def speeds(film_s: float, out_s: float) -> list[float]:
    """Output seconds per film second to try: 1, and a grid around the duration ratio (within
    `DURATION_SLACK_S` seconds over the film) bounded by `MAX_SPEED_CHANGE`; the grid's step keeps the drift
    over the whole film under half a second."""
    if film_s <= 0:
        return [1.0]
    step = min(SPEED_STEP, 0.5 / film_s)
    n = int(np.ceil(DURATION_SLACK_S / (film_s * step)))
    ratio = out_s / film_s if out_s > 0 else 1.0
    grid = ratio + step * np.arange(-n, n + 1)
    keep = grid[np.abs(grid - 1.0) <= MAX_SPEED_CHANGE]
    return sorted({1.0, *(round(float(s), 6) for s in keep)})


def _candidate_lags(
    out: np.ndarray, film: np.ndarray, base: np.ndarray, keep: int = CANDIDATE_LAGS
) -> list[int]:
    """The `keep` shifts (in output samples) where the output series correlates best with the film series
    placed at `base` (FFT, both normalised), among shifts that keep at least half the film inside the
    output; 0 always."""
    from scipy.signal import correlate

    if len(out) < 2 or len(film) < 2 or film.std() == 0 or out.std() == 0:
        return [0]
    a = (out - out.mean()) / out.std()
    b, ind = np.zeros(int(base[-1]) + 1), np.zeros(int(base[-1]) + 1)
    b[base] = (film - film.mean()) / film.std()
    ind[base] = 1.0
    corr = correlate(a, b, mode="full", method="fft")
    count = correlate(np.ones(len(a)), ind, mode="full", method="fft")
    lags = np.arange(-(len(b) - 1), len(a))
    score = np.where(count >= len(film) / 2 - 0.5, corr / np.maximum(count, 1.0), -np.inf)
    best = np.argsort(score)[::-1][:keep]
    return sorted({0, *(int(lags[i]) for i in best if np.isfinite(score[i]))})


def _brightness(thumbs: np.ndarray) -> np.ndarray:
    return thumbs.reshape(len(thumbs), -1).mean(axis=1) if len(thumbs) else np.zeros(0)


def _rank(shares: tuple[float, float]) -> float:
    """How near a copy a (film share, inside share) pair is: 1 or more is a copy."""
    return min(shares[0] / MIN_FILM_SHARE, shares[1] / MIN_MATCHING)


def aligned_shares(
    out_thumbs: np.ndarray,
    out_rms: np.ndarray,
    film_thumbs: np.ndarray,
    film_rms: np.ndarray,
    per_second: int,
    speed_list: list[float] | None = None,
) -> tuple[float, float]:
    """The best (film share, inside share) of `shares_at` over alignments: speeds (`speed_list`, default 1),
    and for each the shifts the loudness and the brightness correlations suggest; the output is sampled
    `per_second` times a second, the film once. Film thumbnails larger than 16x9 (`film_signature`'s) are
    also cropped (`crop_variants`) at the best alignments, when uncropped they fall short. Pass empty
    `out_thumbs` and `film_thumbs` to compare the sound alone."""
    n_film = max(len(film_thumbs), len(film_rms))
    if n_film == 0:
        return 0.0, 0.0
    big = film_thumbs if film_thumbs.shape[1:] != (THUMB_H, THUMB_W) and len(film_thumbs) else None
    base_thumbs = cropped(big, 0, 0, 0, 0) if big is not None else film_thumbs
    out_pic = picture_signature(out_thumbs) if len(out_thumbs) else None
    film_pic = picture_signature(base_thumbs) if len(base_thumbs) else None
    series = []
    if len(out_rms) and len(film_rms):
        series.append((out_rms, film_rms))
    if len(out_thumbs) and len(base_thumbs):
        series.append((_brightness(out_thumbs), _brightness(base_thumbs)))
    tried: list[tuple[float, tuple[float, float], np.ndarray]] = []
    for speed in speed_list or [1.0]:
        base = np.rint(np.arange(n_film) * speed * per_second).astype(np.int64)  # film second k, no shift
        lags = {0}
        for o, f in series:
            lags.update(_candidate_lags(o, f, base[: len(f)]))
        for lag in sorted(lags):
            got = shares_at(out_pic, out_rms, film_pic, film_rms, base + lag)
            tried.append((_rank(got), got, base + lag))
    tried.sort(key=lambda t: t[0], reverse=True)
    best = tried[0][1]
    if big is None or out_pic is None or _rank(best) >= 1.0:
        return best
    for *_, positions in tried[:CROP_ALIGNMENTS]:
        for crop in crop_variants()[1:]:
            pic = picture_signature(cropped(big, *crop))
            got = shares_at(out_pic, out_rms, pic, film_rms, positions)
            if _rank(got) > _rank(best):
                best = got
    return best


def _is_copy(shares: tuple[float, float]) -> bool:
    return shares[0] >= MIN_FILM_SHARE and shares[1] >= MIN_MATCHING


def nearly_same_media(path: Path, film: Path, *, max_coverage: float | None = None) -> bool:
    """True when `path` lasts at least `MIN_COVERAGE` of `film` (and at most `max_coverage` times it, when
    given) and, aligned (see the module docstring), matches it on at least `MIN_MATCHING` of the film's seconds
    inside it and `MIN_FILM_SHARE` of all of them, picture and sound. The sound is compared first (cheap); the
    pictures are decoded only when it matches."""
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
    tried = speeds(film_s, out_s)
    out_rms = loudness(path, seconds, OUTPUT_SAMPLES_PER_S)
    empty = np.zeros((0, THUMB_H, THUMB_W), np.uint8)
    if len(film_rms) and not _is_copy(
        aligned_shares(empty, out_rms, empty, film_rms, OUTPUT_SAMPLES_PER_S, tried)
    ):
        return False
    out_thumbs = thumbnails(path, seconds, OUTPUT_SAMPLES_PER_S)
    shares = aligned_shares(out_thumbs, out_rms, film_thumbs, film_rms, OUTPUT_SAMPLES_PER_S, tried)
    return _is_copy(shares)
