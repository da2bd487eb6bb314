"""`pcm_norm`: the official float32 norm of a chunk's PCM, the same on every CPU."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

from agenticvbench.verifiers.repair.pcm_norm import pcm_norm

LENGTHS = [0, 1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 96017, 480000, 480031]


def _round_f32(v: int) -> int:
    """A non-negative integer rounded to 24 significant bits, to nearest, ties to even (float32's rounding)."""
    shift = max(0, v.bit_length() - 24)
    if shift == 0:
        return v
    q, r = v >> shift, v & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return q << shift


def _reference(pcm: np.ndarray) -> float:
    """The AVX2 kernel's order of operations, spelt out in Python integers (units of 2**-30)."""
    sq = [int(k) * int(k) for k in pcm]
    full = len(sq) - len(sq) % 32
    acc = [0] * 32
    for i in range(0, full, 32):
        acc = [_round_f32(acc[j] + sq[i + j]) for j in range(32)]
    regs = [[_round_f32(acc[8 * r + lane] + acc[8 * r + lane + 4]) for lane in range(4)] for r in range(4)]
    lanes = [
        _round_f32(_round_f32(regs[0][k] + regs[1][k]) + _round_f32(regs[2][k] + regs[3][k]))
        for k in range(4)
    ]
    folded = _round_f32(_round_f32(lanes[0] + lanes[1]) + _round_f32(lanes[2] + lanes[3]))
    tail = sum(_round_f32(s) for s in sq[full:])
    total = _round_f32(tail + folded)
    return float(np.sqrt(np.float32(total * 2.0**-30)))


def _cases() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    out = [
        rng.integers(-scale, scale + 1, size=n).astype(np.int16)
        for n in LENGTHS
        for scale in (3, 2000, 32767)
    ]
    out.append(np.full(4096, -32768, np.int16))  # the largest square, in every lane
    return out


@pytest.mark.slow
def test_matches_the_kernel_spelt_out() -> None:
    """Every float32 rounding of the kernel, including the lane fold and the float64 tail, in exact integers,
    on lengths around the 32-lane blocks and on full chunks."""
    for pcm in _cases():
        assert pcm_norm(pcm) == _reference(pcm), pcm.size


def test_silence_is_exactly_zero_and_sizes_are_exact() -> None:
    """The official `na == 0.0` test is only true for all-zero PCM; one sample gives exactly |k| / 32768."""
    assert pcm_norm(np.zeros(480000, np.int16)) == 0.0
    assert pcm_norm(np.array([-32768], np.int16)) == 1.0
    assert pcm_norm(np.array([3], np.int16)) == 3 / 32768


_AVX2 = platform.machine() in ("x86_64", "AMD64") and "avx2" in open("/proc/cpuinfo").read()  # noqa: SIM115


@pytest.mark.slow
@pytest.mark.skipif(not _AVX2, reason="OpenBLAS's AVX2 kernel runs only on an x86-64 CPU with AVX2")
def test_equals_numpy_with_openblas_avx2_kernel() -> None:
    """Regression: `np.linalg.norm` of the float32 PCM gave per-chunk audio signals ~4e-6 apart between an
    AVX2 and an AVX-512 machine (OpenBLAS picks its `sdot` kernel per CPU), so scores were not reproducible
    across machines. `pcm_norm` must equal numpy bit for bit when numpy's OpenBLAS is forced to the AVX2 kernel
    the published official values were computed with."""
    cases = _cases()
    code = (
        "import json, sys, numpy as np\n"
        "cases = [np.array(c, np.int16) for c in json.load(sys.stdin)]\n"
        "print(json.dumps([float(np.linalg.norm(c.astype(np.float32) / np.float32(32768.0))) for c in cases]))\n"
    )
    env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps([c.tolist() for c in cases]),
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    numpy_avx2 = json.loads(out.stdout)
    assert [pcm_norm(c) for c in cases] == numpy_avx2
