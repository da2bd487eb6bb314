"""Bounded work: sizes are checked before anything is read or hashed, and media headers before any decoding."""

from __future__ import annotations

import time

import pytest
from adversarial import by_id, long_media

from agenticvbench.integrity.screen import MAX_FRAME_SIDE


def test_sparse_2gb_report_is_refused_before_reading(hostile_run, score_run):
    """A 2 GB sparse report.md was hashed and read in full (4.3 GB peak RSS); it is over the 1 MB text cap."""
    run = hostile_run()
    big = run.sparse(65, "report.md", 2 * 1024**3)
    t0 = time.monotonic()
    r = by_id(score_run(run.root, [65]))[65]
    assert time.monotonic() - t0 < 30, "nothing of the 2 GB may be read"
    assert r.status == "malformed" and str(big) in r.reason and "1048576 byte limit" in r.reason


def test_manifest_over_5mb_is_refused(hostile_run, score_run):
    """solution.json has a 5 MB cap, checked before it is hashed."""
    run = hostile_run()
    run.sparse(83, "solution.json", 5 * 1024 * 1024 + 1)
    r = by_id(score_run(run.root, [83]))[83]
    assert r.status == "malformed" and "5242880 byte limit" in r.reason


@pytest.mark.slow
def test_media_cap_is_documented_and_can_be_raised(hostile_run, score_run):
    """Media have a cap too (default 4 GiB); the message names the option that raises it, and raising it works."""
    run = hostile_run()
    size = (run.folder(67) / "fixed.mp4").stat().st_size
    low = by_id(score_run(run.root, [67], max_media_bytes=size - 1))[67]
    assert low.status == "malformed" and "--max-media-mb" in low.reason
    ok = by_id(score_run(run.root, [67], max_media_bytes=size, force=True))[67]
    assert ok.status == "scored"


def test_proc_pagemap_is_refused_instantly(hostile_run, score_run):
    """solution.json -> /proc/self/pagemap stalled the hash for minutes; /proc/self/mem crashed the verifier."""
    run = hostile_run()
    run.symlink(84, "solution.json", "/proc/self/pagemap")
    run.symlink(83, "solution.json", "/proc/self/mem")
    t0 = time.monotonic()
    res = by_id(score_run(run.root, [83, 84]))
    assert time.monotonic() - t0 < 30
    assert res[83].status == res[84].status == "malformed"
    assert "/proc/self/mem" in res[83].reason and "/proc/self/pagemap" in res[84].reason


def test_absurd_duration_is_malformed_before_decoding(hostile_run, score_run, tmp_path):
    """A 2 KB file declaring 11 hours would keep the repair verifier decoding for hours; the header says enough."""
    run = hostile_run()
    fixed = long_media(tmp_path / "long.mp4", seconds=40_000)
    run.copy(65, "fixed.mp4", fixed)
    t0 = time.monotonic()
    r = by_id(score_run(run.root, [65]))[65]
    assert time.monotonic() - t0 < 30
    assert r.status == "malformed" and "40001 s" in r.reason and "not decoded" in r.reason


def test_absurd_frame_size_is_malformed_before_decoding(hostile_run, score_run, tmp_path):
    """A frame larger than 8K on a side is not a benchmark output, and decoding it costs gigabytes."""
    from adversarial import ffmpeg

    run = hostile_run()
    huge = tmp_path / "huge.mp4"
    ffmpeg("-f", "lavfi", "-i", f"color=s={MAX_FRAME_SIDE + 16}x16:r=1:d=1", "-c:v", "libx264", str(huge))
    run.copy(66, "fixed.mp4", huge)
    r = by_id(score_run(run.root, [66]))[66]
    assert r.status == "malformed" and f"{MAX_FRAME_SIDE + 16}x16" in r.reason


def test_non_utf8_and_deep_manifest_stay_clean(hostile_run, score_run):
    """Non-UTF-8 bytes and 100k-deep nesting in a manifest are malformed with a reason, never a traceback."""
    run = hostile_run()
    run.write(83, "solution.json", b"\xff\xfe{}")
    run.write(84, "solution.json", "[" * 100_000 + "]" * 100_000)
    res = by_id(score_run(run.root, [83, 84]))
    assert res[83].status == res[84].status == "malformed"
    assert "UTF-8" in res[83].reason and "deep" in res[84].reason


def test_frame_area_over_4096_squared_is_malformed(hostile_run, score_run, tmp_path):
    """An 8192x8192 10-bit 4:4:4 fixed.mp4 peaked at 2.4 GB RSS when scored; frames over 4096x4096 pixels are
    refused from the header."""
    from adversarial import ffmpeg

    from agenticvbench.integrity.screen import MAX_FRAME_PIXELS

    run = hostile_run()
    big = tmp_path / "big.mp4"
    ffmpeg(
        "-f", "lavfi", "-i", "color=s=4112x4112:r=1:d=1", "-c:v", "libx264", "-preset", "ultrafast", str(big)
    )
    run.copy(67, "fixed.mp4", big)
    r = by_id(score_run(run.root, [67]))[67]
    assert 4112 * 4112 > MAX_FRAME_PIXELS
    assert r.status == "malformed" and "4112x4112" in r.reason and "not decoded" in r.reason


def test_media_cap_setting_is_validated(monkeypatch):
    """A garbage $AVB_MAX_MEDIA_MB is a one-line configuration error, not a silent default or a traceback."""
    import pytest

    from agenticvbench.errors import ConfigError
    from agenticvbench.runs.submission import DEFAULT_MEDIA_MAX_BYTES, MB, media_max_bytes

    monkeypatch.delenv("AVB_MAX_MEDIA_MB", raising=False)
    assert media_max_bytes() == DEFAULT_MEDIA_MAX_BYTES == 4096 * MB
    monkeypatch.setenv("AVB_MAX_MEDIA_MB", "8192")
    assert media_max_bytes() == 8192 * MB
    monkeypatch.setenv("AVB_MAX_MEDIA_MB", "lots")
    with pytest.raises(ConfigError, match="AVB_MAX_MEDIA_MB"):
        media_max_bytes()
