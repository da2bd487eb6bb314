"""The edit rubric's video pass returns a typed `VideoPass` whose counters agree with an independent count on a
tiny generated pair: a 3-s 10-fps source and its 20-fps fixed version (so the last fixed samples lie past every
source frame's lag band)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agenticvbench.media import iter_frames, run_ffmpeg
from agenticvbench.verifiers.repair import features
from agenticvbench.verifiers.repair.edit import plan_chunks
from agenticvbench.verifiers.repair.edit_video import ChunkVideo, VideoPass, video_pass
from agenticvbench.verifiers.repair.features import LAG_BAND_FRAMES
from agenticvbench.verifiers.repair.source_cache import SourceCache

SIZE = (64, 36)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(source, fixed): testsrc2 at 10 fps for 3 s, and the same re-encoded at 20 fps (each frame shown twice)."""
    d = tmp_path_factory.mktemp("edit-video")
    src, fix = d / "source.mp4", d / "fixed.mp4"
    run_ffmpeg(
        [
            "-y",
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            f"testsrc2=s={SIZE[0]}x{SIZE[1]}:r=10:d=3",
            "-c:v",
            "libx264",
            "-g",
            "10",
            "-pix_fmt",
            "yuv420p",
            str(src),
        ],
        check=True,
    )
    run_ffmpeg(
        [
            "-y",
            "-v",
            "error",
            "-i",
            str(src),
            "-r",
            "20",
            "-c:v",
            "libx264",
            "-crf",
            "30",
            "-pix_fmt",
            "yuv420p",
            str(fix),
        ],
        check=True,
    )
    return src, fix


def test_video_pass_counters_agree_with_an_independent_count(
    pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`video_pass` returns an immutable `VideoPass` (it fills no stats dict of the caller's) whose counters are
    what a direct count gives: every source frame read once; the samples with no source frame within +/-10
    frames counted as empty bands and scoring nothing; every other band frame either hash-skipped, pruned by the
    bound or given its SSIM (the clip is sharp and colourful, so no candidate is zero by sharpness or chroma);
    and `n_ssim` equal to the SSIM calls actually made."""
    source, fixed = pair
    n_src = sum(1 for _ in iter_frames(source))
    n_fix = sum(1 for _ in iter_frames(fixed))
    assert (n_src, n_fix) == (30, 60)
    calls = []
    real_ssim = features.structural_similarity

    def counting_ssim(a, b):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real_ssim(a, b)

    monkeypatch.setattr(features, "structural_similarity", counting_ssim)

    plans = plan_chunks(3.0, 10.0, 20.0)
    res = video_pass(fixed, source, plans, 20.0, SIZE, SourceCache(None, source), None, 1)

    samples = list(range(0, 60, 2))  # every 2nd fixed frame (20 fps sampled at 10/s), 30 of them
    assert plans[0].samples == tuple(samples)
    scored = [i for i in samples if i - LAG_BAND_FRAMES <= n_src - 1]
    band_frames = sum(min(n_src - 1, i + LAG_BAND_FRAMES) - max(0, i - LAG_BAND_FRAMES) + 1 for i in scored)
    assert isinstance(res, VideoPass) and len(res.chunks) == 1 and res.fixed_error is None
    assert res.n_src_frames == n_src
    assert res.n_empty_band == len(samples) - len(scored) == 10
    assert res.n_ssim == len(calls) > 0
    assert res.n_ssim + res.n_pruned + res.n_hash_skipped == band_frames
    chunk = res.chunks[0]
    assert isinstance(chunk, ChunkVideo) and chunk.error is None and not chunk.fixed_ended
    assert chunk.ts == tuple(i / 20.0 for i in scored)
    assert len(chunk.values) == len(chunk.lags) == len(scored) and all(0.0 < v <= 1.0 for v in chunk.values)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.n_ssim = 0  # type: ignore[misc]
