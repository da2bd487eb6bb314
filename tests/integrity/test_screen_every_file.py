"""Every file a task folder holds is screened and recorded, whatever the family and whatever its name.

Screening used to look at the files the verifier reads, and at the other files only for repair (the family with
verifier-only media). A sequencing or assembly `solution.mp4`, a recap's `draft.mp4` or a file under any other
name was never compared with the dataset's verifier-only references, and never hashed, so `avb view` could not
show it (it shows only bytes scoring hashed) or, worse, would have had to decide about it without scoring's verdict.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agenticvbench.fsutil import file_sha256
from agenticvbench.media.ffmpeg import ffmpeg_exe

pytestmark = pytest.mark.slow  # each test scores tasks of the demo


def _source(demo) -> Path:
    return demo.mirror / "repair" / "sources" / "demo1_source.mp4"


def test_every_file_is_hashed_under_its_path(demo, hostile_run, score_run) -> None:
    """A sequencing folder's `solution.mp4` (not read by the verifier) and a file in a subfolder are recorded in
    `input_hashes` with their SHA-256, under their paths inside the output folder; the verifier's files keep
    their names. The result is otherwise unchanged: the honest files raise no flag."""
    run = hostile_run("perfect")
    out = run.folder(37)
    (out / "drafts").mkdir()
    shutil.copyfile(out / "solution.mp4", out / "drafts" / "take2.mp4")
    (result,) = score_run(run.root, [37]).results
    hashes = result.provenance["input_hashes"]
    assert hashes["solution.mp4"] == file_sha256(out / "solution.mp4")
    assert hashes["drafts/take2.mp4"] == hashes["solution.mp4"]
    assert "solution.json" in hashes and result.status == "scored" and result.integrity == []


@pytest.mark.parametrize(("task_id", "name"), [(37, "solution.mp4"), (83, "solution.mp4"), (1, "draft.mp4")])
def test_a_verifier_only_source_under_any_name_is_flagged(
    demo, hostile_run, score_run, task_id, name
) -> None:
    """A repair source copied byte for byte into a sequencing, assembly or recap folder, under a name its verifier
    does not read, is flagged `verifier_reference` (the score is kept, as for the outputs it reads)."""
    run = hostile_run("perfect")
    shutil.copyfile(_source(demo), run.folder(task_id) / name)
    (result,) = score_run(run.root, [task_id]).results
    assert "verifier_reference" in result.integrity, result.warnings
    assert any(name in w and "INTEGRITY verifier_reference" in w for w in result.warnings)


def test_a_remuxed_source_is_flagged_by_its_packets(demo, hostile_run, score_run, tmp_path) -> None:
    """The same source remuxed to Matroska (other bytes, same packets) as a sequencing `solution.mkv`: found by
    the packet digests, not the bytes."""
    remuxed = tmp_path / "solution.mkv"
    subprocess.run(
        [ffmpeg_exe(), "-v", "error", "-i", str(_source(demo)), "-c", "copy", str(remuxed)], check=True
    )
    run = hostile_run("perfect")
    out = run.folder(37)
    shutil.copyfile(remuxed, out / "solution.mkv")
    (result,) = score_run(run.root, [37]).results
    assert "verifier_reference" in result.integrity
    assert any("solution.mkv" in w and "remuxed" in w for w in result.warnings)


def test_a_changed_extra_file_is_rescored_not_reused(demo, hostile_run, score_run) -> None:
    """The other files are part of the result's fingerprint: replacing `solution.mp4` after scoring makes the
    next `avb verify` rescore the task (and record the new bytes), instead of reusing a verdict about old ones."""
    run = hostile_run("perfect")
    out = run.folder(37)
    first = score_run(run.root, [37]).results[0]
    shutil.copyfile(_source(demo), out / "solution.mp4")
    again = score_run(run.root, [37]).results[0]
    assert not again.resumed and "verifier_reference" in again.integrity
    assert (
        again.provenance["input_hashes"]["solution.mp4"] != first.provenance["input_hashes"]["solution.mp4"]
    )
