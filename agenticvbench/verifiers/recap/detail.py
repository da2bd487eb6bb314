"""The shape of a recap result's `detail` and `official`: one row per rubric item.

`RecapItemDetail` is what `runner.ItemResult.detail()` writes for each item (the official JSON's item row plus
what the official scorer does not keep: the outcome with `unscored`, the check kind, the evidence a compound item
saved, the judge call); `official["items"]` holds only the official row (`OfficialItem`). Kept free of heavy
imports so reports can read a result without PyAV, OpenCV or the judge client.
"""

from __future__ import annotations

from typing import Any, TypedDict

from agenticvbench.verifiers.recap.rubric import Outcome


class OfficialItem(TypedDict):
    """One item row of the official recap JSON (reason cut to 300 characters; unscored: passed/score null)."""

    item_id: str
    dispatch: str
    weight: float
    pillar: int
    passed: bool | None
    score: int | None
    reason: str


class RecapItemDetail(OfficialItem, total=False):
    """One item of a recap result's `detail["items"]`: the official row, the whole reason, and what we add."""

    outcome: Outcome
    kind: str | None
    pillar_name: str
    evidence: dict[str, str]
    judge_prompt: str
    notes: list[str]
    route: dict[
        str, Any
    ]  # the judged item's modality, routing rule and trigger words (`judge.routing.Route`)
    judge: dict[str, Any]  # the judge call (`judge.calls.JudgeCall` without item_id/outcome/reason)
