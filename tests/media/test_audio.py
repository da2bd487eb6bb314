"""decode_audio: mono and stereo layouts, trimming."""

from __future__ import annotations

import numpy as np

from agenticvbench.media import decode_audio, run_ffmpeg


def test_stereo_rows_are_channels_not_halves(tmp_path):
    """Regression: packed float output reshaped to (channels, n) split the signal in halves, not channels.

    Left is a 440 Hz sine, right is silence; each row must be one channel over the whole duration."""
    out = tmp_path / "lr.wav"
    run_ffmpeg(
        [
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:sample_rate=48000:duration=1",
            "-f",
            "lavfi",
            "-i",
            "anullsrc=r=48000:cl=mono",
            "-filter_complex",
            "[0:a][1:a]amerge=inputs=2,atrim=0:1[a]",
            "-map",
            "[a]",
            "-c:a",
            "pcm_s16le",
            str(out),
        ],
        check=True,
    )
    st = decode_audio(out, sample_rate=48000, mono=False)
    assert st.shape[0] == 2 and abs(st.shape[1] - 48000) < 50
    left, right = st
    assert np.abs(left[: st.shape[1] // 2]).max() > 0.05 and np.abs(left[st.shape[1] // 2 :]).max() > 0.05
    assert np.abs(right).max() < 1e-4


def test_mono_trim(tmp_path):
    out = tmp_path / "s.wav"
    run_ffmpeg(
        [
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:sample_rate=48000:duration=2",
            "-c:a",
            "pcm_s16le",
            str(out),
        ],
        check=True,
    )
    a = decode_audio(out, sample_rate=16000, start_s=0.5, duration_s=1.0)
    assert a.ndim == 1 and a.shape[0] == 16000
