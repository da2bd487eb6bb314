"""Content kinds on generated clips: shot lengths, on-screen text, silence; plus the helpers they rest on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agenticvbench.media import run_ffmpeg
from agenticvbench.media.filters import parse_yavg
from agenticvbench.verifiers.recap import media_facts as mf
from agenticvbench.verifiers.recap.frame_pass import fps_filter_frames
from agenticvbench.verifiers.recap.kinds import MediaFacts, run_kind


def _ok(kind: str, params: dict, facts: MediaFacts) -> bool:
    res = run_kind(kind, params, facts)
    assert not res.error, res
    assert res.evidence
    return res.passed


@pytest.fixture(scope="module")
def cuts(cuts_clip: Path) -> MediaFacts:
    return MediaFacts(cuts_clip)


def test_scenedetect_shots(cuts: MediaFacts) -> None:
    """Cuts at 1 s and 3 s: shots of 1, 2 and 3 s; upper median 2 s, longest 3 s; detection runs once."""
    assert [(round(a, 3), round(b, 3)) for a, b in cuts.shots()] == [(0.0, 1.0), (1.0, 3.0), (3.0, 6.0)]
    assert _ok("scenedetect_median_shot_duration", {"min": 1.5, "max": 2.5}, cuts)
    assert not _ok("scenedetect_median_shot_duration", {"min": 2.5}, cuts)
    assert _ok("scenedetect_max_shot_duration", {"max_seconds": 3.5}, cuts)
    assert not _ok("scenedetect_max_shot_duration", {"max_seconds": 2.5}, cuts)
    assert cuts.computed["shots"] == 1


def test_no_cut_means_no_scenes(freeze_eof_clip: Path) -> None:
    """Official behaviour (scenedetect.detect without start_in_scene): a clip without cuts has no scenes -> fail."""
    facts = MediaFacts(freeze_eof_clip)
    for kind, params in [
        ("scenedetect_median_shot_duration", {}),
        ("scenedetect_max_shot_duration", {"max_seconds": 100}),
    ]:
        res = run_kind(kind, params, facts)
        assert not res.passed and res.evidence == "no scenes detected"


def test_shots_are_cached_on_disk(cuts_clip: Path, tmp_path: Path) -> None:
    first = MediaFacts(cuts_clip, cache_dir=tmp_path)
    shots = first.shots()
    second = MediaFacts(cuts_clip, cache_dir=tmp_path)
    assert second.shots() == shots and second.computed["shots"] == 0 and first.computed["shots"] == 1


def test_ocr_substring_match(text_clip: Path) -> None:
    """ "AGENTIC" then "RECAP 42" on screen; OCR runs once for all the items (two distinct frames read)."""
    facts = MediaFacts(text_clip)
    assert _ok("pytesseract_substring_match", {"substrings": ["agentic", "zebra"]}, facts)
    assert _ok("pytesseract_substring_match", {"substrings": ["Agentic", "recap 42"], "mode": "all"}, facts)
    assert not _ok("pytesseract_substring_match", {"substrings": ["agentic", "zebra"], "mode": "all"}, facts)
    assert not _ok(
        "pytesseract_substring_match", {"substrings": ["agentic"], "case_insensitive": False}, facts
    )
    # Whitespace runs compare as one space (RapidOCR splits lines into boxes where tesseract writes spaces).
    assert _ok(
        "pytesseract_substring_match", {"substrings": ["RECAP \n 42"], "case_insensitive": False}, facts
    )
    assert facts.computed["ocr"] == 1


def test_fps_selection_matches_ffmpeg(ramp_clip: Path) -> None:
    """Frames picked for OCR are the ones ffmpeg's fps filter outputs (ramp clip: luma of frame N is 3N)."""
    for fps in (1.0, 2.0, 0.5):
        proc = run_ffmpeg(
            [
                "-i",
                str(ramp_clip),
                "-vf",
                f"fps={fps},signalstats,metadata=mode=print:key=lavfi.signalstats.YAVG",
                "-f",
                "null",
                "-",
            ]
        )
        lines = [ln for ln in proc.stderr.decode().splitlines() if "YAVG=" in ln]
        # limited range: Y = 16 + 3N * 219/255
        want = sorted({round((parse_yavg(ln) - 16) * 255 / 219 / 3) for ln in lines})
        got = [f.index for f in fps_filter_frames(ramp_clip, fps)]
        assert got == want, fps


def test_silence_max_run(main_clip: Path, freeze_clip: Path) -> None:
    """main.mp4 is silent from 1.0 to 3.5 s: the longest run below -40 dB is about 2.4 s (RMS windows)."""
    facts = MediaFacts(main_clip)
    assert facts.longest_silence_s() == pytest.approx(2.4, abs=0.2)
    assert _ok("librosa_silence_max_run", {"max_seconds": 3}, facts)
    assert not _ok("librosa_silence_max_run", {"max_seconds": 2}, facts)
    # At -200 dB nothing is "silent" (the floor is 1e-9 = -180 dB).
    assert _ok("librosa_silence_max_run", {"max_seconds": 0, "threshold_db": -200}, facts)
    assert facts.computed["audio"] == 1
    assert not _ok("librosa_silence_max_run", {"max_seconds": 100}, MediaFacts(freeze_clip))


@pytest.mark.slow
def test_rms_frames_equals_librosa() -> None:
    """Our block-wise RMS must equal librosa.feature.rms (the official silence measurement)."""
    import librosa

    rng = np.random.default_rng(0)
    y = (rng.standard_normal(22050 * 2) * 0.1).astype(np.float32)
    y[10000:30000] *= 1e-4
    ref = librosa.feature.rms(y=y, frame_length=2048, hop_length=512)[0]
    np.testing.assert_allclose(mf.rms_frames(y), ref, rtol=1e-6)


def test_audio_is_mean_of_channels(main_clip: Path) -> None:
    """librosa.load(mono=True) averages channels; swresample's own downmix would be 3 dB louder."""
    from agenticvbench.media import decode_audio

    stereo = decode_audio(main_clip, sample_rate=22050, mono=False)
    np.testing.assert_allclose(MediaFacts(main_clip).audio(), stereo.mean(axis=0), atol=1e-7)
