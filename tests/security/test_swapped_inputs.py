"""Files that change after they are checked: every output is read once, through the descriptor it was hashed
from, and a file that changes while it is scored is an `error` that is never reused."""

from __future__ import annotations

import os

import pytest
from adversarial import by_id

import agenticvbench.scoring.engine as engine
from agenticvbench.demo.repair import source_path


def _after_hashing(monkeypatch, action) -> None:
    """Run `action` right after the engine hashed the inputs (where a racing agent process would strike)."""
    real = engine.screen_inputs

    def screen(task, submission, hashes, *rest):
        action()
        return real(task, submission, hashes, *rest)

    monkeypatch.setattr(engine, "screen_inputs", screen)


def test_hard_link_of_source_swapped_in_after_the_hash_is_not_scored(
    hostile_run, score_run, demo, monkeypatch
):
    """Regression: a hard link of the verifier-only source renamed over fixed.mp4 right after the hash scored
    0.9999995 unflagged under the old file's hash, and that score was reused on later runs."""
    run = hostile_run()
    fixed = run.folder(65) / "fixed.mp4"
    staged = run.folder(65) / ".staged"
    os.link(source_path(demo.mirror, 65), staged)
    _after_hashing(monkeypatch, lambda: os.replace(staged, fixed))
    r = by_id(score_run(run.root, [65]))[65]
    assert r.status == "error" and r.headline_score == 0.0
    assert "replaced by another file while it was scored" in r.reason and str(fixed) in r.reason
    monkeypatch.undo()
    again = by_id(score_run(run.root, [65]))[65]  # the error is not reused: the swapped-in copy is now caught
    assert not again.resumed and again.status == "malformed" and "verifier-only reference" in again.reason


def test_file_deleted_mid_score_is_not_cached_as_its_result(hostile_run, score_run, monkeypatch):
    """Regression: a file deleted while it was scored stored a failed read under the good file's fingerprint,
    and the failure was reused once the file was back."""
    run = hostile_run()
    manifest = run.folder(38) / "solution.json"
    keep = manifest.read_bytes()
    _after_hashing(monkeypatch, manifest.unlink)
    r = by_id(score_run(run.root, [38]))[38]
    assert r.status == "error" and "removed while it was scored" in r.reason and not r.fingerprint
    monkeypatch.undo()
    manifest.write_bytes(keep)
    again = by_id(score_run(run.root, [38]))[38]
    assert not again.resumed and again.status == "scored" and again.headline_score == 1.0


def test_file_edited_in_place_mid_score_is_an_error(hostile_run, score_run, monkeypatch):
    """Bytes written into the hashed file (same inode) while it is scored: what was decoded is not what was
    hashed, so there is no score."""
    run = hostile_run()
    report = run.folder(65) / "report.md"

    def scribble() -> None:
        with open(report, "ab") as fh:
            fh.write(b"\n00:00:01 - 00:00:02 glitch\n")

    _after_hashing(monkeypatch, scribble)
    r = by_id(score_run(run.root, [65]))[65]
    assert r.status == "error" and "changed while it was scored" in r.reason


@pytest.mark.parametrize(("task_id", "name"), [(1, "final.mp4"), (65, "fixed.mp4")])
def test_media_deleted_mid_score_names_what_happened(hostile_run, score_run, monkeypatch, task_id, name):
    """Regression: a media output deleted while it was scored was an `error` whose reason read "verifier crashed:
    FileNotFoundError". The reason says the file changed or vanished while it was scored, and names it."""
    run = hostile_run()
    media = run.folder(task_id) / name
    _after_hashing(monkeypatch, media.unlink)
    r = by_id(score_run(run.root, [task_id]))[task_id]
    assert r.status == "error" and not r.fingerprint
    assert r.reason.startswith(engine.VANISHED) and str(media) in r.reason, r.reason
    assert "verifier crashed" not in r.reason
