"""Provenance facts recorded in every result: package and library versions and the host CPU's vector level
(computed once per process)."""

from __future__ import annotations

import importlib
import platform
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from agenticvbench.version import __version__

_LIBRARIES = (
    "numpy",
    "scipy",
    "av",
    "imageio-ffmpeg",
    "scikit-image",
    "opencv-python-headless",
    "opencv-python",
    "librosa",
    "numba",
    "scenedetect",
    "scenedetect-headless",
    "rapidocr-onnxruntime",
    "onnxruntime",
    "datasets",
    "huggingface_hub",
    "pyarrow",
    "openai",
)

_X86_LEVELS = (  # the x86-64 micro-architecture levels (psABI), highest first, in numpy's feature names
    ("x86-64-v4", ("AVX512F", "AVX512BW", "AVX512CD", "AVX512DQ", "AVX512VL")),
    ("x86-64-v3", ("AVX", "AVX2", "FMA3", "BMI", "BMI2", "F16C", "MOVBE")),
    ("x86-64-v2", ("SSSE3", "SSE41", "SSE42", "POPCNT")),
)


@lru_cache(maxsize=1)
def library_versions() -> dict[str, str]:
    """Versions of Python, the scoring libraries and the FFmpeg libraries PyAV is built on."""
    out: dict[str, str] = {"python": platform.python_version(), "agenticvbench": __version__}
    for name in _LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "absent"
    try:
        import av

        libav = av.library_versions.get("libavcodec")
        if libav:
            out["libavcodec"] = ".".join(map(str, libav))
    except Exception:  # pragma: no cover - provenance must never break scoring
        pass
    return out


def simd_level(features: dict[str, bool], machine: str) -> str:
    """The vector level of a CPU from numpy's runtime feature table: an x86-64 level, or the Arm extensions."""
    if machine.lower() in ("x86_64", "amd64", "i386", "i686", "x86"):
        for level, needs in _X86_LEVELS:
            if all(features.get(f) for f in needs):
                return level
        return "x86-64"
    found = [f for f in ("ASIMD", "SVE", "NEON", "VSX", "VX", "RVV", "LSX") if features.get(f)]
    return "+".join(found) or "unknown"


@lru_cache(maxsize=1)
def host_facts() -> dict[str, str]:
    """The machine and its CPU's vector level (e.g. `x86-64-v3`): the scoring libraries pick their kernels by it,
    and a result's last digits can follow it (docs/performance/repair-exactness.md, "The same number on every machine")."""
    machine = platform.machine() or "unknown"
    features: dict[str, bool] = {}
    for module in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):  # numpy 2.x, 1.x
        try:
            features = dict(getattr(importlib.import_module(module), "__cpu_features__", {}))
            break
        except ImportError:
            continue
    return {"machine": machine, "simd": simd_level(features, machine)}


def base_provenance(dataset: dict[str, Any], verifier_version: str) -> dict[str, Any]:
    """The provenance block shared by every result of a run; verifiers add their own keys (e.g. judge)."""
    return {
        "package_version": __version__,
        "verifier_version": verifier_version,
        "dataset": dataset,
        "libraries": library_versions(),
        "host": dict(host_facts()),
    }
