"""The repair localisation rubric (35 points): scoring the report's predicted windows against the truth regions.

The windows come from `report_grammar.py` (the exact official `report.md` grammar). Each truth region earns
5 (scene hit) + 10 (start) + 10 (end) + 10 (IoU) points, scaled by 35/N over N regions; each region takes its best
prediction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from agenticvbench.verifiers.repair.constants import LOC_MAX
from agenticvbench.verifiers.repair.detail import LocalizationDetail
from agenticvbench.verifiers.repair.profiles import CellSpec, TruthRegion
from agenticvbench.verifiers.repair.report_grammar import (
    grammar_warnings,
    loose_window_warnings,
    parse_report,
    predicted_slots,
)

# Point split of one region's budget (scene hit, start, end, IoU), as fractions of 35; the decay rate of the
# start/end terms (points * e^(-3 * |delta seconds|)).
SPLIT: dict[str, float] = {"scene_hit": 5.0, "start": 10.0, "end": 10.0, "iou": 10.0}
DECAY_PER_S = 3.0


def interval_iou(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Intersection over the hull (max end - min start); 0 when either interval is degenerate."""
    if a[1] <= a[0] or b[1] <= b[0]:
        return 0.0
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    return inter / (max(a[1], b[1]) - min(a[0], b[0]))


def score_window(pred: tuple[float, float], region: TruthRegion, budget: float) -> dict[str, Any]:
    """Score one predicted window against one region with `budget` points split 5/10/10/10 (of 35)."""
    s, e = pred
    ts, te = region.truth
    hit = any(e >= bs and s <= be for bs, be in region.scene_bounds)
    ds, de = abs(s - ts), abs(e - te)
    iou = interval_iou(pred, region.truth)
    signals = {
        "scene_hit": float(hit),
        "start": math.exp(-DECAY_PER_S * ds),
        "end": math.exp(-DECAY_PER_S * de),
        "iou": iou,
    }
    # Each sub is (budget * share) * signal and the score is their sum in this order: this association
    # reproduces the official numbers bit for bit (all 98 golden vectors).
    subs = {f"{k}_sub": budget * (SPLIT[k] / LOC_MAX) * sig for k, sig in signals.items()}
    score = 0.0
    for v in subs.values():
        score += v
    return {"score": score, "scene_hit": hit, "start_delta_s": ds, "end_delta_s": de, "iou": iou, **subs}


@dataclass
class LocalizationResult:
    """The localisation score (0..35), the official `detail.localization` dict, warnings and parse notes."""

    score: float
    detail: LocalizationDetail
    warnings: list[str] = field(default_factory=list)
    parse: dict[str, Any] = field(default_factory=dict)


def _detail(
    score: float, pred: list[float] | None, truth: list[float] | None, sc: dict[str, Any], rationale: str
) -> LocalizationDetail:
    return {
        "score": score,
        "max": LOC_MAX,
        "window_sub": score,
        "window_max": LOC_MAX,
        "description_sub": 0.0,
        "description_max": 0.0,
        "predicted_window_s": pred,
        "truth_window_s": truth,
        "iou": sc.get("iou", 0.0),
        "iou_sub": sc.get("iou_sub", 0.0),
        "iou_max": SPLIT["iou"],
        "scene_hit": sc.get("scene_hit", False),
        "scene_hit_sub": sc.get("scene_hit_sub", 0.0),
        "scene_hit_max": SPLIT["scene_hit"],
        "start_delta_s": sc.get("start_delta_s"),
        "end_delta_s": sc.get("end_delta_s"),
        "start_sub": sc.get("start_sub", 0.0),
        "start_max": SPLIT["start"],
        "end_sub": sc.get("end_sub", 0.0),
        "end_max": SPLIT["end"],
        "description": {
            "score": 0.0,
            "max": 0.0,
            "status": "removed",
            "note": "the VLM description judge is vestigial upstream (DESCRIPTION_FRACTION = 0)",
        },
        "rationale": rationale,
    }


def zero_result(error: str, spec: CellSpec | None = None) -> LocalizationResult:
    """Localisation 0 with `error` (missing report.md, unusable profile)."""
    truth = _outer([r.truth for r in spec.regions]) if spec and spec.regions else None
    detail = _detail(0.0, None, truth, {}, error)
    detail["error"] = error
    return LocalizationResult(0.0, detail)


def _outer(spans: list[tuple[float, float]]) -> list[float]:
    return [min(s for s, _ in spans), max(e for _, e in spans)]


def score_localization(text: str, spec: CellSpec) -> LocalizationResult:
    """Score a report's text against the cell's truth regions (single- or multi-region rules by variant)."""
    if spec.localization_error:
        return zero_result(spec.localization_error, spec)
    rep = parse_report(text)
    slots, rule = predicted_slots(rep, spec.multi_region)
    preds = [(i, w) for i, w in ((i, s.window) for i, s in enumerate(slots)) if w is not None]
    warnings = grammar_warnings(rep, slots, spec.multi_region) + loose_window_warnings(text, rep)
    parse = {
        "rule": rule,
        "slots": [
            {
                "label": s.label,
                "window": s.window,
                "problem": s.problem(),
                "lines": [fv.line for fv in (s.start, s.end) if fv],
            }
            for s in slots
        ],
    }
    regions = spec.regions
    budget = LOC_MAX / len(regions)
    per_region: list[dict[str, Any]] = []
    for r in regions:
        best: dict[str, Any] | None = None
        for i, w in preds:
            sc = score_window(w, r, budget)
            if best is None or sc["score"] > best["score"]:
                best = {**sc, "prediction_index": i, "predicted_window_s": list(w)}
        per_region.append(best or {"score": 0.0, "prediction_index": None, "predicted_window_s": None})
    total = 0.0
    for p in per_region:
        total += p["score"]
    truth = _outer([r.truth for r in regions])
    if not preds:
        why = "; ".join(f"{s.label}: {s.problem()}" for s in slots)
        return LocalizationResult(
            0.0, _detail(0.0, None, truth, {}, f"no valid window ({rule}): {why}"), warnings, parse
        )
    if not spec.multi_region:
        sc = per_region[0]
        pred = sc["predicted_window_s"]
        rationale = (
            f"predicted [{pred[0]:.3f}, {pred[1]:.3f}] vs truth [{truth[0]:.3f}, {truth[1]:.3f}]: "
            f"scene_hit={sc['scene_hit']}, dstart={sc['start_delta_s']:.3f}s, "
            f"dend={sc['end_delta_s']:.3f}s, IoU={sc['iou']:.3f}"
        )
        return LocalizationResult(total, _detail(total, pred, truth, sc, rationale), warnings, parse)
    outer_pred = _outer([w for _, w in preds])
    summary = {
        k: sum(p.get(k, 0.0) for p in per_region)
        for k in ("scene_hit_sub", "start_sub", "end_sub", "iou_sub")
    }
    summary.update(
        scene_hit=any(p.get("scene_hit", False) for p in per_region),
        iou=interval_iou((outer_pred[0], outer_pred[1]), (truth[0], truth[1])),
        start_delta_s=abs(outer_pred[0] - truth[0]),
        end_delta_s=abs(outer_pred[1] - truth[1]),
    )
    rationale = f"{len(preds)} valid prediction(s) ({rule}) for {len(regions)} region(s): " + "; ".join(
        f"region {k + 1} best {p['predicted_window_s']} -> {p['score']:.3f}/{budget:.3f}"
        for k, p in enumerate(per_region)
    )
    detail = _detail(total, outer_pred, truth, summary, rationale)
    detail["windows"] = [
        {
            **r.labels,
            "truth_window_s": list(r.truth),
            "scene_bounds_s": [list(b) for b in r.scene_bounds],
            "max": budget,
            **p,
        }
        for r, p in zip(regions, per_region, strict=True)
    ]
    detail["n_predicted"] = len(preds)
    detail["n_truth"] = len(regions)
    return LocalizationResult(total, detail, warnings, parse)
