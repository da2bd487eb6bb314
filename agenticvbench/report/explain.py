"""Why a task lost points: a few human-readable lines per result, read from its components, detail and official
fields (used by the family-report notebook and by anyone drilling into the worst tasks).
"""

from __future__ import annotations

from typing import Any

from agenticvbench.results import Result

#: Repair rubric weights (final = (5 format + 35 localisation + 60 edit) / 100).
REPAIR_WEIGHTS = {"format": 5, "localization": 35, "edit": 60}


def orders(result: Result) -> tuple[list[str], list[str]] | None:
    """(predicted, true) clip order of a sequencing result, or None when the detail lacks them."""
    d = result.detail or {}
    pred = d.get("pred_order", d.get("pred"))
    true = d.get("correct_order", d.get("correct"))
    if isinstance(pred, list) and isinstance(true, list):
        return [str(x) for x in pred], [str(x) for x in true]
    return None


def _sequencing(r: Result) -> list[str]:
    c = r.components or {}
    out = [f"nd_score {c.get('nd_score', 0):.3f} x lis_score {c.get('lis_score', 0):.3f} x adj_score "
           f"{c.get('adj_score', 0):.3f} = adjusted {r.adjusted_final_score or 0:.3f}"]
    o = orders(r)
    if o:
        pred, true = o
        wrong = [f"{clip} at {i + 1} (belongs at {true.index(clip) + 1})" for i, clip in enumerate(pred)
                 if clip in true and true.index(clip) != i]
        if wrong:
            out.append("misplaced: " + ", ".join(wrong))
    return out


def _assembly(r: Result) -> list[str]:
    d = r.detail or {}
    picks, correct = d.get("picks") or [], d.get("correct") or []
    wrong = [f"slot {i + 1}: picked {p}, want {c}" for i, (p, c) in enumerate(zip(picks, correct, strict=False))
             if p != c]
    out = [f"{(r.components or {}).get('n_correct', '?')}/{len(correct)} slots right -> final "
           f"{r.final_score:.3f}, adjusted {r.adjusted_final_score or 0:.3f} (chance floor 1/3 removed)"]
    return out + wrong


def _repair(r: Result) -> list[str]:
    c = r.components or {}
    lost = [f"{k}: {float(c.get(k, 0)):.3f} of 1 (costs {w * (1 - float(c.get(k, 0))):.1f} of 100 points)"
            for k, w in REPAIR_WEIGHTS.items() if float(c.get(k, 0)) < 1]
    for k in REPAIR_WEIGHTS:
        err = ((r.detail or {}).get(k) or {}).get("error")
        if err:
            lost.append(f"{k} error: {err}")
    return lost


def _recap(r: Result) -> list[str]:
    items = (r.detail or {}).get("items") or (r.official or {}).get("items") or []
    out = []
    for it in items:
        w = float(it.get("weight", 0) or 0)
        outcome = it.get("outcome", "pass" if it.get("passed") else "fail")
        if outcome == "fail" and w != 0:
            what = "lost" if w > 0 else "deducted"
            out.append(f"{it.get('item_id')} ({what} {abs(w):g}): {it.get('reason', '')}")
        elif outcome not in ("pass", "fail"):
            out.append(f"{it.get('item_id')} ({outcome}, weight {w:g}): {it.get('reason', '')}")
    return out


_BY_FAMILY = {"sequencing": _sequencing, "assembly": _assembly, "repair": _repair, "recap": _recap}


def lost_points(result: Result) -> list[str]:
    """Lines explaining the points a result lost: its status reason, the family's deductions, its warnings."""
    if result.status != "scored":
        return [f"{result.status}: {result.reason or 'no reason given'}"]
    fn = _BY_FAMILY.get(result.family)
    lines = fn(result) if fn else []
    if result.reason:
        lines.append(f"note: {result.reason}")
    return lines + [f"warning: {w}" for w in result.warnings]


def explain_table(results: list[Result]) -> list[dict[str, Any]]:
    """One row per result: run, task, status, headline and the lost-points lines joined (for a DataFrame)."""
    from agenticvbench.report.aggregate import run_ref

    return [{"task_id": r.task_id, "run": run_ref(r).short, "status": r.status, "headline": r.headline_score,
             "why": "; ".join(lost_points(r))} for r in results]
