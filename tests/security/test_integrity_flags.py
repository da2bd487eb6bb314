"""Known official scoring holes keep the official number but are flagged in `integrity` with a loud warning."""

from __future__ import annotations

import json

import pytest
from adversarial import audio_only, by_id, ffmpeg, one_frame, rotated

from agenticvbench.dataset.loader import load_tasks
from agenticvbench.demo.repair import source_path
from agenticvbench.media import probe


def test_audio_only_fixed_video_is_flagged(hostile_run, score_run, demo, tmp_path):
    """An audio-only fixed.mp4 is flagged. Its edit is 0, as in the official scorer (OpenCV cannot open it, so
    every chunk fails): only format and localisation can score."""
    run = hostile_run()
    run.copy(65, "fixed.mp4", audio_only(source_path(demo.mirror, 65), tmp_path / "a.m4a.mp4"))
    s = score_run(run.root, [65])
    r = by_id(s)[65]
    assert r.status == "scored" and r.headline_score <= 0.4 and r.components["edit"] == 0.0
    assert r.integrity == ["audio_only"]
    assert any(w.startswith("INTEGRITY audio_only") for w in r.warnings)
    assert any("INTEGRITY audio_only" in n for n in s.notes)
    assert json.loads((run.results() / "65.json").read_text())["integrity"] == ["audio_only"]


@pytest.mark.slow
def test_rotated_fixed_video_is_flagged(hostile_run, score_run, demo, tmp_path):
    """A display rotation matrix is ignored by frame comparisons but not by players: flagged, score kept. (The
    perfect run's output is rotated: the source itself with a matrix holds the source's packets, `malformed`.)"""
    run = hostile_run()
    plain = by_id(score_run(run.root, [66]))[66]
    run.copy(66, "fixed.mp4", rotated(run.folder(66) / "fixed.mp4", tmp_path / "rot.mp4"))
    r = by_id(score_run(run.root, [66]))[66]
    assert r.status == "scored" and r.integrity == ["rotation"]
    assert abs(r.headline_score - plain.headline_score) < 1e-9
    assert plain.integrity == []


@pytest.mark.slow
def test_fixed_video_identical_to_the_broken_input_is_flagged(hostile_run, score_run):
    """Handing back the agent's own broken input earns partial official credit; the result says what happened."""
    run = hostile_run("partial")  # the partial run copies broken.mp4 to fixed.mp4
    r = by_id(score_run(run.root, [67]))[67]
    assert r.status == "scored" and r.integrity == ["identical_to_input"]
    assert any("INTEGRITY identical_to_input" in w for w in r.warnings)


@pytest.mark.slow
def test_single_frame_with_full_audio_is_flagged_degenerate(
    hostile_run, score_run, demo, tmp_path, monkeypatch
):
    """A repair fixed.mp4 of one video frame and the source's whole audio scored about 0.93 with nothing said.
    The official edit rubric (PhiloLabs/AgentVBench f058cd6, run on this very file) scores it the same way: one
    sample in chunk 0 (SSIM 0.98202 there and here), the chunks past the frame have no samples and deduct
    nothing. So the number is kept and the result is flagged `degenerate_video`."""
    run = hostile_run()
    fixed = one_frame(source_path(demo.mirror, 65), tmp_path / "one.mp4")
    assert probe(fixed).video.nb_frames == 1 and probe(fixed).audio.duration > 10
    run.copy(65, "fixed.mp4", fixed)
    s = score_run(run.root, [65])
    r = by_id(s)[65]
    assert r.status == "scored" and r.integrity == ["degenerate_video"]
    assert r.components["edit"] > 0.9, "the official rubric keeps nearly the whole video budget"
    assert any(w.startswith("INTEGRITY degenerate_video: fixed.mp4") for w in r.warnings), r.warnings
    monkeypatch.setattr("agenticvbench.integrity.screen.sparse_frames", lambda *a: "")  # the flag off
    plain = by_id(score_run(run.root, [65], force=True))[65]
    assert plain.integrity == [] and plain.headline_score == r.headline_score


@pytest.mark.slow
def test_honest_outputs_carry_no_flags(hostile_run, score_run):
    """Flags must not fire on ordinary outputs of any family."""
    res = by_id(score_run(hostile_run().root, [1, 37, 65, 83]))
    assert all(r.integrity == [] for r in res.values())


def test_one_frame_lasting_the_whole_audio_is_flagged(hostile_run, score_run, demo, tmp_path, monkeypatch):
    """One frame whose single packet lasts 14 s, over the source's whole audio, scored 0.9836 with no flag: the
    old check measured the packet span (14 s, as long as the audio). Counting frames flags it; the number is
    the same with the flag off."""
    source = source_path(demo.mirror, 65)
    fixed = tmp_path / "long.mp4"
    ffmpeg(
        "-i", str(source), "-map", "0:v", "-map", "0:a", "-vf", "trim=end_frame=1", "-r", "1/14",
        "-c:v", "libx264", "-c:a", "copy", str(fixed),
    )  # fmt: skip
    run = hostile_run()
    run.copy(65, "fixed.mp4", fixed)
    r = by_id(score_run(run.root, [65]))[65]
    assert r.status == "scored" and r.integrity == ["degenerate_video"], (r.status, r.integrity, r.reason)
    assert any("INTEGRITY degenerate_video: fixed.mp4" in w and "1 frame(s) over 14" in w for w in r.warnings)
    monkeypatch.setattr("agenticvbench.integrity.screen.sparse_frames", lambda *a: "")
    plain = by_id(score_run(run.root, [65], force=True))[65]
    assert plain.integrity == [] and plain.headline_score == r.headline_score


@pytest.mark.slow
def test_film_behind_black_is_a_near_copy(demo, score_run, tmp_path):
    """The recap film behind 2 s of black and silence matched none of the film's seconds at the same second,
    so `near_copy_of_input` missed it. Aligned before comparing, it is flagged."""
    film = load_tasks(task_ids=[2], dataset=demo.mirror)[0].materials()[0]
    v = probe(film).video
    run = tmp_path / "run"
    (run / "2").mkdir(parents=True)
    ffmpeg(
        "-f", "lavfi", "-i", f"color=black:s={v.width}x{v.height}:r={v.fps}:d=2",
        "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo:d=2", "-i", str(film),
        "-filter_complex", "[0:v][1:a][2:v][2:a]concat=n=2:v=1:a=1[v][a]", "-map", "[v]", "-map", "[a]",
        "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", str(run / "2" / "final.mp4"),
    )  # fmt: skip
    r = by_id(score_run(run, [2]))[2]
    assert "near_copy_of_input" in r.integrity, (r.status, r.integrity, r.reason)
