"""The edit rubric's audio pass returns a typed `AudioPass` whose PCM lengths agree with an independent count
(a plain PyAV decode of the whole audio stream) on tiny generated clips."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import av
import pytest

from agenticvbench.media import run_ffmpeg
from agenticvbench.verifiers.repair.edit import plan_chunks
from agenticvbench.verifiers.repair.edit_audio import AUDIO_SR, AudioPass, ChunkAudio, audio_pass
from agenticvbench.verifiers.repair.source_cache import SourceCache


def _clip(out: Path, audio_s: float | None) -> Path:
    """A 3-s 64x36 10-fps clip with `audio_s` seconds of a 440-Hz AAC sine (no audio stream when None)."""
    audio = (
        [] if audio_s is None else ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:d={audio_s}"]
    )
    codec = [] if audio_s is None else ["-c:a", "aac"]
    run_ffmpeg(
        [
            "-y",
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=64x36:r=10:d=3",
            *audio,
            "-c:v",
            "libx264",
            "-g",
            "10",
            "-pix_fmt",
            "yuv420p",
            *codec,
            str(out),
        ],
        check=True,
    )
    return out


def _decoded_samples(path: Path) -> int:
    """Samples of the first audio stream in one plain decode (the last AAC packet decoded in full)."""
    with av.open(str(path)) as container:
        return sum(frame.samples for frame in container.decode(audio=0))


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """source: 3 s of audio; short: the same sine for 2 s only; mute: no audio stream."""
    d = tmp_path_factory.mktemp("edit-audio")
    return {
        "source": _clip(d / "source.mp4", 3),
        "short": _clip(d / "short.mp4", 2),
        "mute": _clip(d / "mute.mp4", None),
    }


def test_audio_pass_returns_typed_values_matching_an_independent_extraction(clips: dict[str, Path]) -> None:
    """`audio_pass` returns an immutable `AudioPass` (it fills no dict of the caller's): one `ChunkAudio` per
    chunk; the fixed and source PCM lengths equal a plain decode's sample count capped at the 3-s chunk (the
    2-s fixed sine keeps its AAC end padding: 94 x 1024 samples); the window split in seconds; and the
    identical in-window sine scores ~1."""
    source, fixed = clips["source"], clips["short"]
    plans = plan_chunks(3.0, 10.0, 10.0)
    res = audio_pass(fixed, source, plans, (1.0, 2.0), SourceCache(None, source))
    assert isinstance(res, AudioPass) and len(res.chunks) == len(plans) == 1 and not res.all_failed
    chunk = res.chunks[0]
    assert isinstance(chunk, ChunkAudio)
    expected = tuple(min(3 * AUDIO_SR, _decoded_samples(p)) / AUDIO_SR for p in (fixed, source))
    assert res.len_s == expected and expected[0] < expected[1]  # the fixed audio really is shorter
    assert res.mode in ("seek", "per-chunk") and res.elapsed_s > 0
    assert (chunk.dur_in, chunk.dur_out) == (1.0, 2.0)
    assert chunk.xcorr_in == pytest.approx(1.0, abs=1e-5) and chunk.peak_lag_ms_in == 0.0
    assert list(chunk.detail()) == [
        "audio_xcorr_in",
        "audio_xcorr_out",
        "audio_peak_norm_in",
        "audio_peak_norm_out",
        "audio_peak_lag_ms_in",
        "audio_peak_lag_ms_out",
        "audio_dur_in",
        "audio_dur_out",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.mode = "x"  # type: ignore[misc]


def test_audio_pass_without_fixed_audio_fails_every_chunk(clips: dict[str, Path]) -> None:
    """D-R8: a fixed file without an audio stream gives the official error string for every chunk, and neither
    an extraction mode nor PCM lengths."""
    source = clips["source"]
    plans = plan_chunks(25.0, 10.0, 10.0)  # three chunk spans; the audio pass needs only their times
    res = audio_pass(clips["mute"], source, plans, None, SourceCache(None, source))
    assert res.all_failed and len(res.chunks) == 3
    assert all(isinstance(c, str) and c.startswith("chunk failed: RuntimeError: ") for c in res.chunks)
    assert res.mode is None and res.len_s is None
