"""ffmpeg-filter kinds on generated clips: black runs, freezes, brightness, volume, LUFS, decode errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenticvbench.verifiers.recap.kinds import MediaFacts, loudness_facts, run_kind


@pytest.fixture(scope="module")
def main(main_clip: Path) -> MediaFacts:
    return MediaFacts(main_clip)


@pytest.fixture(scope="module")
def freeze(freeze_clip: Path) -> MediaFacts:
    return MediaFacts(freeze_clip)


def _ok(kind: str, params: dict, facts: MediaFacts) -> bool:
    res = run_kind(kind, params, facts)
    assert not res.error, res
    assert res.evidence
    return res.passed


@pytest.mark.slow
def test_blackdetect(main: MediaFacts) -> None:
    """main.mp4 has one 3 s black run, 1.5-4.5 s."""
    assert _ok("ffmpeg_blackdetect_max_run", {"max_seconds": 3.5}, main)
    assert not _ok("ffmpeg_blackdetect_max_run", {"max_seconds": 2}, main)
    # The run ends at 4.5 s: excluding the last 2 s (cutoff 4.0 s) ignores it.
    assert _ok("ffmpeg_blackdetect_max_run", {"max_seconds": 2, "exclude_last_seconds": 2}, main)
    # pix_th 1.0 counts every pixel as black: the whole 6 s clip is one run.
    assert not _ok("ffmpeg_blackdetect_max_run", {"max_seconds": 3.5, "pix_th": 1.0}, main)
    assert main.computed["blackfreeze"] == 1 and main.computed["black"] == 1
    runs = main.black_runs()
    assert len(runs) == 1 and runs[0].start == pytest.approx(1.5) and runs[0].end == pytest.approx(4.5)


def test_freeze(freeze: MediaFacts) -> None:
    """freeze.mp4 holds one frame from ~2 s to 4 s."""
    assert not _ok("ffmpeg_freeze_max_run", {"max_seconds": 1}, freeze)
    assert _ok("ffmpeg_freeze_max_run", {"max_seconds": 2.5}, freeze)
    assert _ok("ffmpeg_freeze_max_run", {"max_seconds": 1, "exclude_last_seconds": 2.5}, freeze)
    assert freeze.computed["blackfreeze"] == 1


def test_freeze_at_end_of_file_is_never_counted(freeze_eof_clip: Path) -> None:
    """Kept official quirk: a freeze that runs to EOF has no freeze_end and is ignored, however long."""
    facts = MediaFacts(freeze_eof_clip)
    res = run_kind("ffmpeg_freeze_max_run", {"max_seconds": 0.5}, facts)
    assert res.passed and "not counted" in res.evidence
    assert any(r.end is None and r.start == pytest.approx(2.0, abs=0.1) for r in facts.freeze_runs())


def test_brightness(main: MediaFacts) -> None:
    """Fixed upstream defect: YAVG is measured. 0.5 s is testsrc2 (bright), 2.5 s and 3.5 s are black."""
    times = {"times": [0.5, 2.5, 3.5], "min_brightness": 50}
    assert _ok("ffmpeg_brightness_at_times", {**times, "min_passing": 1}, main)
    assert not _ok("ffmpeg_brightness_at_times", {**times, "min_passing": 2}, main)
    assert not _ok("ffmpeg_brightness_at_times", times, main)  # default: all samples must pass
    assert main.luma_at(2.5) == pytest.approx(16, abs=1)  # limited-range black
    assert main.luma_at(60.0) is None  # past the end: no frame, no passing sample


def test_audio_loudness_min(main: MediaFacts, freeze: MediaFacts) -> None:
    """0.3-amplitude sine for 3.5 of 6 s: mean volume about -15.8 dB."""
    assert main.volume().mean_volume == pytest.approx(-15.8, abs=1.0)
    assert _ok("ffmpeg_audio_loudness_min", {"threshold_db": -25}, main)
    assert not _ok("ffmpeg_audio_loudness_min", {"threshold_db": -10}, main)
    assert not _ok("ffmpeg_audio_loudness_min", {"threshold_db": -100}, freeze)  # no audio: unparsed -> fail


def test_loudness_lufs_range(main: MediaFacts, freeze: MediaFacts) -> None:
    """Stereo 0.3 sine: about -11 LUFS (silence is gated out)."""
    lufs = float(main.loudnorm()["input_i"])
    assert lufs == pytest.approx(-11.1, abs=1.5)
    assert _ok("ffmpeg_loudness_lufs_range", {"min": -16, "max": -6}, main)
    assert not _ok("ffmpeg_loudness_lufs_range", {"min": -30, "max": -20}, main)
    assert not _ok("ffmpeg_loudness_lufs_range", {"min": -100}, freeze)


def test_decode_no_errors(main: MediaFacts, corrupt_clip: Path) -> None:
    assert _ok("ffmpeg_decode_no_errors", {}, main)
    res = run_kind("ffmpeg_decode_no_errors", {}, MediaFacts(corrupt_clip))
    assert not res.passed and not res.error and "decode error line" in res.evidence


def test_loudness_facts(main: MediaFacts, freeze: MediaFacts) -> None:
    facts = loudness_facts(main)
    assert facts["has_audio"] is True
    assert facts["integrated_lufs"] == pytest.approx(-11.1, abs=1.5)
    assert facts["mean_volume_db"] == pytest.approx(-15.8, abs=1.0)
    assert facts["longest_silence_s"] == pytest.approx(2.4, abs=0.2)
    assert loudness_facts(freeze) == {
        "has_audio": False,
        "integrated_lufs": None,
        "mean_volume_db": None,
        "max_volume_db": None,
        "longest_silence_s": None,
    }
