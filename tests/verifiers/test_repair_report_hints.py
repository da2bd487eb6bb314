"""report.md lines that look like a window under a key the official grammar ignores get a warning quoting the line
and the accepted form; the score stays the official one (the line is still ignored)."""

from __future__ import annotations

from agenticvbench.dataset.tasks import resolve_cell
from agenticvbench.verifiers.repair.localize import score_localization
from agenticvbench.verifiers.repair.profiles import derive


def _loc(text: str):
    variant, profile = resolve_cell("v1/s1")
    return score_localization(text, derive(profile, variant))


def test_window_key_is_warned_with_the_accepted_form_and_scores_zero():
    """Regression: `- window: 4.0-5.5` lost all 35 localisation points with no warning at all."""
    res = _loc("# Report\n## Diagnosis\n- type: freeze\n- window: 22.0-23.0\n")
    assert res.score == 0.0
    hits = [w for w in res.warnings if "'- window: 22.0-23.0'" in w]
    assert len(hits) == 1 and "`- start: 22.0` and `- end: 23.0`" in hits[0] and hits[0].startswith("D-R9")


def test_other_spellings_are_warned_and_grammar_lines_are_not():
    """Time-range spellings are caught; a valid report gets no hint; prose without a colon is left alone."""
    res = _loc(
        "## Diagnosis\n**Time range**: 0:22 to 0:23\n- timestamps: 22s - 23s\nThe window was 22 s long\n"
    )
    assert sum("looks like a time window" in w for w in res.warnings) == 2
    ok = _loc("## Diagnosis\n- type: freeze\n- start: 22.0\n- end: 23.0\n- window: 22-23\n")
    assert ok.score > 30 and sum("looks like a time window" in w for w in ok.warnings) == 1
    assert not any(
        "looks like a time window" in w for w in _loc("## Diagnosis\n- start: 22.0\n- end: 23.0\n").warnings
    )
