"""Fast SSIM, numerically equal to `skimage.metrics.structural_similarity(a, b, data_range=255)` with defaults.

skimage's defaults are a 7x7 uniform window, sample covariance (N/(N-1)), K1 = 0.01, K2 = 0.03, and the mean
of the SSIM map after cropping (7-1)//2 = 3 pixels on every side (so border handling never matters). The edit
rubric compares each fixed frame with up to four source frames, so the per-frame window sums are computed once
(`ssim_stats`) and each pair only needs the cross term (`ssim_from_stats`).

How it stays exact: on uint8 frames the window sums of x, x*x and x*y are integers below 2**31, computed
exactly with `cv2.boxFilter(..., normalize=False)`; the cancellation-prone terms (N*Sxx - Sx**2,
N*Sxy - Sx*Sy, Sx**2 + Sy**2) are formed in int32, so only the final ratio is floating point (float32, worked in
row strips that stay in cache). Measured agreement with skimage: ~1e-7 or better.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WIN_SIZE = 7
PAD = (WIN_SIZE - 1) // 2
NP_WIN = WIN_SIZE * WIN_SIZE
DATA_RANGE = 255.0
K1, K2 = 0.01, 0.03
C1 = (K1 * DATA_RANGE) ** 2
C2 = (K2 * DATA_RANGE) ** 2
# With S = sums over the window: A1*N^2 = 2*Sx*Sy + C1*N^2, A2*N(N-1) = 2*(N*Sxy - Sx*Sy) + C2*N(N-1), and the
# same factors scale B1 and B2, so they cancel in S = A1*A2 / (B1*B2).
_C1N = C1 * NP_WIN * NP_WIN
_C2N = C2 * NP_WIN * (NP_WIN - 1)
_C1N_F, _C2N_F = np.float32(_C1N), np.float32(_C2N)
_STRIP_ELEMS = 32 * 1024  # ~128 KB per float32 strip buffer: the working set stays in L2


@dataclass(frozen=True, eq=False)
class SsimStats:
    """Per-frame window statistics over the valid (cropped) region; build with `ssim_stats` (7 bytes/pixel)."""

    gray: np.ndarray  # uint8 (H, W), the frame itself (needed for the cross term)
    sx: np.ndarray  # uint16 (H-6, W-6): window sums of x (<= 49 * 255 = 12495)
    vx: np.ndarray  # float32: N*Sxx - Sx^2 + C2*N(N-1)/2 (so that B2 = vx_a + vx_b)


def _window_sums(img: np.ndarray, ddepth: int) -> np.ndarray:
    """Exact 7x7 window sums of an unsigned integer image (as `ddepth`), cropped to the valid region."""
    full = cv2.boxFilter(img, ddepth, (WIN_SIZE, WIN_SIZE), normalize=False, borderType=cv2.BORDER_REFLECT)
    return full[PAD:-PAD, PAD:-PAD]


def ssim_stats(gray: np.ndarray) -> SsimStats:
    """Precompute the per-frame part of SSIM for a uint8 grayscale frame (at least 7x7, like skimage)."""
    g = np.ascontiguousarray(gray)
    if g.dtype != np.uint8 or g.ndim != 2:
        raise ValueError(f"ssim_stats needs a 2-D uint8 frame, got {g.dtype} {g.shape}")
    if min(g.shape) < WIN_SIZE:
        raise ValueError(f"win_size exceeds image extent: frame {g.shape} is smaller than 7x7")
    sx = _window_sums(g, cv2.CV_16U)  # <= 49 * 255 = 12495
    v = np.multiply(_window_sums(np.square(g, dtype=np.uint16), cv2.CV_32S), NP_WIN)
    v -= np.square(sx, dtype=np.int32)  # int32: at most 49 * 49 * 255^2 = 156,125,025 < 2^31
    vx = np.add(v, _C2N_F / 2, dtype=np.float32, casting="unsafe")  # vx_a + vx_b == float32(2v) + C2N, as A2
    return SsimStats(g, sx, vx)


def ssim_from_stats(a: SsimStats, b: SsimStats) -> float:
    """Mean SSIM of two frames of the same size from their precomputed statistics."""
    if a.gray.shape != b.gray.shape:
        raise ValueError(f"SSIM needs frames of equal size, got {a.gray.shape} and {b.gray.shape}")
    sxy = _window_sums(np.multiply(a.gray, b.gray, dtype=np.uint16), cv2.CV_32S)
    h, w = sxy.shape
    rows = max(1, min(h, _STRIP_ELEMS // w))
    p = np.empty((rows, w), np.int32)
    q = np.empty((rows, w), np.int32)
    d = np.empty((rows, w), np.int32)
    num = np.empty((rows, w), np.float32)
    a2 = np.empty((rows, w), np.float32)
    den = np.empty((rows, w), np.float32)
    b2 = np.empty((rows, w), np.float32)
    total = 0.0
    for r0 in range(0, h, rows):
        r1 = min(h, r0 + rows)
        n = r1 - r0
        pp, qq, dd, nn, aa, de, bb = p[:n], q[:n], d[:n], num[:n], a2[:n], den[:n], b2[:n]
        sa, sb = a.sx[r0:r1], b.sx[r0:r1]
        # int32, exact: P = Sx*Sy, Q = N*Sxy - P, then 2P, 2Q and Sx^2 + Sy^2 = (Sx - Sy)^2 + 2P
        np.multiply(sa, sb, out=pp, dtype=np.int32)
        np.multiply(sxy[r0:r1], NP_WIN, out=qq)
        np.subtract(qq, pp, out=qq)
        np.add(pp, pp, out=pp)
        np.add(qq, qq, out=qq)
        np.subtract(sa, sb, out=dd, dtype=np.int32)
        np.multiply(dd, dd, out=dd)
        np.add(dd, pp, out=dd)
        # float32 from here, A1/B1 and A2/B2 rounded alike, so identical frames give exactly 1
        np.add(pp, _C1N_F, out=nn, dtype=np.float32, casting="unsafe")  # A1 * N^2
        np.add(qq, _C2N_F, out=aa, dtype=np.float32, casting="unsafe")  # A2 * N(N-1)
        nn *= aa
        np.add(dd, _C1N_F, out=de, dtype=np.float32, casting="unsafe")  # B1 * N^2
        np.add(a.vx[r0:r1], b.vx[r0:r1], out=bb)  # B2 * N(N-1)
        de *= bb
        nn /= de
        total += float(nn.sum(dtype=np.float64))
    return min(1.0, total / (h * w))  # mean SSIM <= 1 exactly (skimage: 1.0 for identical frames)


def structural_similarity(a: np.ndarray, b: np.ndarray) -> float:
    """`skimage.metrics.structural_similarity(a, b, data_range=255)` for two uint8 grayscale frames."""
    return ssim_from_stats(ssim_stats(a), ssim_stats(b))
