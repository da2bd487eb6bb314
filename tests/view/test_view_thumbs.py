"""Thumbnails: the frame at the asked time (checked against the frame's known content), made once and found
again by content hash, under another path or by another process's thumbnailer."""

from __future__ import annotations

import shutil
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from agenticvbench.view.thumbs import Thumbnailer, video_duration

FPS, N = 10, 30


def grey_video(path: Path, width: int = 320, height: int = 180) -> Path:
    """A video whose frame k is uniformly grey at level 8*k (so a thumbnail tells which frame it shows)."""
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.options = {"crf": "10"}
        for k in range(N):
            img = np.full((height, width, 3), 8 * k, dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


@pytest.mark.parametrize("t", [0.0, 0.5, 1.5, 2.9])
def test_thumbnail_shows_the_frame_at_that_time(tmp_path: Path, t: float) -> None:
    """The thumbnail at t is frame round(t * fps): its grey level is 8 * that index (JPEG within 4 levels)."""
    video = grey_video(tmp_path / "v.mp4")
    thumbs = Thumbnailer(tmp_path / "cache", progress=False)
    (name,) = thumbs.frames(video, [t])
    assert name is not None
    img = cv2.imread(str(thumbs.path_of(name)), cv2.IMREAD_GRAYSCALE)
    assert img.shape == (90, 160)
    assert abs(float(img.mean()) - 8 * round(t * FPS)) <= 4


def test_made_once_and_found_by_content_hash(tmp_path: Path) -> None:
    """A second thumbnailer on the same cache makes nothing; the same bytes under another name reuse the same
    thumbnails; a file that is not a video gives None, not an exception."""
    video = grey_video(tmp_path / "v.mp4")
    first = Thumbnailer(tmp_path / "cache", progress=False)
    names = first.frames(video, [0.2, 1.0, 2.0])
    assert first.made == 3 and all(names)
    copy = tmp_path / "elsewhere" / "renamed.mp4"
    copy.parent.mkdir()
    shutil.copyfile(video, copy)
    again = Thumbnailer(tmp_path / "cache", progress=False)
    assert again.frames(copy, [0.2, 1.0, 2.0]) == names and again.made == 0
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video" * 100)
    assert again.frames(junk, [0.5]) == [None]
    assert again.path_of("../../etc/passwd") is None and again.path_of("x.jpg") is None
    assert video_duration(video) == pytest.approx(N / FPS, abs=0.15) and video_duration(junk) is None
