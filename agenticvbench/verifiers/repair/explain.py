"""How a stored repair result was computed and what lost points: the rubric breakdown, the report.md lines read or
ignored, and the chunks least like the source.

Reads only the result (`detail.RepairDetail`, `extra["localization_parse"]`, the warnings) and the rubric points
from `constants.py`: light enough for `avb report` and `avb explain`, which must not load PyAV.
"""

from __future__ import annotations

from agenticvbench.results.model import Result
from agenticvbench.verifiers.base import FamilyExplanation, number
from agenticvbench.verifiers.repair.constants import RUBRIC_POINTS
from agenticvbench.verifiers.repair.detail import CHUNK_SIGNALS, EditChunk, RepairDetail, as_repair_detail

#: How many edit chunks the explanation lists (the lowest similarity first).
WORST_CHUNKS = 3

#: A rubric that costs less than this many of the 100 points is not listed as lost (an edit of 0.9999994 would
#: read "costs 0.0 of 100 points").
MIN_LOST_POINTS = 0.05


def explain_repair(result: Result) -> FamilyExplanation:
    """The explanation of a scored repair result (see the module docstring)."""
    detail = as_repair_detail(result.detail)
    return FamilyExplanation(
        computation=_computation(result), lost=_lost(result, detail), sections=_sections(result, detail)
    )


def _computation(r: Result) -> str:
    c = r.components or {}
    parts = [f"{k} {number(c.get(k)) * w:.2f}/{w:g}" for k, w in RUBRIC_POINTS.items()]
    return f"final_score = ({' + '.join(parts)}) / 100 = {r.final_score:.4f}"


def _lost(r: Result, detail: RepairDetail) -> list[str]:
    c = r.components or {}
    lost = [
        f"{k}: {number(c.get(k)):.3f} of 1 (costs {w * (1 - number(c.get(k))):.1f} of 100 points)"
        for k, w in RUBRIC_POINTS.items()
        if w * (1 - number(c.get(k))) >= MIN_LOST_POINTS
    ]
    errors = (
        ("format", detail["format"].get("error")),
        ("localization", detail["localization"].get("error")),
        ("edit", detail["edit"].get("error")),
    )
    return lost + [f"{k} error: {err}" for k, err in errors if err]


def chunk_floor(chunk: EditChunk) -> float:
    """A chunk's lowest similarity signal (1.0 when none was measured)."""
    values = [chunk.get(k) for k in CHUNK_SIGNALS]
    return min([float(v) for v in values if isinstance(v, (int, float))] or [1.0])


def _sections(r: Result, detail: RepairDetail) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    fmt = detail["format"]
    items = fmt.get("items")
    bad = [
        f"{k}: fixed {v.get('fixed')!r} vs source {v.get('source')!r}"
        for k, v in (items.items() if isinstance(items, dict) else [])
        if isinstance(v, dict) and not v.get("pass")
    ]
    out["format"] = [
        f"{number(fmt.get('score')):.2f}/{number(fmt.get('max'), RUBRIC_POINTS['format']):g} "
        f"({fmt.get('n_passed', '?')}/{fmt.get('n_items', '?')} checks pass)",
        *bad,
    ]
    loc = detail["localization"]
    out["localization"] = [
        f"{number(loc.get('score')):.2f}/{number(loc.get('max'), RUBRIC_POINTS['localization']):g}"
        f": {loc.get('rationale', '')}"
    ]
    out["localization"] += [
        f"{k}: {number(loc.get(f'{k}_sub')):.2f}/{number(loc.get(f'{k}_max')):g}"  # type: ignore[misc]
        for k in ("scene_hit", "start", "end", "iou")
        if f"{k}_max" in loc
    ]
    out["report.md lines"] = _report_lines(r)
    edit = detail["edit"]
    out["edit"] = [
        f"{number(edit.get('score')):.2f}/{number(edit.get('max'), RUBRIC_POINTS['edit']):g}"
        + (
            f": video {number(edit.get('video_sub')):.2f}, audio {number(edit.get('audio_sub')):.2f}"
            if "video_sub" in edit
            else ""
        )
        + (f" ({edit['error']})" if edit.get("error") else "")
    ]
    out["worst chunks"] = [
        f"{number(c.get('start_s')):g}-{number(c.get('end_s')):g} s: lowest similarity {chunk_floor(c):.3f} ("
        + ", ".join(f"{k} {v:.3f}" for k in CHUNK_SIGNALS if isinstance(v := c.get(k), (int, float)))
        + ")"
        for c in sorted(edit.get("chunks") or [], key=chunk_floor)[:WORST_CHUNKS]
    ]
    return {k: v for k, v in out.items() if v}


def _report_lines(r: Result) -> list[str]:
    """Which report.md lines the localisation rubric read, per slot, and the warnings about report.md."""
    parse = (r.extra or {}).get("localization_parse") or {}
    lines = [f"rule: {parse.get('rule')}"] if parse.get("rule") else []
    for slot in parse.get("slots") or []:
        if isinstance(slot, dict):
            where = ", ".join(f"line {n}" for n in slot.get("lines") or []) or "no lines"
            lines.append(
                f"{slot.get('label')} ({where}): "
                + (
                    f"window {slot.get('window')}"
                    if slot.get("window")
                    else f"ignored: {slot.get('problem')}"
                )
            )
    lines += [w for w in r.warnings if w.startswith("D-R9") or "report.md" in w]
    return lines or ["report.md was not read"]
