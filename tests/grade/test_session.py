"""What the grading page shows a person: compound questions with their measured facts filled in."""

from __future__ import annotations

import json

from agenticvbench.dataset.loader import load_tasks
from agenticvbench.grade import build_submissions
from agenticvbench.scoring.engine import verify_run


def _pacing_text(setup) -> str:
    subs, _, _ = build_submissions([setup.run], load_tasks("recap", dataset=setup.mirror))
    (item,) = [it for it in subs[0].items if it.item_id == "pol_pacing"]
    return item.text


def test_shots_placeholder_is_filled_for_the_grader(setup) -> None:
    """Regression: the grader read "A shot analysis of this recap reports: {shots}." while the model judge got
    the measured facts. Before `avb verify` the page says how to get them; after, it shows what the judge saw."""
    before = _pacing_text(setup)
    assert "{shots}" not in before and "[shots: not measured yet; run avb verify on this run first]" in before
    verify_run(setup.run, dataset=setup.mirror, task_ids=[1], cache_dir=setup.cache, jobs=1)
    result = json.loads((setup.run / "avb-results" / "1.json").read_text(encoding="utf-8"))
    (detail,) = [it for it in result["detail"]["items"] if it["item_id"] == "pol_pacing"]
    shots = detail["evidence"]["shots"]
    after = _pacing_text(setup)
    assert shots and f"reports: {shots}. Watching" in after and "{" not in after


def test_an_empty_video_is_not_offered_for_grading(setup) -> None:
    """A 0-byte `final.mp4` (the demo's broken run has one) was listed as a submission: a grader got a player that
    cannot play and items to judge on nothing. It is skipped with a note naming it; the other task is offered."""
    (setup.run / "2" / "final.mp4").write_bytes(b"")
    subs, notes, _ = build_submissions([setup.run], load_tasks("recap", dataset=setup.mirror))
    assert [s.task_id for s in subs] == [1]
    assert notes == ["run/2/final.mp4: empty (0 bytes), nothing to grade"]
