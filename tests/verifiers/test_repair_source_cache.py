"""The edit rubric's source cache: round trip, atomic and best-effort writes, partial entries."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from agenticvbench.verifiers.repair.features import FrameFeatures, dhash64, laplacian_variance
from agenticvbench.verifiers.repair.source_cache import SourceCache


def _bgr(seed: int, h: int = 36, w: int = 64) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


def test_source_cache_round_trip_is_atomic(tmp_path: Path) -> None:
    src = tmp_path / "src.bin"
    src.write_bytes(b"not really a video")
    cache = SourceCache(tmp_path / "c", src)
    assert cache.lookup(0) == (None, None)
    for i in (0, 3):
        f = FrameFeatures(i, _bgr(i))
        f.dhash, f.lapvar  # noqa: B018
        cache.record(f)
    cache.save()
    cache.save_audio_spans(
        {"0.000+10.000": np.arange(5, dtype=np.int16), "10.000+2.000": np.zeros(0, np.int16)}
    )
    again = SourceCache(tmp_path / "c", src)
    assert again.lookup(3) == (
        dhash64(cv2.cvtColor(_bgr(3), cv2.COLOR_BGR2GRAY)),
        pytest.approx(laplacian_variance(cv2.cvtColor(_bgr(3), cv2.COLOR_BGR2GRAY))),
    )
    assert again.lookup(1) == (None, None) and again.lookup(99) == (None, None)
    assert again.hits == 1
    spans = again.load_audio_spans()
    assert sorted(spans) == ["0.000+10.000", "10.000+2.000"] and spans["10.000+2.000"].size == 0
    assert np.array_equal(spans["0.000+10.000"], np.arange(5, dtype=np.int16))
    assert again.root is not None
    assert not list(again.root.glob(".*tmp"))  # no temp files left behind
    (again.root / "frames.npz").write_bytes(b"torn")  # unreadable cache: ignored, recomputed
    assert SourceCache(tmp_path / "c", src).lookup(3) == (None, None)


@pytest.mark.privileges
def test_source_cache_write_failure_is_noted_not_raised(tmp_path: Path) -> None:
    """Regression: `save()` / `save_audio_spans()` let OSError escape (and `score_edit` with it) when the cache dir
    cannot be created; the cache is best-effort, so the failure is recorded and the data stays usable in memory.
    The dir lies under a regular file, so mkdir fails even for root (chmod would not stop root)."""
    src = tmp_path / "src.bin"
    src.write_bytes(b"not really a video")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = SourceCache(blocker / "cache", src)
    f = FrameFeatures(2, _bgr(2))
    f.dhash, f.lapvar  # noqa: B018
    cache.record(f)
    cache.save()
    cache.save_audio_spans({"0.000+10.000": np.arange(5, dtype=np.int16)})
    assert [e.split(" not written")[0] for e in cache.write_errors] == [
        "source cache frames.npz",
        "source cache audio_spans.npz",
    ]
    assert cache.lookup(2) == (f.dhash, pytest.approx(f.lapvar)) and cache.load_audio_spans() == {}


def test_no_cache_dir_stores_nothing(tmp_path: Path) -> None:
    cache = SourceCache(None, tmp_path / "missing.mp4")  # not even hashed
    f = FrameFeatures(0, _bgr(0))
    f.dhash, f.lapvar  # noqa: B018
    cache.record(f)
    cache.save()
    cache.save_audio_spans({"0.000+10.000": np.zeros(3, np.int16)})
    assert cache.load_audio_spans() == {} and list(tmp_path.iterdir()) == [] and cache.write_errors == []


def test_source_cache_keeps_dhash_without_lapvar(tmp_path: Path) -> None:
    """Only lag candidates need a source frame's Laplacian variance, so a frame may be cached with its dHash
    alone: it comes back as (dhash, None), and a later run that computes the variance adds it."""
    src = tmp_path / "src.bin"
    src.write_bytes(b"not really a video")
    cache = SourceCache(tmp_path / "c", src)
    f = FrameFeatures(4, _bgr(4), on_small=cache.recorder)
    f.dhash  # noqa: B018 - the callback records it
    cache.save()
    again = SourceCache(tmp_path / "c", src)
    assert again.lookup(4) == (f.dhash, None) and again.lookup(0) == (None, None)
    g = FrameFeatures(4, _bgr(4), dhash=f.dhash, on_small=again.recorder)
    g.lapvar  # noqa: B018
    again.save()
    assert SourceCache(tmp_path / "c", src).lookup(4) == (f.dhash, pytest.approx(g.lapvar))
