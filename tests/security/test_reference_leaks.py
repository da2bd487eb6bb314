"""Boundary leaks across tasks: a copy of any task's verifier-only reference is flagged, the official number kept."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from adversarial import appended, by_id, prepended, reencoded, remuxed, with_extra_stream

from agenticvbench.dataset.loader import load_tasks
from agenticvbench.demo.repair import source_path
from agenticvbench.integrity.leaks import dataset_references, leaked_references


@pytest.mark.slow
def test_copy_of_another_tasks_reference_is_flagged_not_rescored(hostile_run, score_run, demo, monkeypatch):
    """Task 65's fixed.mp4 replaced by task 66's verifier-only source: only the own-reference check existed, so
    this passed silently. It is evidence the agent saw verifier-only material: flagged `verifier_reference`
    (warning naming the reference and its tasks, a summary note, the report's integrity mark) while the number
    stays the one the official scorer gives, exactly as without the check."""
    run = hostile_run()
    other = source_path(demo.mirror, 66)
    assert other != source_path(demo.mirror, 65)
    run.copy(65, "fixed.mp4", other)
    s = score_run(run.root, [65])
    r = by_id(s)[65]
    assert r.status == "scored" and r.integrity == ["verifier_reference"]
    assert any(
        w.startswith("INTEGRITY verifier_reference: fixed.mp4") and f"{other.name} of task 66, 67" in w
        for w in r.warnings
    ), r.warnings
    assert any("INTEGRITY verifier_reference" in n for n in s.notes)
    monkeypatch.setattr(
        "agenticvbench.scoring.engine.dataset_references", lambda tasks: ((), 0)
    )  # the check off
    unchecked = by_id(score_run(run.root, [65], force=True))[65]
    assert unchecked.integrity == [] and unchecked.headline_score == r.headline_score


def test_own_reference_stays_malformed(hostile_run, score_run, demo):
    """The task's own reference keeps today's rule (malformed: it would score 0.99999), and is not also flagged."""
    run = hostile_run()
    run.copy(66, "fixed.mp4", source_path(demo.mirror, 66))
    r = by_id(score_run(run.root, [66]))[66]
    assert r.status == "malformed" and "verifier-only reference" in r.reason and r.integrity == []


def test_references_are_listed_once_and_compared_by_size_first(demo, tmp_path):
    """The index lists each reference file once (66 and 67 share a source) from the whole dataset, and a file of
    another size is never hashed against it (the hasher is not called)."""
    refs, absent = dataset_references(load_tasks(dataset=demo.mirror))
    assert absent == 0
    assert sorted(r.task_ids for r in refs) == [(65,), (66, 67)]
    calls: list[Path] = []

    def sha(p: Path) -> str:
        calls.append(p)
        return "x"

    odd = tmp_path / "odd.mp4"
    odd.write_bytes(b"not a reference")
    assert leaked_references(65, {odd: "x"}, refs, sha) == [] and calls == []
    same_size = tmp_path / "same.mp4"
    same_size.write_bytes(b"\0" * refs[1].size)
    assert leaked_references(65, {same_size: "x"}, refs, sha) == [(same_size, refs[1])] and len(calls) == 1


CONTAINERS = {
    "64 zero bytes appended": lambda src, d: appended(src, d / "a.mp4"),
    "remuxed with faststart": lambda src, d: remuxed(src, d / "c.mp4", "-movflags", "+faststart"),
    "an added stream and tags": lambda src, d: with_extra_stream(src, d / "d.mp4"),
    "access unit delimiters inserted": lambda src, d: remuxed(
        src, d / "e.mp4", "-bsf:v", "h264_metadata=aud=insert"
    ),
    "remuxed to MPEG-TS (Annex B, ADTS)": lambda src, d: remuxed(src, d / "f.ts"),
    "MPEG-TS with bytes prepended": lambda src, d: prepended(remuxed(src, d / "g.ts"), d / "h.ts"),
}


def test_own_reference_in_another_container_is_malformed(hostile_run, score_run, demo, tmp_path):
    """The task's own verifier-only source with 64 zero bytes appended scored 1.0: the own-reference rule
    compared file bytes, and demuxers ignore trailing bytes. The same for a faststart remux, an added stream with
    tags, inserted access unit delimiters, a remux to MPEG-TS (other NAL and AAC framing) and one behind bytes
    the demuxer skips. Each holds the source's packets, so each is `malformed` now, naming the reference. (Bytes
    in front of an MP4 shift its sample offsets: that file no longer decodes and scores 0.4, no cheat.)"""
    source = source_path(demo.mirror, 65)
    run = hostile_run()
    for what, make in CONTAINERS.items():
        fixed = make(source, tmp_path)
        run.copy(65, "fixed.mp4", fixed)
        r = by_id(score_run(run.root, [65], force=True))[65]
        assert r.status == "malformed", (what, r.status, r.headline_score)
        assert f"holds the verifier-only reference {source.name} of task 65" in r.reason, (what, r.reason)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["remuxed", "re-encoded"])
def test_another_tasks_reference_in_another_form_is_flagged(hostile_run, score_run, demo, tmp_path, how):
    """Task 66's source remuxed with bytes appended, or re-encoded, as task 65's fixed.mp4 was not flagged (only a
    byte copy was). The remux holds its packets (`identity`); the re-encode matches its aligned per-second
    pictures and sound (`copies`). Both are flagged `verifier_reference`, naming how, with the number kept."""
    other = source_path(demo.mirror, 66)
    if how == "remuxed":
        fixed = appended(remuxed(other, tmp_path / "r.mp4", "-movflags", "+faststart"), tmp_path / "ra.mp4")
    else:
        fixed = reencoded(other, tmp_path / "e.mp4")
    run = hostile_run()
    run.copy(65, "fixed.mp4", fixed)
    r = by_id(score_run(run.root, [65]))[65]
    assert r.status == "scored" and r.integrity == ["verifier_reference"], (r.status, r.integrity, r.reason)
    assert any(f"{other.name} of task 66, 67, {how}" in w for w in r.warnings), r.warnings


def test_recap_that_is_a_remux_of_a_source_is_flagged(hostile_run, score_run, demo, tmp_path):
    """A recap final.mp4 that is a remux of a repair source was not flagged (its bytes differ from the
    source's): it is now `verifier_reference`."""
    run = hostile_run()
    run.copy(1, "final.mp4", remuxed(source_path(demo.mirror, 65), tmp_path / "s.mp4"))
    r = by_id(score_run(run.root, [1]))[1]
    assert "verifier_reference" in r.integrity, (r.status, r.integrity, r.reason)


@pytest.mark.slow
def test_the_broken_input_with_the_sources_video_is_not_the_source(demo, score_run, tmp_path):
    """Task 67's broken.mp4 keeps the source's video packet for packet (only the sound was broken): the partial
    run's copy of the input holds nothing of the source that the input lacks, so it is scored and flagged
    `identical_to_input` only. Task 66's broken run hands back the source's video alone, which 66's input (its
    colours changed, re-encoded whole) does not hold: that video could not come from the input, so it is the
    verifier-only source (it was scored while every stream had to match). The demo's broken run, whose video-only
    output is made from the input, is not refused."""
    from agenticvbench.demo.media_gen import strip_audio

    partial = {
        r.task_id: r for r in score_run(demo.runs["partial"], [65, 66, 67], out=tmp_path / "p").results
    }
    assert all(r.status == "scored" and r.integrity == ["identical_to_input"] for r in partial.values())
    from_input = by_id(score_run(demo.runs["broken"], [66], out=tmp_path / "b"))[66]
    assert from_input.status != "malformed" or "does not hold" not in from_input.reason
    run = tmp_path / "source-video"
    shutil.copytree(demo.runs["broken"] / "66", run / "66")
    strip_audio(demo.mirror / "repair" / "sources" / "demo2_source.mp4", run / "66" / "fixed.mp4")
    leaked = by_id(score_run(run, [66], out=tmp_path / "s"))[66]
    assert leaked.status == "malformed" and "task's input does not hold, it has video 100%" in leaked.reason
