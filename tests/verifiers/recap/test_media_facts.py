"""`MediaFacts` on-disk cache: best-effort, never able to change a measurement or an item's outcome."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenticvbench import memo
from agenticvbench.verifiers.recap.kinds import MediaFacts, run_kind
from agenticvbench.verifiers.recap.rubric import aggregate, parse_rubric


def test_failed_cache_write_changes_no_result(main_clip: Path, tmp_path: Path) -> None:
    """Regression: when a measurement succeeded but its cache write raised OSError (here the cache dir lies
    under a regular file, so mkdir fails even for root), the error was memoised as the measurement's failure:
    the kind failed and a negative (must-hold) item deducted. The write failure must only be noted."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    broken = MediaFacts(main_clip, cache_dir=blocker / "cache")
    plain = MediaFacts(main_clip)
    for kind, params in [
        ("ffmpeg_decode_no_errors", {}),
        ("ffmpeg_blackdetect_max_run", {"max_seconds": 3.5}),
    ]:
        got, ref = run_kind(kind, params, broken), run_kind(kind, params, plain)
        assert (got.passed, got.evidence, got.error) == (ref.passed, ref.evidence, ref.error) and got.passed
    assert len(broken.cache_errors) == 2 and all("cache not written" in e for e in broken.cache_errors)
    assert plain.cache_errors == []
    items, _ = parse_rubric(
        [
            {"id": "P", "dispatch": "python", "kind": "ffmpeg_decode_no_errors", "weight": 1},
            {"id": "N", "dispatch": "python", "kind": "ffmpeg_decode_no_errors", "weight": -1},
        ]
    )
    outcomes = {it.id: "pass" if run_kind(it.kind, it.params, broken).passed else "fail" for it in items}
    assert aggregate(items, outcomes).final_score == 1.0  # the negative item does not deduct


def test_value_json_cannot_hold_is_not_cached_but_kept(
    main_clip: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The JSON writer refuses NaN (ValueError): such a value is still returned, just not stored on disk."""

    def refuse(path: Path, obj: object) -> None:
        raise ValueError("Out of range float values are not JSON compliant")

    monkeypatch.setattr(memo, "atomic_write_json", refuse)
    facts = MediaFacts(main_clip, cache_dir=tmp_path)
    assert facts.decode_errors() == "" and facts.computed["decode"] == 1
    assert facts.decode_errors() == "" and facts.computed["decode"] == 1  # memoised, not recomputed
    assert facts.cache_errors and "ValueError" in facts.cache_errors[0]
