"""The integrity checks for gaming-shaped outputs, one by one, on generated media and the demo's tasks: each fires
on its shape and stays quiet on its nearest honest neighbour."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
from adversarial import ffmpeg

from agenticvbench.dataset.loader import load_tasks
from agenticvbench.integrity.copies import aligned_shares, picture_signature, shares_at
from agenticvbench.integrity.frames import sparse_frames
from agenticvbench.integrity.identity import MediaContent, read_content
from agenticvbench.integrity.screen import FLAGS, given_orders, sequencing_order_is_the_given_order
from agenticvbench.media import probe
from agenticvbench.media.probe import parse_rate

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _clip(out: Path, seconds: float, video_seconds: float | None = None) -> Path:
    """A 64x36 25-fps clip with `seconds` of audio and `video_seconds` (default: the same) of video."""
    v = ["-f", "lavfi", "-t", f"{video_seconds or seconds}", "-i", "testsrc2=s=64x36:r=25"]
    a = ["-f", "lavfi", "-t", f"{seconds}", "-i", "sine=f=440:r=48000"]
    ffmpeg(*v, *a, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", str(out))
    return out


def _content(path: Path) -> MediaContent:
    return read_content(path, 10**6)


def _sparse(src: Path, out: Path, vf: str, *extra: str) -> Path:
    """`src`'s video through `vf` (frames dropped, timestamps kept), its audio copied."""
    ffmpeg(
        "-i",
        str(src),
        "-map",
        "0:v",
        "-map",
        "0:a",
        "-vf",
        vf,
        *extra,
        "-c:v",
        "libx264",
        "-c:a",
        "copy",
        str(out),
    )
    return out


def test_sparse_videos_are_degenerate_whatever_their_spans(tmp_path):
    """The old check measured the span of the video packets, which the submitter writes: one frame whose single
    packet lasts the whole 6 s, or the first and last frame alone, spanned the audio and passed. Frames are
    counted now: under one per second of the audio or the source, or a gap of more than 3 s, is degenerate.
    Each case names what it shows; the honest clip and one slightly shorter than the source are not."""
    src = _clip(tmp_path / "src.mp4", 6.0)
    long_frame = _sparse(src, tmp_path / "long.mp4", "trim=end_frame=1", "-r", "1/6")
    ends = _sparse(src, tmp_path / "ends.mp4", "select=eq(n\\,0)+eq(n\\,149)", "-fps_mode", "passthrough")
    every_2s = _sparse(src, tmp_path / "vfr.mp4", "select=not(mod(n\\,50))", "-fps_mode", "passthrough")
    burst = _sparse(src, tmp_path / "burst.mp4", "select=lt(n\\,25)+eq(n\\,149)", "-fps_mode", "passthrough")
    lie = tmp_path / "lie.mkv"
    ffmpeg("-i", str(every_2s), "-c", "copy", str(lie))  # its header declares a frame rate over 24
    long = _content(long_frame)
    assert len(long.frame_times) == 1 and long.first("video").span > 5.9, "one packet over the whole audio"
    assert sparse_frames(long, None) == " (1 frame(s) over 6.0 s)"
    assert _content(ends).first("video").span > 5.9
    assert sparse_frames(_content(ends), None) == " (2 frame(s) over 6.0 s)"
    assert "frame(s) over" in sparse_frames(_content(every_2s), 6.0)
    assert (parse_rate(probe(lie).video.r_frame_rate) or 0) >= 24 and sparse_frames(_content(lie), None)
    assert "no new frame for 5.0 s from 1.0 s" in sparse_frames(_content(burst), None)
    assert sparse_frames(_content(src), 6.0) == ""
    assert sparse_frames(_content(_clip(tmp_path / "most.mp4", 5.0)), 6.0) == ""
    assert sparse_frames(_content(_clip(tmp_path / "short.mp4", 2.0)), 6.0), (
        "a short video against the source"
    )


def test_a_video_without_frames_is_not_degenerate(tmp_path):
    """Audio only is another flag's (`audio_only`) business; this check needs a video stream."""
    wav = tmp_path / "a.m4a"
    ffmpeg("-f", "lavfi", "-t", "2", "-i", "sine=f=440:r=48000", "-c:a", "aac", str(wav))
    assert sparse_frames(_content(wav), 2.0) == ""


def matching_share(out_t: np.ndarray, out_r: np.ndarray, film_t: np.ndarray, film_r: np.ndarray) -> float:
    """Share of the film's seconds that the output matches at the same second (`shares_at`, no alignment)."""
    out_pic, film_pic = (picture_signature(t) if len(t) else None for t in (out_t, film_t))
    return shares_at(out_pic, out_r, film_pic, film_r, np.arange(max(len(film_t), len(film_r))))[0]


def test_a_shifted_or_trimmed_film_aligns_with_itself():
    """`near_copy_of_input` compared second k of the output with second k of the film, so the film behind 2 s
    of black matched nothing. Aligned (quarter-second output samples, lags from the loudness correlation) the
    padded, the trimmed and a 2.25-s shifted film all match; another film does not."""
    rng = np.random.default_rng(3)
    per = 4
    film_t = rng.integers(0, 256, (30, 9, 16), dtype=np.uint8)
    film_r = rng.uniform(0.05, 1.0, 30)
    fine_t, fine_r = np.repeat(film_t, per, axis=0), np.repeat(film_r, per)  # 4 samples a second, as sampled
    for pad in (8, 9):  # 2 s and 2.25 s of black and silence first
        out_t = np.concatenate([np.zeros((pad, 9, 16), np.uint8), fine_t])
        out_r = np.concatenate([np.zeros(pad), fine_r])
        assert matching_share(out_t[::per], out_r[::per], film_t, film_r) < 0.2
        assert aligned_shares(out_t, out_r, film_t, film_r, per)[0] >= 0.95
    trimmed_t, trimmed_r = fine_t[2 * per :], fine_r[2 * per :]
    assert aligned_shares(trimmed_t, trimmed_r, film_t, film_r, per)[0] >= 0.9
    other_t, other_r = rng.integers(0, 256, fine_t.shape, dtype=np.uint8), rng.uniform(0.05, 1.0, len(fine_r))
    assert aligned_shares(other_t, other_r, film_t, film_r, per)[0] < 0.2


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
    """Same signatures match on every second; another picture on half the seconds (a brightness shift alone is
    a grade, which matches), or silence against sound, does not."""
    rng = np.random.default_rng(0)
    thumbs = rng.integers(0, 256, (10, 9, 16), dtype=np.uint8)
    rms = rng.uniform(0.1, 0.5, 10)
    assert matching_share(thumbs, rms, thumbs, rms) == 1.0
    other = thumbs.copy()
    other[5:] = rng.integers(0, 256, (5, 9, 16), dtype=np.uint8)
    assert 0.4 <= matching_share(other, rms, thumbs, rms) <= 0.6
    graded = np.clip(thumbs.astype(int) // 2 + 40, 0, 255).astype(np.uint8)
    assert matching_share(graded, rms, thumbs, rms) == 1.0
    assert matching_share(thumbs, np.zeros(10), thumbs, rms) == 0.0
    assert matching_share(thumbs[:3], rms[:3], thumbs, rms) == 0.3  # a short output matches only its seconds


def test_every_flag_is_documented_with_an_id():
    """Each integrity flag has a row in docs/upstream-defects.md naming its id and its code."""
    text = (DOCS / "upstream-defects.md").read_text(encoding="utf-8")
    section = text.split("## Integrity flags", 1)[1]
    for code in FLAGS:
        assert re.search(rf"\| I-\d+ \| `{code}` \|", section), code
