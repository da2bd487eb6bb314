"""The recap judge's spending read back from stored results (`verifiers.recap.explain`): a result file is read
defensively, since anyone can hand-edit one."""

from __future__ import annotations

from result_fixtures import make_result

from agenticvbench.verifiers.recap.explain import judge_by_modality, judge_usage


def test_hand_edited_judge_records_count_as_nothing_and_never_crash() -> None:
    """`judge_usage` turned a stored count into an int directly, so a NaN count (JSON written by Python allows it)
    raised ValueError inside `avb explain` and the report. Both readers now share one item walk and one count rule:
    NaN, negative and text counts are 0, a NaN cost is no cost, and the good item still counts."""
    good = {"attempts": 2, "prompt_tokens": 100, "completion_tokens": 5, "cost_usd": 0.5, "modality": "audio"}
    bad = {"attempts": float("nan"), "prompt_tokens": -3, "completion_tokens": "x", "cost_usd": float("nan")}
    items = [
        {"id": "a", "outcome": "pass", "judge": good},
        {"id": "b", "outcome": "fail", "judge": {**bad, "modality": "audio"}},
        {"id": "c", "judge": "not a record"},
        "not an item",
    ]
    r = make_result(1, "recap", 0.5, detail={"items": items})
    assert judge_usage([r]) == {"calls": 2, "prompt_tokens": 100, "completion_tokens": 5, "cost_usd": 0.5}
    row = judge_by_modality([r])["audio"]
    assert (row["judged"], row["calls"], row["prompt_tokens"], row["cost_usd"]) == (2, 2, 100, 0.5)
