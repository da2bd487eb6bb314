"""Assembly (tasks 83-100): pick one clip per storyboard slot. Bit-for-bit parity with the official scorer.

Official contract: `norm(x)` = `str(x).strip()`, plus `.mp4` unless it already ends with the
case-sensitive `.mp4`; applied to the picks (`segment.get("source", "")`, list order) and to the golden list. If the
segment count differs from n_slots every score is 0 with `malformed: expected N segments, got M` (picks still
reported). Otherwise n_correct = slots whose pick equals the golden clip (duplicates allowed, any string allowed),
final_score = assembly_score = n_correct / n, and adjusted_final_score = max(0, (final - 1/3) / (1 - 1/3)) by
division (D-S4: not x1.5, which differs in the last bit).

Extra metrics (never the headline):
- slot durations: each segment's `output` length vs `correct_assembly_durations[i]`, and the manifest timeline end
  (largest valid `output` end) vs `duration_sec`. A value matches when
  |got - expected| <= max(DURATION_ABS_TOL_S = 0.1 s, DURATION_REL_TOL = 5 % of expected); a missing, non-numeric,
  NaN/Infinity or reversed interval never matches. The rule is repeated in `extra["duration_tolerance"]`.
- D-S3: whether `solution.mp4` exists and its probed duration matches the manifest end (`extra["video"]`).
- D-S2: a `warnings` entry when a slot lost credit only because of id formatting (`3.MP4`, `3.0`, `clip3.mp4`,
  `/path/3.mp4` ...).
"""

from __future__ import annotations

from typing import Any, TypedDict

from agenticvbench.dataset.tasks import AssemblyTask
from agenticvbench.results.model import Result
from agenticvbench.verifiers import FAMILY_SPECS, register
from agenticvbench.verifiers.base import FamilyExplanation
from agenticvbench.verifiers.manifest import (
    ManifestRead,
    ManifestVerifier,
    interval_length,
    loose_clip_id,
    manifest_end,
    within,
)


class AssemblyDetail(TypedDict):
    """A scored assembly result's `detail` (what `avb explain` reads to list wrong slots)."""

    picks: list[Any]  # the official prediction per slot, as the official scorer normalises it
    correct: list[Any]  # the golden clip per slot


OFFICIAL_FIELDS = (
    "task_id",
    "n_slots",
    "n_correct",
    "assembly_score",
    "strict_match",
    "final_score",
    "adjusted_final_score",
    "picks",
    "correct",
    "error",
)
CHANCE_FLOOR = 1 / 3
DURATION_ABS_TOL_S = 0.1
DURATION_REL_TOL = 0.05


def norm_clip(x: Any) -> str:
    """The official id normalisation: strip, then append `.mp4` unless it ends with the case-sensitive `.mp4`."""
    s = str(x).strip()
    return s if s.endswith(".mp4") else s + ".mp4"


def adjust(final: float) -> float:
    """D-S4 chance adjustment, by division exactly as the official code computes it."""
    return max(0.0, (final - CHANCE_FLOOR) / (1 - CHANCE_FLOOR))


def _zero(task_id: int, correct: list[str], picks: list[str], error: str) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "n_slots": len(correct),
        "n_correct": 0,
        **dict.fromkeys(OFFICIAL_FIELDS[3:7], 0.0),
        "picks": picks,
        "correct": correct,
        "error": error,
    }


def score_picks(sources: list[Any], correct: list[Any], task_id: int = 0) -> dict[str, Any]:
    """The official result dict (fields in `OFFICIAL_FIELDS` order) for raw `source` values vs the golden clips."""
    picks = [norm_clip(s) for s in sources]
    gold = [norm_clip(c) for c in correct]
    n = len(gold)
    if len(picks) != n:
        return _zero(task_id, gold, picks, f"malformed: expected {n} segments, got {len(picks)}")
    n_correct = sum(1 for p, c in zip(picks, gold, strict=True) if p == c)
    final = n_correct / n if n else 0.0
    return {
        "task_id": task_id,
        "n_slots": n,
        "n_correct": n_correct,
        "assembly_score": final,
        "strict_match": 1.0 if picks == gold else 0.0,
        "final_score": final,
        "adjusted_final_score": adjust(final),
        "picks": picks,
        "correct": gold,
        "error": "",
    }


def official_result(read: ManifestRead, correct: list[Any], task_id: int) -> dict[str, Any]:
    """The JSON the official CLI prints for this manifest (our clean error where the official one crashes)."""
    if not read.ok:
        return _zero(task_id, [norm_clip(c) for c in correct], [], read.error)
    return score_picks([seg.get("source", "") for seg in read.segments], correct, task_id)


def near_miss_warning(picks: list[str], correct: list[str]) -> str | None:
    """D-S2: a warning naming the slots that lost credit only because of id formatting."""
    if len(picks) != len(correct):
        return None
    slots = [
        i
        for i, (p, c) in enumerate(zip(picks, correct, strict=True))
        if p != c and loose_clip_id(p) == loose_clip_id(c)
    ]
    if not slots:
        return None
    shown = ", ".join(f"slot {i + 1}: {picks[i]!r} vs {correct[i]!r}" for i in slots[:3]) + (  # 1-based
        " ..." if len(slots) > 3 else ""
    )
    return (
        f"D-S2: {len(slots)} slot(s) picked the right clip under a differently formatted id ({shown}); the "
        "official normalisation is case-sensitive and float-naive, so they scored as wrong"
    )


def duration_match(
    segments: list[dict[str, Any]],
    expected: list[float],
    duration_sec: float,
    abs_tol: float = DURATION_ABS_TOL_S,
    rel_tol: float = DURATION_REL_TOL,
) -> dict[str, Any]:
    """Per-slot `output` lengths vs the golden clip durations, and the timeline end vs the film duration."""
    slots = []
    for i, exp in enumerate(expected):  # slots are numbered from 1 (as in explain)
        got = interval_length(segments[i].get("output")) if i < len(segments) else None
        match = got is not None and within(got, exp, abs_tol, rel_tol)
        slots.append({"slot": i + 1, "expected_s": exp, "got_s": got, "match": match})
    matched = sum(1 for s in slots if s["match"])
    end = manifest_end(segments)
    return {
        "duration_tolerance": {
            "abs_s": abs_tol,
            "rel": rel_tol,
            "rule": f"|got - expected| <= max({abs_tol} s, {rel_tol:.0%} of expected)",
        },
        "slot_durations": slots,
        "slot_duration_matches": matched,
        "slot_duration_match_rate": matched / len(expected) if expected else None,
        "invalid_output_intervals": [
            i for i, s in enumerate(segments) if interval_length(s.get("output")) is None
        ],
        "total_duration": {
            "expected_s": duration_sec,
            "got_s": end,
            "match": end is not None and within(end, duration_sec, abs_tol, rel_tol),
        },
    }


def explain_assembly(result: Result) -> FamilyExplanation:
    """How a stored assembly result was computed (slots right, chance floor removed) and which slots are wrong."""
    d, c = result.detail or {}, result.components or {}
    picks, correct = d.get("picks") or [], d.get("correct") or []
    adjusted = result.adjusted_final_score or 0
    computation = (
        f"final_score = {c.get('n_correct', '?')}/{len(correct) or '?'} slots right = "
        f"{result.final_score:.4f}; adjusted_final_score = max(0, (final - 1/3) / (2/3)) = {adjusted:.4f}"
    )
    lost = [
        f"{c.get('n_correct', '?')}/{len(correct)} slots right -> final {result.final_score:.3f}, adjusted "
        f"{adjusted:.3f} (chance floor 1/3 removed)"
    ]
    lost += [
        f"slot {i + 1}: picked {p}, want {w}"
        for i, (p, w) in enumerate(zip(picks, correct, strict=False))
        if p != w
    ]
    return FamilyExplanation(computation=computation, lost=lost)


@register("assembly")
class AssemblyVerifier(ManifestVerifier):
    """Official assembly scores plus slot-duration matching, D-S2 warnings and the D-S3 video consistency extra."""

    family = "assembly"
    headline_field = FAMILY_SPECS["assembly"].headline_field
    version = "1.0.0"
    task_type = AssemblyTask
    component_keys = ("n_correct", "assembly_score", "strict_match")

    def official(self, read: ManifestRead, task: AssemblyTask) -> dict[str, Any]:
        """The official result of this manifest against the golden slots."""
        return official_result(read, task.correct_assembly_in_slot_order, task.task_id)

    def scored_parts(
        self, read: ManifestRead, official: dict[str, Any], task: AssemblyTask
    ) -> tuple[dict[str, Any], dict[str, Any], str | None]:
        """The picks, the duration extras and the D-S2 warning."""
        extra = duration_match(read.segments, task.correct_assembly_durations, task.duration_sec)
        detail = AssemblyDetail(picks=official["picks"], correct=official["correct"])
        return dict(detail), extra, near_miss_warning(official["picks"], official["correct"])

    explain = staticmethod(explain_assembly)  # the family explains its own results
