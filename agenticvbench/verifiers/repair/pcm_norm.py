"""The L2 norm of a chunk's PCM, bit for bit as the official edit rubric gets it, on every machine.

The official audio signal divides the cross-correlation peak by `np.linalg.norm(a) * np.linalg.norm(b)`, where
`a` and `b` are float32 arrays (int16 PCM / 32768). For a float32 vector numpy computes that norm as
`sqrt(a.dot(a))`, and the dot is BLAS `sdot`, summed in float32. Its rounding depends on which kernel the BLAS
picked for the CPU at load time: OpenBLAS (numpy's and scipy's wheels) runs an AVX2 kernel on Haswell-class and
AMD Zen CPUs and an AVX-512 one on Skylake-X and later Xeons, and the two round differently. Over a 10-s chunk
(480,000 samples) the norms differ in the 6th-7th digit, so the official scorer itself gives per-chunk audio
signals about 4e-6 apart on two such machines (D-R14). The published official values agree with the AVX2 kernel
(within 1.8e-7 on every chunk of the HD golden pairs; the AVX-512 one is ~4e-6 off on every chunk).

`pcm_norm` therefore computes what the AVX2 kernel computes, in exact integer arithmetic, so it is the same
everywhere. The kernel (OpenBLAS `kernel/x86_64/sdot_microk_haswell-2.c` with `sdot.c`, unchanged since
2020) keeps 32 float32 accumulators, one per lane of four 8-wide registers, and adds each element's square to
its lane with a fused multiply-add (one rounding). After the last full block of 32 it folds the lanes: the high
half of each register onto its low half, register 0 + 1 and 2 + 3, the two sums, then two horizontal pair adds.
The remaining (n mod 32) elements are squared in float32 and summed in float64, the folded float32 sum is
added, and the total is rounded to float32. numpy takes the float32 square root.

Every value involved is a multiple of 2**-30 (a sample is k * 2**-15 with k an int16), so the arithmetic is
done on integers counted in units of 2**-30, each float32 rounding being the int64 -> float32 conversion
(correctly rounded to nearest even, as IEEE 754 requires of it). Nothing is approximated.
"""

from __future__ import annotations

import math

import numpy as np

from agenticvbench.compiled import compiled

LANES = 32  # four 8-wide AVX2 registers


@compiled()
def _f32(v: int) -> int:  # pragma: no cover - compiled
    """`v` (an integer count of units) rounded to float32, as an integer count of units again."""
    return int(np.int64(np.float32(v)))


@compiled()
def _sum_of_squares_units(pcm: np.ndarray) -> int:  # pragma: no cover - compiled
    n = pcm.size
    full = n - n % LANES
    acc = np.zeros(LANES, dtype=np.int64)
    for i in range(0, full, LANES):
        for j in range(LANES):
            k = np.int64(pcm[i + j])
            acc[j] = _f32(acc[j] + k * k)  # vfmadd231ps: the square is exact inside, one rounding
    fold = np.empty(4, dtype=np.int64)
    for lane in range(4):  # per register r: low half + high half, then (r0 + r1) + (r2 + r3)
        r = np.empty(4, dtype=np.int64)
        for reg in range(4):
            r[reg] = _f32(acc[8 * reg + lane] + acc[8 * reg + lane + 4])
        fold[lane] = _f32(_f32(r[0] + r[1]) + _f32(r[2] + r[3]))
    folded = _f32(_f32(fold[0] + fold[1]) + _f32(fold[2] + fold[3]))  # two vhaddps
    tail = np.int64(0)  # float64 sum of float32 squares: exact for these integers
    for i in range(full, n):
        k = np.int64(pcm[i])
        tail += _f32(k * k)
    return _f32(tail + folded)


def pcm_norm(pcm: np.ndarray) -> float:
    """`float(np.linalg.norm(pcm.astype(np.float32) / 32768))` for int16 `pcm`, as OpenBLAS's AVX2 `sdot`
    kernel rounds it, on any CPU (the module docstring says why)."""
    units = _sum_of_squares_units(np.ascontiguousarray(pcm, dtype=np.int16))
    return float(np.sqrt(np.float32(math.ldexp(float(units), -30))))
