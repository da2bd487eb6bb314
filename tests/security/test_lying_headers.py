"""Declared sizes that lie: what a file's headers declare is checked against what it holds before anything is
decoded, and a header that lies is a clean `malformed` with the reason."""

from __future__ import annotations

import pytest
from adversarial import by_id, ffmpeg, lying_sample_table, scale_durations

from agenticvbench.media import probe


def test_sample_table_declaring_30m_samples_is_refused_before_opening(hostile_run, score_run, tmp_path):
    """Regression: a 1.5 kB fixed.mp4 whose sample table declares 30 M samples passed every limit and drove one
    repair task to 2.3-2.4 GB (libavformat indexes every declared sample on each open)."""
    run = hostile_run()
    fixed = run.folder(65) / "fixed.mp4"
    lying_sample_table(fixed, fixed)
    r = by_id(score_run(run.root, [65]))[65]
    assert (
        r.status == "malformed"
        and "declares 30000000 samples of 1 bytes" in r.reason
        and "not decoded" in r.reason
    )


def test_halved_header_durations_do_not_pass_a_length_check(hostile_run, score_run):
    """Regression: a recap whose header durations (and edit list) were halved passed the recap length check; the
    packets still span the real length, so the header is caught lying."""
    run = hostile_run()
    final = next(run.root.glob("1/**/final.mp4"))
    real = probe(final).duration
    scale_durations(final, final, 0.5)
    assert probe(final).duration < real * 0.6
    r = by_id(score_run(run.root, [1]))[1]
    assert r.status == "malformed" and "header declares" in r.reason and "packets span" in r.reason


@pytest.mark.slow
def test_hours_of_frames_behind_a_short_header_are_not_scored(hostile_run, score_run, tmp_path):
    """Regression: 5 h of frames behind a 10-s header was scored (decoded in full); the packet scan sees 18000 s
    without decoding a frame."""
    run = hostile_run()
    long = tmp_path / "long.mp4"
    ffmpeg(
        "-f", "lavfi", "-i", "color=s=16x16:r=1:d=18000", "-c:v", "libx264", "-preset", "ultrafast", str(long)
    )
    fixed = run.folder(65) / "fixed.mp4"
    scale_durations(long, fixed, 10 / float(probe(long).duration or 1))
    assert round(probe(fixed).duration or 0) == 10
    r = by_id(score_run(run.root, [65]))[65]
    assert r.status == "malformed" and "packets span 18000 s" in r.reason
