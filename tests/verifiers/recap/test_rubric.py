"""Rubric item validation (D-C4) and the final formula with signed weights (D-C6)."""

from __future__ import annotations

import math

import pytest

from agenticvbench.verifiers.recap.rubric import RubricError, aggregate, parse_item, parse_rubric

KINDS = {"ffprobe_duration_range", "ffprobe_resolution_eq"}


def py(id_: str, weight: float | None = 1.0, pillar: int | None = 0, **kw) -> dict:
    return {
        "id": id_,
        "dispatch": "python",
        "kind": "ffprobe_duration_range",
        "params": {"min": 1, "max": 9},
        "weight": weight,
        "pillar": pillar,
        **kw,
    }


def test_defaults_follow_the_union_schema() -> None:
    """The HF union schema fills absent keys with None: weight None -> 1, pillar None -> 0, None params dropped."""
    item = parse_item(
        {
            "id": "F-01",
            "dispatch": "python",
            "kind": "ffprobe_duration_range",
            "params": {"min": 1, "max": None},
            "weight": None,
            "pillar": None,
            "prompt": None,
            "stages": None,
            "narrative_essential": None,
        },
        0,
        known_kinds=KINDS,
    )
    assert (item.weight, item.pillar, item.params, item.pillar_name) == (1.0, 0, {"min": 1}, "format")
    llm = parse_item({"id": "N-01", "dispatch": "llm", "prompt": None, "criterion": "Has a title card"}, 1)
    assert llm.prompt == "Has a title card"
    comp = parse_item({"id": "C-01", "dispatch": "compound", "stages": None, "pillar": 2.0}, 2)
    assert comp.stages == () and comp.pillar == 2


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"dispatch": "llm", "prompt": "x"}, "item #0: missing 'id'"),
        ({"id": "", "dispatch": "llm", "prompt": "x"}, "missing 'id'"),
        ({"id": "X-1", "dispatch": "vlm", "prompt": "x"}, "item #0 ('X-1'): unknown dispatch 'vlm'"),
        ({"id": "X-1", "dispatch": None, "prompt": "x"}, "unknown dispatch None"),
        (
            {"id": "X-1", "dispatch": "python", "kind": "ffprobe_magic"},
            "('X-1'): unknown kind 'ffprobe_magic'",
        ),
        ({"id": "X-1", "dispatch": "python"}, "python check has no 'kind'"),
        (
            {"id": "X-1", "dispatch": "python", "kind": "ffprobe_resolution_eq", "params": [1]},
            "'params' must be",
        ),
        ({"id": "X-1", "dispatch": "llm", "prompt": "  "}, "neither 'prompt' nor 'criterion'"),
        ({"id": "X-1", "dispatch": "llm", "prompt": "x", "weight": True}, "'weight' must be a finite number"),
        (
            {"id": "X-1", "dispatch": "llm", "prompt": "x", "weight": math.nan},
            "'weight' must be a finite number",
        ),
        ({"id": "X-1", "dispatch": "llm", "prompt": "x", "weight": "2"}, "'weight' must be a finite number"),
        ({"id": "X-1", "dispatch": "llm", "prompt": "x", "pillar": -1}, "'pillar' must be"),
        ({"id": "X-1", "dispatch": "llm", "prompt": "x", "pillar": 1.5}, "'pillar' must be"),
        (
            {"id": "X-1", "dispatch": "llm", "prompt": "x", "narrative_essential": "yes"},
            "'narrative_essential'",
        ),
        ({"id": "X-1", "dispatch": "compound", "stages": {"a": 1}}, "'stages' must be a list"),
        (
            {"id": "X-1", "dispatch": "compound", "stages": [{"dispatch": "shell"}]},
            "stage #0: unknown stage dispatch",
        ),
        (
            {"id": "X-1", "dispatch": "compound", "stages": [{"dispatch": "python", "kind": "nope"}]},
            "unknown kind 'nope'",
        ),
        ({"id": "X-1", "dispatch": "compound", "stages": [{"dispatch": "llm"}]}, "llm stage has no 'prompt'"),
    ],
)
def test_malformed_items_name_the_item(raw: dict, message: str) -> None:
    """D-C4: upstream silently failed unknown dispatches/kinds; here the rubric is malformed, naming the item."""
    with pytest.raises(RubricError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_rubric([raw], known_kinds=KINDS)


@pytest.mark.parametrize(
    "field, value",
    [
        ("pillar", math.nan),
        ("pillar", math.inf),
        ("pillar", -math.inf),
        ("weight", 10**400),
        ("weight", -(10**400)),
    ],
)
def test_non_finite_numbers_are_rubric_errors(field: str, value: float) -> None:
    """Regression: a NaN/inf pillar made `int(pillar)` raise ValueError/OverflowError and a weight of 10**400
    made `math.isfinite` raise OverflowError, crashing the task instead of a clean malformed naming the item."""
    raw = {"id": "X-9", "dispatch": "llm", "prompt": "x", field: value}
    with pytest.raises(RubricError, match=rf"item #0 \('X-9'\): '{field}' must be") as err:
        parse_rubric([raw])
    assert len(str(err.value)) < 200  # a 400-digit number is shortened in the message


def test_rubric_level_errors() -> None:
    with pytest.raises(RubricError, match="no items"):
        parse_rubric([])
    with pytest.raises(RubricError, match="must be a list"):
        parse_rubric({"id": "x"})
    with pytest.raises(RubricError, match="item #1: must be an object"):
        parse_rubric([py("A"), "B"])


def test_compound_llm_stage_falls_back_to_item_text() -> None:
    item = parse_item(
        {
            "id": "C",
            "dispatch": "compound",
            "criterion": "Pacing is brisk",
            "stages": [
                {"dispatch": "python", "kind": "ffprobe_duration_range", "save_as": "dur"},
                {"dispatch": "llm", "prompt": None},
            ],
        },
        0,
        known_kinds=KINDS,
    )
    assert [s.dispatch for s in item.stages] == ["python", "llm"]
    assert item.stages[0].save_as == "dur" and item.stages[1].prompt == "Pacing is brisk"


def test_duplicate_ids_last_wins_at_first_position() -> None:
    items, warnings = parse_rubric([py("A", 1), py("B", 2), py("A", 5)], known_kinds=KINDS)
    assert [(i.id, i.weight) for i in items] == [("A", 5.0), ("B", 2.0)]
    assert warnings == ["duplicate rubric item id 'A': the last definition (#2) wins"]


def test_spec_worked_example() -> None:
    """Formula worked example: 9 positive items summing to 11, 7 passed, one failed -1 item -> (7 - 1) / 11."""
    raw = [py(f"P{i}", 1) for i in range(7)] + [py("P7", 2), py("P8", 2), py("NEG", -1)]
    items, _ = parse_rubric(raw)
    outcomes = {f"P{i}": "pass" for i in range(7)} | {"P7": "fail", "P8": "fail", "NEG": "fail"}
    score = aggregate(items, outcomes)
    assert (score.earned, score.total_positive, score.deductions) == (7.0, 11.0, 1.0)
    assert score.final_score == pytest.approx(6 / 11) and round(score.final_score, 4) == 0.5455
    assert score.deducted_items == ["NEG"] and (score.passed, score.failed, score.unscored) == (7, 3, 0)


def test_passing_negative_item_changes_nothing_and_score_is_clamped() -> None:
    items, _ = parse_rubric([py("A", 2), py("N1", -1), py("N2", -5)])
    assert aggregate(items, {"A": "pass", "N1": "pass", "N2": "pass"}).final_score == 1.0
    assert aggregate(items, {"A": "pass", "N1": "pass", "N2": "fail"}).final_score == 0.0  # (2 - 5) / 2 -> 0
    assert aggregate(items, {"A": "pass", "N1": "fail", "N2": "pass"}).final_score == 0.5


def test_no_positive_weight_scores_zero() -> None:
    items, _ = parse_rubric([py("N", -1), py("Z", 0)])
    score = aggregate(items, {"N": "pass", "Z": "pass"})
    assert (score.final_score, score.total_positive, score.pillar_breakdown) == (0.0, 0.0, {})


def test_unscored_items_are_excluded_everywhere() -> None:
    items, _ = parse_rubric([py("A", 1), py("B", 3), py("N", -2)])
    score = aggregate(items, {"A": "pass", "B": "unscored", "N": "unscored"})
    assert (score.earned, score.total_positive, score.deductions, score.final_score) == (1.0, 1.0, 0.0, 1.0)
    assert score.unscored == 2


def test_narrative_essential_is_honoured() -> None:
    """D-C6: true keeps lineage A (deduct on fail); an explicit false means lineage B (deduct when it fires)."""
    items, warnings = parse_rubric(
        [py("A", 1), py("E", -1, narrative_essential=True), py("B", -1, narrative_essential=False)]
    )
    assert len(warnings) == 1 and "'B'" in warnings[0] and "D-C6" in warnings[0]
    score = aggregate(items, {"A": "pass", "E": "fail", "B": "pass"})
    assert score.deducted_items == ["E", "B"] and score.final_score == 0.0
    score = aggregate(items, {"A": "pass", "E": "pass", "B": "fail"})
    assert score.deducted_items == [] and score.final_score == 1.0


def test_pillar_breakdown_covers_positive_scored_items() -> None:
    items, _ = parse_rubric(
        [py("F", 1, 0), py("V1", 2, 1), py("V2", 2, 1), py("X", 1, 5), py("N", -3, 2), py("Z", 0, 3)]
    )
    score = aggregate(items, {"F": "fail", "V1": "pass", "V2": "fail", "X": "pass", "N": "fail", "Z": "pass"})
    assert score.pillar_breakdown == {
        "format": {"earned": 0.0, "max": 1.0, "score": 0.0},
        "visual": {"earned": 2.0, "max": 4.0, "score": 0.5},
        "pillar_5": {"earned": 1.0, "max": 1.0, "score": 1.0},
    }
