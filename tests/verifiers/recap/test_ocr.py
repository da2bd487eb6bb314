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


@pytest.mark.slow
def test_rapidocr_runs_one_onnx_thread_and_reads_the_same(text_clip: Path) -> None:
    """The engine asks ONNX Runtime for one intra-op thread (its spinning workers competed with the decoder for
    ~20% more CPU), and that setting must not change what is read: same lines, boxes and scores as the default."""
    from rapidocr_onnxruntime import RapidOCR  # the suite needs the engine: see CONTRIBUTING.md, Setup

    from agenticvbench.media import iter_frames

    engine = ocr.RapidOcrEngine()
    for session in (engine._ocr.text_det.infer.session, engine._ocr.text_rec.session.session):
        assert session.get_session_options().intra_op_num_threads == ocr.INTRA_OP_THREADS == 1
    default = RapidOCR(det_limit_type="max", det_limit_side_len=ocr.MAX_SIDE, use_cls=False)
    frames = [f.image for k, f in enumerate(iter_frames(text_clip)) if k % 5 == 0]
    read = [engine._ocr(ocr._downscale(img))[0] for img in frames]
    assert any(read), "the clip must show text, or the comparison proves nothing"
    assert read == [default(ocr._downscale(img))[0] for img in frames]
