"""One decode per recap video: the grouped passes give the same measurements as one pass per measurement."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rapidocr_onnxruntime  # noqa: F401  # the suite needs the OCR engine: see CONTRIBUTING.md, Setup

from agenticvbench.errors import MediaError
from agenticvbench.media import filters as ff
from agenticvbench.media import video as media_video
from agenticvbench.verifiers.recap import frame_pass as fp
from agenticvbench.verifiers.recap.kinds import MediaFacts, kind_needs, run_kind
from agenticvbench.verifiers.recap.ocr import get_engine

EVERYTHING = [
    ("scenedetect_max_shot_duration", {"max_seconds": 3}),
    ("scenedetect_median_shot_duration", {"min": 0.5}),
    ("pytesseract_substring_match", {"substrings": ["agentic"]}),
    ("pytesseract_substring_match", {"substrings": ["recap 42"], "sample_fps": 2}),
    ("ffmpeg_blackdetect_max_run", {"max_seconds": 1}),
    ("ffmpeg_freeze_max_run", {"max_seconds": 1}),
    ("ffmpeg_decode_no_errors", {}),
]


def _count_decodes(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count every PyAV decode of a whole video and every ffmpeg run of the filter module."""
    calls: Counter[str] = Counter()
    real_decoded, real_ffmpeg = media_video.iter_decoded, ff.run_ffmpeg

    def decoded(*args: Any, **kwargs: Any) -> Any:
        calls["pyav"] += 1
        return real_decoded(*args, **kwargs)

    def ffmpeg(*args: Any, **kwargs: Any) -> Any:
        calls["ffmpeg"] += 1
        return real_ffmpeg(*args, **kwargs)

    monkeypatch.setattr(media_video, "iter_decoded", decoded)
    monkeypatch.setattr(fp, "iter_decoded", decoded)
    monkeypatch.setattr(ff, "run_ffmpeg", ffmpeg)
    return calls


def _run_all(facts: MediaFacts) -> list[tuple[bool, str, str]]:
    return [(r.passed, r.evidence, r.error) for r in (run_kind(k, p, facts) for k, p in EVERYTHING)]


@pytest.mark.slow
def test_every_whole_file_measurement_decodes_once(text_clip: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the grouped passes: with the needs declared, shots, OCR at two rates, black and freeze runs
    and the decode-error log cost one PyAV decode and one ffmpeg run, and every verdict and evidence string is
    the one the per-measurement passes give."""
    separate = _run_all(MediaFacts(text_clip))
    calls = _count_decodes(monkeypatch)
    facts = MediaFacts(text_clip)
    facts.expect(set().union(*(kind_needs(k, p) for k, p in EVERYTHING)))
    assert _run_all(facts) == separate
    assert calls == Counter(pyav=1, ffmpeg=1)
    assert facts.computed["shots"] == 1 and facts.computed["ocr"] == 2 and facts.computed["decode"] == 1


@pytest.mark.slow
def test_undeclared_measurements_still_work(text_clip: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `expect` each measurement runs its own pass (slower, same values): a caller that never
    declares needs loses nothing."""
    calls = _count_decodes(monkeypatch)
    facts = MediaFacts(text_clip)
    assert "AGENTIC" in facts.ocr_text(1.0) and facts.shots() == []  # grey background: no cut
    assert facts.decode_errors() == "" and facts.freeze_runs() is not None
    assert calls == Counter(pyav=2, ffmpeg=2)


def test_kind_needs_reads_params() -> None:
    """The needs follow the params: OCR at its sample rate, black runs only at the default threshold."""
    assert kind_needs("pytesseract_substring_match", {"substrings": ["x"], "sample_fps": "2"}) == {
        ("ocr", 2.0)
    }
    assert kind_needs("ffmpeg_blackdetect_max_run", {"max_seconds": 1}) == {("blackfreeze",)}
    assert kind_needs("ffmpeg_blackdetect_max_run", {"max_seconds": 1, "pix_th": 0.2}) == set()
    assert kind_needs("pytesseract_substring_match", {"sample_fps": "fast"}) == set()  # reported by the kind
    assert kind_needs("no_such_kind", {}) == set()


def test_recogniser_failure_fails_only_the_ocr(text_clip: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash inside the OCR engine on one frame must not take the shot list (same decode) down with it."""
    engine = get_engine()

    def broken(image: np.ndarray) -> str:
        raise RuntimeError("onnx exploded")

    monkeypatch.setattr(engine, "read", broken)
    facts = MediaFacts(text_clip)
    facts.expect({("shots",), ("ocr", 1.0)})
    assert facts.shots() == [] and facts.computed["shots"] == 1
    res = run_kind("pytesseract_substring_match", {"substrings": ["agentic"]}, facts)
    assert not res.passed and "onnx exploded" in res.error


def test_decode_failure_fails_every_member(monkeypatch: pytest.MonkeyPatch, text_clip: Path) -> None:
    """A file that stops decoding halfway gives the same error to the shots and to the OCR of that pass."""
    real = media_video.iter_decoded

    def dies(*args: Any, **kwargs: Any) -> Any:
        for i, frame in enumerate(real(*args, **kwargs)):
            if i == 5:
                raise MediaError("text.mp4: decode failed (boom)")
            yield frame

    monkeypatch.setattr(media_video, "iter_decoded", dies)
    facts = MediaFacts(text_clip)
    facts.expect({("shots",), ("ocr", 1.0)})
    for kind_name, params in EVERYTHING[:3]:
        res = run_kind(kind_name, params, facts)
        assert not res.passed and "boom" in res.error
    assert facts.computed["shots"] == 1 and facts.computed["ocr"] == 1


@pytest.mark.slow
def test_ocr_queue_is_bounded(ramp_clip: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoding may run ahead of a slow recogniser by at most OCR_QUEUE frames (memory bound)."""
    import threading
    import time

    waiting, worst, lock = [0], [0], threading.Lock()
    real_submit = fp.ThreadPoolExecutor.submit

    def slow_read(image: np.ndarray) -> str:
        time.sleep(0.05)
        with lock:
            waiting[0] -= 1
        return ""

    def submit(self: Any, fn: Any, *args: Any) -> Any:
        with lock:
            waiting[0] += 1
            worst[0] = max(worst[0], waiting[0])
        return real_submit(self, fn, *args)

    monkeypatch.setattr(fp.ThreadPoolExecutor, "submit", submit)
    res = fp.frame_pass(
        ramp_clip, shots_threshold=None, ocr_fps=[24.0], read=slow_read
    )  # every frame differs
    assert res.ocr[24.0] == "" and worst[0] == fp.OCR_QUEUE


def test_shot_detection_that_cannot_start_leaves_ocr(
    text_clip: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the shot detector refuses (no frame rate) is still read by OCR, as with separate passes."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise MediaError("text.mp4: unknown frame rate")

    monkeypatch.setattr(fp, "ShotDetection", refuse)
    res = fp.frame_pass(text_clip, shots_threshold=27.0, ocr_fps=[1.0], read=get_engine().read)
    assert isinstance(res.shots, MediaError) and "AGENTIC" in str(res.ocr[1.0])


def test_background_pass_is_joined_by_close(text_clip: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking for shots starts the expected ffmpeg pass beside the PyAV decode; `close` waits for it, so a task
    that stops early never leaves a decode running into the next one, and its results are already there."""
    calls = _count_decodes(monkeypatch)
    facts = MediaFacts(text_clip)
    facts.expect({("shots",), ("blackfreeze",), ("decode",)})
    facts.shots()
    facts.close()
    assert calls == Counter(pyav=1, ffmpeg=1) and facts.computed["blackfreeze"] == 1
    assert facts.decode_errors() == "" and calls["ffmpeg"] == 1  # served from the finished background pass
