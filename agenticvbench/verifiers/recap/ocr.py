"""The OCR engine behind `pytesseract_substring_match`: RapidOCR (ONNX Runtime, models bundled in the wheel).

The official kind ran tesseract, a system binary we cannot require (no system packages), so the default engine is
`rapidocr-onnxruntime` (the `ocr` extra): its PP-OCRv4 models ship inside the wheel, so it works offline and reads
with the same models everywhere (ONNX Runtime's kernels still follow the CPU; see docs/decisions/recap-checks.md). It is
an extra because it declares the GUI OpenCV build (see docs/decisions/packaging.md); without any engine an OCR item raises
`OcrUnavailableError` and its task ends in `error`, never a silent fail. Setting `AVB_OCR_ENGINE=tesseract` opts
into pytesseract + the tesseract binary when both are installed (closer to the official engine, but
machine-dependent).
"""

from __future__ import annotations

import os
import shutil
import threading
from functools import lru_cache
from typing import Protocol

import numpy as np

MAX_SIDE = 960
"""Frames are downscaled so their long side is at most this many pixels before detection (speed: OCR dominates a
task's check time; 1080p subtitles stay about 20 px high). RapidOCR's detector keeps that size (limit_type `max`).
The text-angle classifier is off (upside-down text is not a video-title case; tesseract's default skips it too)."""


INTRA_OP_THREADS = 1
"""ONNX Runtime threads per OCR call. The recogniser already runs on its own thread beside the video decode
(`frame_pass`), so a second ONNX worker only competes with the decoder, and ONNX Runtime's idle workers spin:
with the default (one per core) a task's python checks on a 3-minute 1080p clip used ~20% more CPU for the same
wall time. The text, boxes and scores are identical (compared on 243 frames)."""


class OcrUnavailableError(RuntimeError):
    """No OCR engine is installed: the on-screen-text check cannot be measured (the task is an `error`)."""


OCR_INSTALL_HINT = (
    "the on-screen-text check needs an OCR engine: pip install 'agenticvbench[ocr]' "
    "(or set AVB_OCR_ENGINE=tesseract with pytesseract and the tesseract binary installed)"
)


class OcrEngine(Protocol):
    """Reads the text in one BGR frame."""

    name: str

    def read(self, image_bgr: np.ndarray) -> str:
        """All text found in the frame, one detected line per output line."""
        ...


def _downscale(image: np.ndarray) -> np.ndarray:
    import cv2

    h, w = image.shape[:2]
    scale = MAX_SIDE / max(h, w)
    if scale >= 1.0:
        return image
    return cv2.resize(
        image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
    )


class RapidOcrEngine:
    """RapidOCR with its bundled models; calls are serialised because the ONNX sessions are shared."""

    def __init__(self) -> None:
        from importlib.metadata import version

        try:
            from rapidocr_onnxruntime import RapidOCR
        except ImportError:
            raise OcrUnavailableError(OCR_INSTALL_HINT) from None

        self.name = f"rapidocr-onnxruntime {version('rapidocr-onnxruntime')} max{MAX_SIDE} nocls"
        self._ocr = RapidOCR(
            det_limit_type="max",
            det_limit_side_len=MAX_SIDE,
            use_cls=False,
            intra_op_num_threads=INTRA_OP_THREADS,
        )
        self._lock = threading.Lock()

    def read(self, image_bgr: np.ndarray) -> str:
        """Detected text lines, top to bottom as RapidOCR returns them, joined by newlines."""
        with self._lock:
            result, _elapsed = self._ocr(np.ascontiguousarray(_downscale(image_bgr)))
        if not result:
            return ""
        return "\n".join(str(item[1]) for item in result if len(item) > 1 and item[1])


class TesseractEngine:
    """pytesseract with tesseract's default configuration (the official engine); optional."""

    def __init__(self) -> None:
        import pytesseract  # type: ignore[import-not-found]

        self._pt = pytesseract
        self.name = f"tesseract {pytesseract.get_tesseract_version()}"

    def read(self, image_bgr: np.ndarray) -> str:
        """tesseract's text for the frame (converted to RGB as PIL images are)."""
        return str(self._pt.image_to_string(np.ascontiguousarray(image_bgr[:, :, ::-1])))


def tesseract_available() -> bool:
    """True when pytesseract is importable and a tesseract binary is on PATH."""
    try:
        import pytesseract  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return False
    return shutil.which("tesseract") is not None


@lru_cache(maxsize=1)
def get_engine() -> OcrEngine:
    """The process-wide OCR engine: RapidOCR, or tesseract when `AVB_OCR_ENGINE=tesseract` and it is installed."""
    if os.environ.get("AVB_OCR_ENGINE", "").lower() == "tesseract" and tesseract_available():
        return TesseractEngine()
    return RapidOcrEngine()
