"""The frame reader: unconverted frames (`iter_decoded`) and converted ones (`iter_frames`) agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agenticvbench.media import iter_frames, run_ffmpeg
from agenticvbench.media.video import iter_decoded


def test_decoded_frames_convert_to_the_iter_frames_pixels(tmp_path: Path) -> None:
    """A caller that converts only some frames later (the OCR frame-rate sampling) must get exactly the pixels
    `iter_frames` gives for those frames, with the same indices and times, even after decoding moved on."""
    clip = tmp_path / "c.mp4"
    run_ffmpeg(
        [
            "-y",
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=96x64:r=10:d=2",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
            str(clip),
        ],
        check=True,
    )
    decoded = list(iter_decoded(clip))  # every frame held, converted only afterwards
    frames = list(iter_frames(clip))
    assert [d.index for d in decoded] == [f.index for f in frames] == list(range(20))
    assert [d.time for d in decoded] == [f.time for f in frames]
    for d, f in zip(decoded, frames, strict=True):
        assert np.array_equal(d.image("bgr24"), f.image)
    assert [f.index for f in iter_frames(clip, wanted=lambda i: i % 7 == 0, last=15)] == [0, 7, 14]
