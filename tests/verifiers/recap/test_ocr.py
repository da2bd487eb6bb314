"""The OCR engine is an optional extra: without it an OCR item is the verifier's failure, never a silent fail."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenticvbench.verifiers.recap import ocr
from agenticvbench.verifiers.recap.kinds import MediaFacts, run_kind


@pytest.fixture
def no_rapidocr(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make `import rapidocr_onnxruntime` fail, as in an install without the `ocr` extra."""
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)
    monkeypatch.delenv("AVB_OCR_ENGINE", raising=False)
    ocr.get_engine.cache_clear()
    yield
    ocr.get_engine.cache_clear()


def test_missing_engine_raises_with_install_hint(no_rapidocr: None, text_clip: Path) -> None:
    """run_kind turns other exceptions into a failed item; a missing OCR engine must propagate instead (so the
    engine reports the task as `error`, retried on the next run), and the message says how to install it."""
    with pytest.raises(ocr.OcrUnavailableError, match=r"agenticvbench\[ocr\]"):
        run_kind("pytesseract_substring_match", {"substrings": ["agentic"]}, MediaFacts(text_clip))


def test_other_kinds_do_not_need_the_engine(no_rapidocr: None, text_clip: Path) -> None:
    """Only the OCR kind depends on the extra: a probe kind still scores on the same install."""
    res = run_kind("ffprobe_resolution_eq", {"width": 320, "height": 240}, MediaFacts(text_clip))
    assert not res.error and res.passed
