"""The fast SSIM equals skimage's `structural_similarity(a, b, data_range=255)` (defaults).

The window sums are exact integers, so the only rounding is the float64 ratio per pixel: the agreement with
skimage is asserted at 1e-10 (it is ~1e-14), far tighter than the 1e-6 the edit rubric needs.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import cv2
import numpy as np
import pytest
from skimage.metrics import structural_similarity as sk_ssim

from agenticvbench.media import iter_frames
from agenticvbench.verifiers.repair.ssim import structural_similarity

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "repair-edit"
TOL = 1e-10


def _pairs(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for h, w in [(7, 7), (8, 13), (37, 61), (90, 160), (121, 97)]:
        a = rng.integers(0, 256, (h, w), dtype=np.uint8)
        out.append((a, rng.integers(0, 256, (h, w), dtype=np.uint8)))  # unrelated
        noisy = np.clip(a.astype(int) + rng.integers(-6, 7, (h, w)), 0, 255).astype(np.uint8)
        out.append((a, noisy))  # similar
        out.append((a, a.copy()))  # identical
        out.append((np.full((h, w), 255, np.uint8), np.zeros((h, w), np.uint8)))  # extremes
        out.append((np.full((h, w), 17, np.uint8), np.full((h, w), 17, np.uint8)))  # flat
        out.append((a, 255 - a))  # anti-correlated: negative SSIM
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_skimage_on_random_images(seed: int) -> None:
    for a, b in _pairs(seed):
        ref = sk_ssim(a, b, data_range=255)
        assert structural_similarity(a, b) == pytest.approx(ref, abs=TOL), (a.shape, ref)


def test_matches_skimage_on_real_frames() -> None:
    """Decoded golden frames (source vs re-encode and vs the hue-shifted fix), including lagged pairs."""

    def gray12(name: str) -> list[np.ndarray]:
        return [cv2.cvtColor(f.image, cv2.COLOR_BGR2GRAY) for f in islice(iter_frames(GOLDEN / name), 12)]

    src = gray12("source.mp4")
    for name in ("f_reencode.mp4", "f_freeze_in_window.mp4"):
        fix = gray12(name)
        for i, j in [(0, 0), (5, 5), (3, 9), (11, 2)]:
            assert structural_similarity(src[i], fix[j]) == pytest.approx(
                sk_ssim(src[i], fix[j], data_range=255), abs=TOL
            )


def test_identical_frames_give_exactly_one() -> None:
    """skimage returns exactly 1.0 for identical frames; so must we (a full-score copy must not lose 1e-8)."""
    a = np.random.default_rng(3).integers(0, 256, (50, 70), dtype=np.uint8)
    assert structural_similarity(a, a.copy()) == 1.0


def test_symmetric_and_strided_inputs() -> None:
    """SSIM is symmetric, and a non-contiguous view (a crop of a larger frame) gives the same value as a copy."""
    rng = np.random.default_rng(4)
    a, b = (rng.integers(0, 256, (40, 64), dtype=np.uint8) for _ in range(2))
    assert structural_similarity(a, b) == pytest.approx(structural_similarity(b, a), abs=1e-15)
    big = rng.integers(0, 256, (60, 90), dtype=np.uint8)
    view = big[5:45, 10:74]
    assert not view.flags.c_contiguous
    assert structural_similarity(view, b) == structural_similarity(view.copy(), b)
    assert structural_similarity(view, b) == pytest.approx(sk_ssim(view, b, data_range=255), abs=TOL)


def test_rejects_what_skimage_rejects() -> None:
    with pytest.raises(ValueError, match="7x7"):
        structural_similarity(np.zeros((6, 40), np.uint8), np.zeros((6, 40), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        structural_similarity(np.zeros((20, 20), np.float32), np.zeros((20, 20), np.float32))
    with pytest.raises(ValueError, match="equal size"):
        structural_similarity(np.zeros((20, 20), np.uint8), np.zeros((20, 21), np.uint8))


@pytest.mark.slow
@pytest.mark.privileges
def test_imports_and_computes_where_numba_cannot_cache(tmp_path: Path) -> None:
    """numba refuses `cache=True` at import time when neither the module's folder nor the user's cache folder is
    writable (a read-only container with a read-only home); the repair verifier must still import and score
    there, compiling per process. The module is copied into a folder that is then mounted read-only."""
    import os
    import shutil
    import subprocess
    import sys

    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root and `unshare` (CI runs as root)")
    from agenticvbench.verifiers.repair import ssim

    ro = tmp_path / "ro"
    (ro / "home").mkdir(parents=True)
    shutil.copy(ssim.__file__, ro / "ssim_copy.py")
    code = (
        "import os, numpy as np\n"
        f"if os.access({str(ro)!r}, os.W_OK):\n"
        "    raise SystemExit('the folder is writable: the test proves nothing')\n"
        "import ssim_copy\n"
        "rng = np.random.default_rng(5)\n"
        "a, b = (rng.integers(0, 256, (30, 40), dtype=np.uint8) for _ in range(2))\n"
        "print(repr(ssim_copy.structural_similarity(a, b)))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env |= {"HOME": str(ro / "home"), "XDG_CACHE_HOME": str(ro / "home" / ".cache"), "PYTHONPATH": str(ro)}
    cmd = [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        f'mount --bind -o ro "{ro}" "{ro}" && exec "$@"',
        "sh",
        sys.executable,
        "-c",
        code,
    ]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rng = np.random.default_rng(5)
    a, b = (rng.integers(0, 256, (30, 40), dtype=np.uint8) for _ in range(2))
    assert float(proc.stdout.strip()) == pytest.approx(sk_ssim(a, b, data_range=255), abs=TOL)


def test_map_row_sum_has_a_fixed_order() -> None:
    """Regression: the row sums of the SSIM map were left to fast-math reassociation, whose order follows the
    vector width of the CPU numba compiles for (AVX2 or AVX-512), so the last bits of a score differed between
    machines. The sum must be the written-out order: eight interleaved partial sums, then a fixed tree."""
    from agenticvbench.verifiers.repair.ssim import _row_sum

    rng = np.random.default_rng(11)
    for n in (1, 5, 8, 9, 17, 1914):
        values = rng.random(n) * 10.0 ** rng.integers(-8, 3, n)  # magnitudes apart, so the order shows
        s = [0.0] * 8
        for x, v in enumerate(values):
            s[x % 8] += float(v)  # in index order, tail included
        expected = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
        assert _row_sum(values) == expected, n
