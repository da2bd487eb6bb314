"""Container kinds: each passes and fails on generated clips whose properties are known by construction."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenticvbench.verifiers.recap import media_facts as mf
from agenticvbench.verifiers.recap.kinds import KINDS, MediaFacts, UnknownKindError, run_kind


@pytest.fixture(scope="module")
def main(main_clip: Path) -> MediaFacts:
    return MediaFacts(main_clip)


@pytest.fixture(scope="module")
def mkv(two_audio_clip: Path) -> MediaFacts:
    return MediaFacts(two_audio_clip)


@pytest.fixture(scope="module")
def silent(freeze_clip: Path) -> MediaFacts:
    return MediaFacts(freeze_clip)


def test_twenty_kinds_registered() -> None:
    assert len(KINDS) == 20


@pytest.mark.parametrize(
    ("kind", "good", "bad"),
    [
        ("ffprobe_duration_range", {"min": 5.5, "max": 6.5}, {"min": 10, "max": 20}),
        ("ffprobe_resolution_eq", {"width": 160, "height": 120}, {"width": 1920, "height": 1080}),
        ("ffprobe_resolution_in", {"options": [[320, 240], [160, 120]]}, {"options": [[1280, 720]]}),
        ("ffprobe_video_codec_in", {"codecs": ["H264"]}, {"codecs": ["hevc", "vp9"]}),
        ("ffprobe_audio_codec_in", {"codecs": ["aac"]}, {"codecs": ["opus"]}),
        ("ffprobe_format_in", {"substrings": ["MP4"]}, {"substrings": ["matroska", "webm"]}),
        ("ffprobe_fps_range", {"min": 23.5, "max": 24.5}, {"min": 29, "max": 31}),
        ("ffprobe_audio_streams", {"eq": 1}, {"min": 2}),
        ("ffprobe_audio_channels_eq", {"channels": 2}, {"channels": 1}),
        ("ffprobe_bitrate_min", {"min_bps": 10_000}, {"min_bps": 1e9}),
    ],
)
def test_probe_kind_pass_and_fail(main: MediaFacts, kind: str, good: dict, bad: dict) -> None:
    ok, ko = run_kind(kind, good, main), run_kind(kind, bad, main)
    assert ok.passed and not ok.error, ok
    assert not ko.passed and not ko.error, ko
    assert ok.evidence and ko.evidence


def test_two_audio_streams_mkv(mkv: MediaFacts) -> None:
    """Audio kinds read the *first* audio stream (mono opus), like the official kinds."""
    assert run_kind("ffprobe_audio_streams", {"eq": 2}, mkv).passed
    assert run_kind("ffprobe_audio_streams", {"min": 2, "max": 3}, mkv).passed
    assert run_kind("ffprobe_audio_codec_in", {"codecs": ["opus"]}, mkv).passed
    assert not run_kind("ffprobe_audio_codec_in", {"codecs": ["mp3"]}, mkv).passed
    assert run_kind("ffprobe_audio_channels_eq", {"channels": 1}, mkv).passed
    assert run_kind("ffprobe_format_in", {"substrings": ["matroska"]}, mkv).passed


def test_no_audio_fails_audio_kinds(silent: MediaFacts) -> None:
    assert run_kind("ffprobe_audio_streams", {"eq": 0}, silent).passed
    for kind, params in [
        ("ffprobe_audio_codec_in", {"codecs": ["aac"]}),
        ("ffprobe_audio_channels_eq", {"channels": 2}),
    ]:
        res = run_kind(kind, params, silent)
        assert not res.passed and res.evidence == "no audio stream" and not res.error


def test_none_params_are_stripped(main: MediaFacts) -> None:
    """The HF union schema fills absent keys with None; they must fall back to the kind's defaults."""
    res = run_kind("ffprobe_fps_range", {"min": 20, "max": None, "eq": None}, main)
    assert res.passed and "1000000000" in res.evidence


def test_missing_param_is_an_error_result(main: MediaFacts) -> None:
    res = run_kind("ffprobe_duration_range", {"min": 1}, main)
    assert not res.passed and res.error == "error in ffprobe_duration_range: missing parameter 'max'"


def test_exception_inside_kind_becomes_error(tmp_path: Path) -> None:
    res = run_kind("ffprobe_duration_range", {"min": 0, "max": 9}, MediaFacts(tmp_path / "absent.mp4"))
    assert (
        not res.passed
        and res.error.startswith("error in ffprobe_duration_range:")
        and "not found" in res.error
    )


def test_unknown_kind_raises(main: MediaFacts) -> None:
    """D-C4: an unknown kind is a malformed rubric (the runner maps the exception), not a quiet failure."""
    with pytest.raises(UnknownKindError):
        run_kind("ffprobe_nonsense", {}, main)


def test_probe_runs_once_for_many_items(main_clip: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Path] = []
    real = mf.probe

    def counting(path):
        calls.append(path)
        return real(path)

    monkeypatch.setattr(mf, "probe", counting)
    facts = MediaFacts(main_clip)
    items = [
        ("ffprobe_duration_range", {"min": 0, "max": 10}),
        ("ffprobe_resolution_eq", {"width": 160, "height": 120}),
        ("ffprobe_video_codec_in", {"codecs": ["h264"]}),
        ("ffprobe_audio_codec_in", {"codecs": ["aac"]}),
        ("ffprobe_format_in", {"substrings": ["mp4"]}),
        ("ffprobe_fps_range", {"min": 1}),
        ("ffprobe_audio_streams", {"eq": 1}),
        ("ffprobe_audio_channels_eq", {"channels": 2}),
        ("ffprobe_bitrate_min", {"min_bps": 1}),
        ("ffprobe_resolution_in", {"options": [[160, 120]]}),
        ("ffmpeg_blackdetect_max_run", {"max_seconds": 4}),
        ("ffmpeg_blackdetect_max_run", {"max_seconds": 1, "exclude_last_seconds": 5}),
    ] * 3
    results = [run_kind(k, p, facts) for k, p in items]
    assert all(r.passed for r in results), [r for r in results if not r.passed]
    assert len(calls) == 1
    assert facts.computed["probe"] == 1 and facts.computed["blackfreeze"] == 1
