"""How a stored recap result was computed and what lost points: the item table with each outcome and its measured
value or verdict, the failed and unscored items, and what the judge cost.

Reads only the result (`detail.RecapItemDetail` rows, falling back to the official rows of an imported result);
light enough for `avb report` and `avb explain`, which must not load PyAV or the judge client. The `judge` section
names the prompt profile that graded the result, the judge's calls, tokens and cost per modality, and the route
of every judged item (modality, rule, trigger words, the parts actually sent). `judge_usage`, `judge_by_modality`
and `unscored_reasons` sum over many results, for run summaries; `unscored_items` is the registry's hook for the
count of unscored items.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from typing import Any

from agenticvbench.results.model import Result
from agenticvbench.verifiers.base import FamilyExplanation, number


def explain_recap(result: Result) -> FamilyExplanation:
    """The explanation of a scored recap result (see the module docstring)."""
    items = recap_items(result)
    judge = _judge_lines(result)
    return FamilyExplanation(
        computation=_computation(result),
        lost=_lost(items),
        sections={"judge": judge} if judge else {},
        items=items,
        judge=judge_usage([result]),
    )


def _judge_lines(r: Result) -> list[str]:
    """The profile that graded the result, what the judge spent per modality, then one line per routed item:
    modality, rule, words, parts sent."""
    prov = r.provenance or {}
    lines = []
    if prov.get("judge_mode") not in (None, "off", "human"):
        lines.append(
            f"profile {prov.get('judge_profile') or 'legacy'} "
            f"(template {prov.get('prompt_template_version', '?')}), model {prov.get('judge_model', '?')}"
        )
    for modality, row in judge_by_modality([r]).items():
        cost = f", ${row['cost_usd']:.4f}" if row["cost_usd"] is not None else ""
        lines.append(
            f"{modality.replace('_', '-')}: {row['judged']} item(s) judged, {row['calls']} call(s), "
            f"{row['prompt_tokens']}+{row['completion_tokens']} tok{cost}"
        )
    items = (r.detail or {}).get("items") or []
    for it in items if isinstance(items, list) else []:
        route = it.get("route") if isinstance(it, dict) else None
        if not isinstance(route, dict):
            continue
        words = ", ".join(str(w) for w in route.get("because") or [])
        j = it.get("judge") if isinstance(it.get("judge"), dict) else {}
        sent = " + ".join(str(p) for p in j.get("delivery") or []) or "nothing sent"
        lines.append(
            f"{it.get('item_id', '?')}: {str(route.get('modality', '?')).replace('_', '-')} "
            f"(rule {route.get('rule', '?')}{': ' + words if words else ''}); {sent}"
        )
    return lines


def recap_items(r: Result) -> list[dict[str, Any]]:
    """The item table: id, pillar, dispatch, weight, outcome (pass/fail/unscored) and the measured value or
    verdict (`reason`). Rows that are not mappings (a hand-edited file) are skipped."""
    items = (r.detail or {}).get("items") or (r.official or {}).get("items") or []
    rows = []
    for it in items if isinstance(items, list) else []:
        if not isinstance(it, dict):
            continue
        outcome = it.get("outcome") or ("pass" if it.get("passed") else "fail")
        pillar = it.get("pillar_name", it.get("pillar"))
        rows.append(
            {
                "item_id": str(it.get("item_id", "?")),
                "pillar": "" if pillar is None else pillar,
                "dispatch": it.get("dispatch"),
                "weight": number(it.get("weight")),
                "outcome": str(outcome),
                "reason": str(it.get("reason", "")),
            }
        )
    return rows


def _lost(items: list[dict[str, Any]]) -> list[str]:
    out = []
    for it in items:
        w = it["weight"]
        if it["outcome"] == "fail" and w != 0:
            what = "lost" if w > 0 else "deducted"
            out.append(f"{it['item_id']} ({what} {abs(w):g}): {it['reason']}")
        elif it["outcome"] not in ("pass", "fail"):
            out.append(f"{it['item_id']} ({it['outcome']}, weight {w:g}): {it['reason']}")
    return out


def _computation(r: Result) -> str:
    c = r.components or {}
    un, n = int(number(c.get("unscored"))), int(number(c.get("n_items")))
    return (
        f"final_score = clamp((earned {number(c.get('earned')):g} - deductions {number(c.get('deductions')):g}) / "
        f"total_positive {number(c.get('total_positive')):g}, 0, 1) = {r.final_score:.4f} over "
        f"{n - un} of {n} items" + (f" ({un} llm item(s) unscored, excluded)" if un else "")
    )


def _judged_items(results: list[Result]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(item, its judge record) for every recap item of `results` that has one; any other shape is skipped."""
    for r in results:
        items = (r.detail or {}).get("items") or []
        for it in items if isinstance(items, list) else []:
            j = it.get("judge") if isinstance(it, dict) else None
            if isinstance(j, dict):
                yield it, j


def _count(value: Any) -> int:
    """A stored count as an int: 0 for anything that is not a finite non-negative number (hand-edited files)."""
    x = number(value)
    return int(x) if math.isfinite(x) and x >= 0 else 0


def judge_usage(results: list[Result]) -> dict[str, Any]:
    """Judge calls, tokens and cost summed over recap items (cost None when no item reported one)."""
    calls = prompt = completion = 0
    cost: float | None = None
    for _, j in _judged_items(results):
        calls += _count(j.get("attempts"))
        prompt += _count(j.get("prompt_tokens"))
        completion += _count(j.get("completion_tokens"))
        if isinstance(j.get("cost_usd"), (int, float)) and math.isfinite(j["cost_usd"]):
            cost = (cost or 0.0) + float(j["cost_usd"])
    return {"calls": calls, "prompt_tokens": prompt, "completion_tokens": completion, "cost_usd": cost}


def judge_by_modality(results: list[Result]) -> dict[str, dict[str, Any]]:
    """Per modality (the item's route: visual, audio, audio_visual, video), from the items' own judge records:
    `judged` (items the judge decided, pass or fail), `calls`, `prompt_tokens`, `completion_tokens` and `cost_usd`
    (None when no item of it reported one). Items without a judge record or a modality are not counted."""
    out: dict[str, dict[str, Any]] = {}
    for it, j in _judged_items(results):
        route = it.get("route")
        modality = j.get("modality") or (route.get("modality") if isinstance(route, dict) else None)
        if not isinstance(modality, str) or not modality:
            continue
        row = out.setdefault(
            modality,
            {"judged": 0, "calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None},
        )
        row["judged"] += it.get("outcome") in ("pass", "fail")
        row["calls"] += _count(j.get("attempts"))
        row["prompt_tokens"] += _count(j.get("prompt_tokens"))
        row["completion_tokens"] += _count(j.get("completion_tokens"))
        cost = number(j.get("cost_usd"), math.nan)
        if math.isfinite(cost):
            row["cost_usd"] = (row["cost_usd"] or 0.0) + cost
    return dict(sorted(out.items()))


def unscored_items(result: Result) -> int:
    """The number of llm items a stored recap result left unscored (`components["unscored"]`, 0 when absent);
    read through the registry's `unscored_items`, never directly."""
    return int((result.components or {}).get("unscored", 0) or 0)


def unscored_reasons(results: list[Result]) -> dict[str, int]:
    """Why recap items were left unscored, with counts (most frequent first)."""
    counts = Counter(
        it["reason"] or "no reason given"
        for r in results
        for it in recap_items(r)
        if it["outcome"] == "unscored"
    )
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
