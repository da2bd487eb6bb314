"""Check: do scores depend on the CPU? Score the same inputs as lesser CPUs would, on this one, and compare.

The scoring libraries pick their kernels by CPU at run time; each can be told to act as a lesser CPU:
numpy (`NPY_DISABLE_CPU_FEATURES`), OpenCV (`OPENCV_CPU_DISABLE`), OpenBLAS (`OPENBLAS_CORETYPE`), numba
(`NUMBA_CPU_NAME`) and FFmpeg's libraries in PyAV (`av_force_cpu_flags`, through ctypes). Levels:
  v3        x86-64-v3: AVX2 + FMA, no AVX-512 (numpy, OpenCV, OpenBLAS, numba and libav alike)
  v2        x86-64-v2: SSE4.2, no AVX
  nosimd    libav without any SIMD (the closest this host gets to an Arm CPU's libswscale), the rest as v2
  portable  as nosimd, with the portable YUV->BGR converter (`AVB_BGR_CONVERTER=portable`)
Two measurements per level, each in a fresh process, compared leaf by leaf with the host's own run:
- `goldens`: the repair edit of the committed golden fixes (`tests/data/repair-edit`) and the per-chunk audio
  of the two HD pairs (`tests/data/repair-edit-hd`);
- `--demo DIR`: `avb verify` of a demo benchmark's three runs (`avb demo --dest DIR --no-score` builds one), every
  family (for this part libav keeps its flags: the workers are separate processes).

Usage: `python benchmarks/check_cpu_levels.py [--levels v3,v2,nosimd,portable] [--demo DIR] [--top 5]`.
Prints, per level, how many values differ and the largest differences. x86-64 Linux with PyAV's wheel only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
AV_SSE42 = 0x1 | 0x2 | 0x8 | 0x10 | 0x40 | 0x80 | 0x100 | 0x200 | 0x1000  # MMX..SSE4.2, CMOV
AV_AVX2 = AV_SSE42 | 0x4000 | 0x8000 | 0x10000 | 0x20000 | 0x40000 | 0x80000  # + AVX, AVX2, FMA3, BMI1/2, AES
ENV_V3 = {
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    "OPENCV_CPU_DISABLE": "AVX512-SKX",
    "OPENBLAS_CORETYPE": "Haswell",
    "NUMBA_CPU_NAME": "haswell",
}
ENV_V2 = {
    "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
    "OPENCV_CPU_DISABLE": "AVX512-SKX,AVX2,FP16,AVX,FMA3",
    "OPENBLAS_CORETYPE": "Nehalem",
    "NUMBA_CPU_NAME": "nehalem",
}
LEVELS: dict[str, tuple[dict[str, str], int]] = {
    "host": ({}, -1),
    "v3": (ENV_V3, AV_AVX2),
    "v2": (ENV_V2, AV_SSE42),
    "nosimd": (ENV_V2, 0),
    "portable": ({**ENV_V2, "AVB_BGR_CONVERTER": "portable"}, 0),
}
SKIP_KEYS = {"result_sha256", "timings", "provenance", "engine", "scored_at", "started_at", "finished_at"}

_GOLDENS = """
import ctypes, glob, json, os, sys, tempfile
from pathlib import Path
import av
flags = int(sys.argv[1])
if flags != -1:
    lib = glob.glob(os.path.join(os.path.dirname(av.__file__), "..", "av.libs", "libavutil-*"))[0]
    ctypes.CDLL(lib).av_force_cpu_flags(flags)
sys.path.insert(0, str(Path(sys.argv[2]) / "tests" / "verifiers"))
from agenticvbench.verifiers.repair.edit import score_edit
import test_repair_edit_hd as hd
data = Path(sys.argv[2]) / "tests" / "data" / "repair-edit"
out = {}
with tempfile.TemporaryDirectory() as cache:
    for fix in sorted(data.glob("f_*.mp4")):
        r = score_edit(fix, data / "source.mp4", duration_s=20.0, window=(8.0, 10.0), video_share=0.6,
                       audio_share=0.4, cache_dir=cache)
        out[fix.name] = {"score": r.score, "chunks": r.detail.get("chunks")}
for cell, case in sorted(hd.CASES.items()):
    out["hd " + cell] = hd._audio_chunks(case)[0]
print(json.dumps(out, default=str))
"""


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {*ENV_V2, "AVB_BGR_CONVERTER"}}
    return {**env, **extra}


def goldens(level: str) -> Any:
    """The golden repair values scored as `level`'s CPU would (a fresh process)."""
    env, flags = LEVELS[level]
    out = subprocess.run(
        [sys.executable, "-c", _GOLDENS, str(flags), str(ROOT)],
        env=_env(env),
        check=True,
        capture_output=True,
        text=True,
        timeout=3600,
    ).stdout
    return json.loads(out)


def demo(level: str, demo_dir: Path, scratch: Path) -> dict[str, Any]:
    """Every result of `avb verify` on the demo's runs, scored with `level`'s library settings."""
    env, _ = LEVELS[level]
    out = scratch / level
    runs = sorted(p for p in (demo_dir / "runs").iterdir() if p.is_dir())
    subprocess.run(
        [
            "avb",
            "verify",
            *map(str, runs),
            "--dataset",
            str(demo_dir / "mirror"),
            "--out",
            str(out),
            "--judge",
            "off",
            "-q",
            "--cache-dir",
            str(scratch / f"{level}.cache"),
        ],
        env=_env(env),
        check=False,
        capture_output=True,
        timeout=7200,
    )
    return {str(f.relative_to(out)): json.loads(f.read_text()) for f in sorted(out.rglob("*.json"))}


def differences(a: Any, b: Any, path: str = "") -> list[tuple[float, str, Any, Any]]:
    """(size, path, ours, theirs) of every leaf that differs; inf for non-numeric or missing ones."""
    if isinstance(a, dict):
        if not isinstance(b, dict):
            return [(float("inf"), path, "dict", b)]
        return [
            d
            for k in a
            if k not in SKIP_KEYS and "path" not in k
            for d in differences(a[k], b.get(k), f"{path}.{k}")
        ]
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return [(float("inf"), path, "list", b)]
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]")
        ]
    if isinstance(a, float) and isinstance(b, int | float) and not isinstance(b, bool):
        return [] if a == b else [(abs(a - b), path, a, b)]
    return [] if a == b else [(float("inf"), path, a, b)]


def _report(name: str, level: str, diffs: list[tuple[float, str, Any, Any]], top: int) -> None:
    diffs.sort(key=lambda d: -d[0])
    where = sorted({d[1].lstrip(".").split(".json")[0].split(".mp4")[0].split("[")[0] for d in diffs})
    print(
        f"{name:8s} {level:9s} {len(diffs):4d} values differ"
        + (f" in {len(where)} results: {', '.join(where)}" if diffs else " (identical)")
    )
    for size, path, a, b in diffs[:top]:
        print(f"{'':19s}{size:.3g}  {path}  {a} -> {b}")


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="v3,v2,nosimd,portable")
    ap.add_argument(
        "--demo", type=Path, help="a demo benchmark folder (mirror/ and runs/) to verify per level"
    )
    ap.add_argument("--top", type=int, default=5, help="largest differences to print per level")
    args = ap.parse_args(argv)
    levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    base = goldens("host")
    for level in levels:
        _report("goldens", level, differences(base, goldens(level)), args.top)
    if args.demo:
        with tempfile.TemporaryDirectory() as tmp:
            ref = demo("host", args.demo, Path(tmp))
            for level in [lv for lv in levels if lv in ("v3", "v2", "portable")]:
                _report("demo", level, differences(ref, demo(level, args.demo, Path(tmp))), args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
