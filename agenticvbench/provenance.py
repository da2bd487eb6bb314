"""Provenance facts recorded in every result: package and library versions (computed once per process)."""

from __future__ import annotations

import platform
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from agenticvbench.version import __version__

_LIBRARIES = (
    "numpy", "scipy", "av", "imageio-ffmpeg", "scikit-image", "opencv-python-headless", "librosa", "numba",
    "scenedetect", "scenedetect-headless", "rapidocr-onnxruntime", "datasets", "huggingface_hub", "pyarrow", "openai",
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


def base_provenance(dataset: dict[str, Any], verifier_version: str) -> dict[str, Any]:
    """The provenance block shared by every result of a run; verifiers add their own keys (e.g. judge)."""
    return {
        "package_version": __version__,
        "verifier_version": verifier_version,
        "dataset": dataset,
        "libraries": library_versions(),
    }
