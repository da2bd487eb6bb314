"""Boundary leaks across tasks: a copy of any task's verifier-only reference is flagged, the official number kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from adversarial import by_id

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
