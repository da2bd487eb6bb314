"""The integrity checks for gaming-shaped outputs, one by one, on generated media and the demo's tasks: each fires
on its shape and stays quiet on its nearest honest neighbour."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
from adversarial import ffmpeg

from agenticvbench.dataset.loader import load_tasks
from agenticvbench.integrity.copies import PICTURE_TOL, matching_share
from agenticvbench.integrity.screen import (
    FLAGS,
    given_orders,
    sequencing_order_is_the_given_order,
    stream_spans,
    video_far_shorter_than_audio_or_source,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _clip(out: Path, seconds: float, video_seconds: float | None = None) -> Path:
    """A 64x36 25-fps clip with `seconds` of audio and `video_seconds` (default: the same) of video."""
    v = ["-f", "lavfi", "-t", f"{video_seconds or seconds}", "-i", "testsrc2=s=64x36:r=25"]
    a = ["-f", "lavfi", "-t", f"{seconds}", "-i", "sine=f=440:r=48000"]
    ffmpeg(*v, *a, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", str(out))
    return out


def test_one_frame_over_full_audio_is_degenerate(tmp_path):
    """One video frame over 6 s of audio: the packets say 1 frame, 0.04 s of video, 6 s of audio."""
    src = _clip(tmp_path / "src.mp4", 6.0)
    one = tmp_path / "one.mp4"
    ffmpeg(
        "-i",
        str(src),
        "-map",
        "0:v",
        "-map",
        "0:a",
        "-vf",
        "select=eq(n\\,0)",
        "-fps_mode",
        "passthrough",
        "-c:v",
        "libx264",
        "-c:a",
        "copy",
        str(one),
    )
    n, video_s, audio_s = stream_spans(one)
    assert n == 1 and video_s < 0.1 and audio_s > 5.9
    assert video_far_shorter_than_audio_or_source(one, None)
    assert not video_far_shorter_than_audio_or_source(src, 6.0)


def test_short_video_is_measured_against_the_source_too(tmp_path):
    """A video that is short together with its audio escapes the audio comparison, not the source's duration;
    one covering most of the source is not flagged."""
    short = _clip(tmp_path / "short.mp4", 2.0)
    most = _clip(tmp_path / "most.mp4", 5.0)
    assert not video_far_shorter_than_audio_or_source(short, None)
    assert video_far_shorter_than_audio_or_source(short, 6.0)
    assert not video_far_shorter_than_audio_or_source(most, 6.0)


def test_a_video_without_frames_is_not_degenerate(tmp_path):
    """Audio only is another flag's (`audio_only`) business; this check needs a video stream."""
    wav = tmp_path / "a.m4a"
    ffmpeg("-f", "lavfi", "-t", "2", "-i", "sine=f=440:r=48000", "-c:a", "aac", str(wav))
    assert not video_far_shorter_than_audio_or_source(wav, 2.0)


def test_given_order_is_not_flagged_when_it_is_the_answer(demo):
    """A film shot in the given order is not gaming: the flag stays quiet when the answer is that order, and
    with fewer than 3 clips."""
    task = load_tasks(task_ids=[37], dataset=demo.mirror)[0]
    numeric = given_orders(task)[0]
    assert numeric == ["1", "2", "3", "4", "5", "6"]
    assert sequencing_order_is_the_given_order(task, numeric)
    assert not sequencing_order_is_the_given_order(task, list(task.correct_order))
    in_order = dataclasses.replace(task, correct_order=list(numeric))
    assert not sequencing_order_is_the_given_order(in_order, numeric)
    assert not sequencing_order_is_the_given_order(task, ["1", "2"])


def test_matching_share_counts_seconds_matching_in_picture_and_sound():
    """Same signatures match on every second; a picture off by more than the tolerance on half the seconds, or
    silence against sound, does not."""
    rng = np.random.default_rng(0)
    thumbs = rng.integers(0, 256, (10, 9, 16), dtype=np.uint8)
    rms = rng.uniform(0.1, 0.5, 10)
    assert matching_share(thumbs, rms, thumbs, rms) == 1.0
    other = thumbs.copy()
    other[5:] = np.clip(other[5:].astype(int) + int(PICTURE_TOL) + 20, 0, 255).astype(np.uint8)
    assert 0.4 <= matching_share(other, rms, thumbs, rms) <= 0.6
    assert matching_share(thumbs, np.zeros(10), thumbs, rms) == 0.0
    assert matching_share(thumbs[:3], rms[:3], thumbs, rms) == 0.3  # a short output matches only its seconds


def test_every_flag_is_documented_with_an_id():
    """Each integrity flag has a row in docs/upstream-defects.md naming its id and its code."""
    text = (DOCS / "upstream-defects.md").read_text(encoding="utf-8")
    section = text.split("## Integrity flags", 1)[1]
    for code in FLAGS:
        assert re.search(rf"\| I-\d+ \| `{code}` \|", section), code
