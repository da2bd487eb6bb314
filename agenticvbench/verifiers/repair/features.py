"""Per-frame features of the edit rubric and the lag-tolerant frame match built on them.

The official scorer keeps, for every frame: gray (`COLOR_BGR2GRAY`), Lab a/b (`COLOR_BGR2LAB` on uint8, so
offset by 128), the variance of `cv2.Laplacian(gray, CV_64F)` and a 64-bit dHash (gray resized to 9x8 with
INTER_AREA, "right pixel > left pixel" per row). `FrameFeatures` computes each on first use (thread-safe, once),
so source frames that never become a lag candidate cost only their decode. `match_sample` is the official
per-sample value: the best SSIM x sharp x chroma x lagpen over the dHash-ranked lag candidates. The source
frames' dHash and Laplacian variance are cached across runs by `source_cache.SourceCache`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from agenticvbench.compiled import compiled
from agenticvbench.verifiers.repair.ssim import structural_similarity

CHROMA_NORM = 25.0
LAG_BAND_FRAMES = 10
LAG_PENALTY_PER_FRAME = 0.03
LAG_TOPK = 3


def dhash64(gray: np.ndarray) -> int:
    """64-bit difference hash: 9x8 INTER_AREA thumbnail, bit set where the right pixel is brighter."""
    small = cv2.resize(gray, (9, 8), interpolation=cv2.INTER_AREA)
    bits = (small[:, 1:] > small[:, :-1]).ravel()
    return int.from_bytes(np.packbits(bits).tobytes(), "big")


def dhash64_many(grays: list[np.ndarray]) -> list[int]:
    """`dhash64` of each frame, the same bits, for about a third of the CPU on large frames.

    OpenCV's INTER_AREA resize to a non-integer scale (1920 -> 9 columns) is a scalar loop whose every step
    adds into the same accumulator, so one channel runs at the latency of a float add. Frames of the same size
    are stacked four at a time as the channels of one image: the resize then does, for each channel, exactly
    the same float operations in the same order as for a single-channel frame (its per-channel loop only
    interleaves them), so each channel's thumbnail, and hash, is bit-identical (`test_dhash_many_matches_one`).
    """
    out: list[int] = []
    k = 0
    while k < len(grays):
        group = grays[k : k + 4]
        if len(group) == 4 and all(g.shape == group[0].shape and g.ndim == 2 for g in group):
            small = cv2.resize(cv2.merge(group), (9, 8), interpolation=cv2.INTER_AREA)
            bits = small[:, 1:, :] > small[:, :-1, :]
            out.extend(int.from_bytes(np.packbits(bits[:, :, c].ravel()).tobytes(), "big") for c in range(4))
            k += 4
        else:
            out.append(dhash64(grays[k]))
            k += 1
    return out


@compiled()
def _sum_and_squares(values: np.ndarray) -> tuple[np.int64, np.int64]:
    """Exact sum and sum of squares of an int16 image, in int64."""
    total = np.int64(0)
    squares = np.int64(0)
    flat = values.ravel()
    for i in range(flat.shape[0]):
        x = np.int32(flat[i])
        total += x
        squares += x * x  # |x| <= 1020: the square fits int32, the sums are int64
    return total, squares


def laplacian_variance(gray: np.ndarray) -> float:
    """`cv2.Laplacian(gray, cv2.CV_64F).var()`, from exact integer sums of the int16 Laplacian (~1.1 ms at 1080p).

    The sum S and the sum of squares Q of the Laplacian are integers (|values| <= 1020, so Q < 2**63 for any
    frame size), summed exactly in int64; the variance (n*Q - S^2) / n^2 is then formed in Python's integers and
    rounded once, so it is the correctly rounded variance (numpy's two-pass `var` is within ~1e-16 of it).
    (OpenCV's `norm(NORM_L2SQR)` is not exact: its sum of squares is off by up to ~3e-5 at 1080p.)
    """
    lap = cv2.Laplacian(gray, cv2.CV_16S)  # uint8 input, 3x3 aperture: |values| <= 1020, exact in int16
    n = lap.size
    total, squares = (int(x) for x in _sum_and_squares(lap))
    return (n * squares - total * total) / (n * n)


def hamming(a: int, b: int) -> int:
    """Hamming distance of two 64-bit hashes."""
    return (a ^ b).bit_count()


class FrameFeatures:
    """One frame's features, each computed on first access (once, under a lock) from the BGR image.

    The BGR image is dropped once gray and Lab exist, so a frame that has been fully used holds gray + Lab.
    """

    __slots__ = ("index", "_bgr", "_gray", "_lab", "_lapvar", "_dhash", "_lock", "_on_small")

    def __init__(
        self,
        index: int,
        bgr: np.ndarray,
        *,
        dhash: int | None = None,
        lapvar: float | None = None,
        on_small: Callable[[FrameFeatures], None] | None = None,
    ) -> None:
        self.index = index
        self._on_small = on_small  # called after dHash or Laplacian variance is computed (cache recording)
        self._bgr: np.ndarray | None = bgr
        self._gray: np.ndarray | None = None
        self._lab: np.ndarray | None = None
        self._lapvar = lapvar
        self._dhash = dhash
        self._lock = threading.Lock()

    @property
    def shape(self) -> tuple[int, int]:
        """(height, width) of the frame."""
        img = self._gray if self._gray is not None else self._bgr
        assert img is not None
        return int(img.shape[0]), int(img.shape[1])

    def _release_bgr(self) -> None:
        if self._gray is not None and self._lab is not None:
            self._bgr = None

    def _converted(self, attr: str, code: int) -> np.ndarray:
        """The colour conversion `code` of the BGR image, stored in `attr` on first use (once, under the lock)."""
        if getattr(self, attr) is None:
            with self._lock:
                if getattr(self, attr) is None:
                    assert self._bgr is not None  # released only once gray and Lab exist
                    setattr(self, attr, cv2.cvtColor(self._bgr, code))
                    self._release_bgr()
        return getattr(self, attr)

    @property
    def gray(self) -> np.ndarray:
        """uint8 grayscale (`COLOR_BGR2GRAY`)."""
        return self._converted("_gray", cv2.COLOR_BGR2GRAY)

    @property
    def lab(self) -> np.ndarray:
        """uint8 Lab (`COLOR_BGR2LAB`); channels 1 and 2 are the official a/b planes."""
        return self._converted("_lab", cv2.COLOR_BGR2LAB)

    def _store_small(self, attr: str, value: float) -> None:
        """Store a dHash or Laplacian variance and tell the cache recorder."""
        with self._lock:
            setattr(self, attr, value)
        if self._on_small is not None:
            self._on_small(self)

    @property
    def lapvar(self) -> float:
        """Variance of the Laplacian of the gray frame (sharpness)."""
        if self._lapvar is None:
            self._store_small("_lapvar", laplacian_variance(self.gray))
        assert self._lapvar is not None
        return self._lapvar

    @property
    def dhash(self) -> int:
        """64-bit dHash of the gray frame."""
        if self._dhash is None:
            self._store_small("_dhash", dhash64(self.gray))
        assert self._dhash is not None
        return self._dhash

    def set_dhash(self, value: int) -> None:
        """Store a dHash computed elsewhere (`dhash64_many` over a batch); same effect as the lazy property."""
        self._store_small("_dhash", value)

    @property
    def has_dhash(self) -> bool:
        """True when the dHash is known (cached, computed or set from a batch)."""
        return self._dhash is not None

    @property
    def has_lapvar(self) -> bool:
        """True when the Laplacian variance is known (cached or computed): reading `lapvar` then costs nothing."""
        return self._lapvar is not None

    def prepare(
        self, *, gray: bool = False, lab: bool = False, lapvar: bool = False, dhash: bool = False
    ) -> None:
        """Compute the named features now (e.g. in a decoding thread) instead of on first use."""
        if gray:
            _ = self.gray
        if lab:
            _ = self.lab
        if lapvar:
            _ = self.lapvar
        if dhash:
            _ = self.dhash


def fixed_frame(
    index: int,
    bgr: np.ndarray,
    size: tuple[int, int] | None,
    *,
    eager: bool = False,
    hash_later: bool = False,
) -> FrameFeatures:
    """Features of a fixed frame, first resized to the source's (width, height) with INTER_AREA if it differs.

    `eager` computes everything a sample always needs now (in the decoding thread), freeing the BGR image;
    `hash_later` leaves the dHash to the caller (`dhash64_many` over a batch).
    """
    if size is not None and (bgr.shape[1], bgr.shape[0]) != size:
        bgr = cv2.resize(bgr, size, interpolation=cv2.INTER_AREA)
    f = FrameFeatures(index, bgr)
    if eager:
        f.prepare(lab=True, lapvar=True, dhash=not hash_later)  # gray comes with them
    return f


def sharpness(fix: FrameFeatures, src: FrameFeatures) -> float:
    """min(1, lapvar_fix / lapvar_src), or 1 when the source is flat (lapvar <= 1)."""
    ls = src.lapvar
    return 1.0 if ls <= 1.0 else min(1.0, fix.lapvar / ls)


def chroma(fix: FrameFeatures, src: FrameFeatures) -> float:
    """max(0, 1 - mean |a,b_src - a,b_fix| / 25) over all pixels and both chroma channels."""
    sums = cv2.sumElems(cv2.absdiff(src.lab, fix.lab))
    h, w = src.shape
    return max(0.0, 1.0 - (sums[1] + sums[2]) / (2.0 * h * w) / CHROMA_NORM)


@dataclass
class Match:
    """Outcome of one fixed sample: best value and its lag (source index - fixed index), plus counters."""

    value: float
    lag: int
    n_ssim: int = 0
    n_pruned: int = 0
    n_hash_skipped: int = 0


def match_sample(fix: FrameFeatures, band: list[FrameFeatures], i: int, lo: int) -> Match:
    """Best lag-tolerant value of fixed offset i against source band frames lo, lo+1, ... (upstream step 4)."""
    n = len(band)
    if n == 0:
        return Match(-1.0, 0)
    zero = i - lo
    if n > LAG_TOPK + 1:
        dist = [hamming(fix.dhash, f.dhash) for f in band]
        cand = sorted(range(n), key=dist.__getitem__)[:LAG_TOPK]  # stable: ties keep ascending index
        if 0 <= zero < n and zero not in cand:
            cand.append(zero)
    else:
        cand = list(range(n))
    # Exact pruning, cheapest bound first: v = SSIM*sharp*chroma*lagpen <= sharp*chroma*lagpen <= sharp*lagpen,
    # so a candidate whose bound is below the best value found so far can be neither the maximum nor tied with
    # it, and needs no Lab conversion (stage 2) or SSIM (stage 3).
    lagpens = [max(0.0, 1.0 - LAG_PENALTY_PER_FRAME * abs(pos - zero)) for pos in cand]
    sharps = [sharpness(fix, band[pos]) for pos in cand]
    bound1 = [sh * lp for sh, lp in zip(sharps, lagpens, strict=True)]
    values: list[float | None] = [None] * len(cand)
    best = -np.inf
    out = Match(-1.0, 0, n_hash_skipped=n - len(cand))
    for t in sorted(range(len(cand)), key=lambda t: -bound1[t]):
        if bound1[t] == 0.0:
            values[t] = 0.0  # SSIM x 0: +/-0 whatever the SSIM
            continue
        if bound1[t] < best:
            out.n_pruned += 1
            continue
        src = band[cand[t]]
        chrom = chroma(fix, src)
        if chrom == 0.0:
            values[t] = 0.0
            continue
        if sharps[t] * chrom * lagpens[t] < best:
            out.n_pruned += 1
            continue
        v = structural_similarity(fix.gray, src.gray) * sharps[t] * chrom * lagpens[t]
        out.n_ssim += 1
        values[t] = v
        best = max(best, v)
    for t, pos in enumerate(cand):  # the official scan: strictly greater, initial -1
        vt = values[t]
        if vt is not None and vt > out.value:
            out.value, out.lag = vt, pos - zero
    return out
