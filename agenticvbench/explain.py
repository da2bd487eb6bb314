"""Why a task lost points: the status, the headline and how it was computed, the warnings, and per family what cost
points (recap: failed and unscored items with their measured values; sequencing: misplaced clips; assembly: wrong
slots; repair: the rubric breakdown, the report.md lines read or ignored, the worst chunks).

Everything is read from a result file's components, detail, extra and official fields: nothing is rescored.
`explain_result` builds an `Explanation` (used by `avb explain`, `avb verify -v` and the reports);
`lost_points` is the short list the family-report notebook shows.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agenticvbench.results import Result
from agenticvbench.verifiers import headline_name

#: How many repair edit chunks the explanation lists (the lowest similarity first).
WORST_CHUNKS = 3


def repair_weights() -> dict[str, float]:
    """The repair rubric's points per part, from the verifier (final = (format + localization + edit) / 100).
    Imported on first use: the repair package loads PyAV, which `import agenticvbench.report` must not."""
    from agenticvbench.verifiers.repair.constants import EDIT_MAX
    from agenticvbench.verifiers.repair.format import FORMAT_MAX
    from agenticvbench.verifiers.repair.localize import LOC_MAX

    return {"format": FORMAT_MAX, "localization": LOC_MAX, "edit": EDIT_MAX}


def _num(value: Any, default: float = 0.0) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


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
    out = [f"nd_score {_num(c.get('nd_score')):.3f} x lis_score {_num(c.get('lis_score')):.3f} x adj_score "
           f"{_num(c.get('adj_score')):.3f} = adjusted {r.adjusted_final_score or 0:.3f}"]
    o = orders(r)
    if o:
        pred, true = o
        wrong = [f"{clip} at {i + 1} (belongs at {true.index(clip) + 1})" for i, clip in enumerate(pred)
                 if clip in true and true.index(clip) != i]
        unknown = [clip for clip in pred if clip not in true]
        if wrong:
            out.append("misplaced: " + ", ".join(wrong))
        if unknown:
            out.append("ids not in the true order (check the id format): " + ", ".join(unknown))
    return out


def _assembly(r: Result) -> list[str]:
    d = r.detail or {}
    picks, correct = d.get("picks") or [], d.get("correct") or []
    wrong = [f"slot {i + 1}: picked {p}, want {c}" for i, (p, c) in enumerate(zip(picks, correct, strict=False))
             if p != c]
    out = [f"{(r.components or {}).get('n_correct', '?')}/{len(correct)} slots right -> final "
           f"{r.final_score:.3f}, adjusted {r.adjusted_final_score or 0:.3f} (chance floor 1/3 removed)"]
    return out + wrong


#: A repair part that costs less than this many of the 100 points is not listed as lost (an edit of 0.9999994
#: would read "costs 0.0 of 100 points").
MIN_LOST_POINTS = 0.05


def _repair(r: Result) -> list[str]:
    c = r.components or {}
    lost = [f"{k}: {_num(c.get(k)):.3f} of 1 (costs {w * (1 - _num(c.get(k))):.1f} of 100 points)"
            for k, w in repair_weights().items() if w * (1 - _num(c.get(k))) >= MIN_LOST_POINTS]
    for k in repair_weights():
        sub = (r.detail or {}).get(k)
        err = sub.get("error") if isinstance(sub, dict) else None
        if err:
            lost.append(f"{k} error: {err}")
    return lost


def recap_items(r: Result) -> list[dict[str, Any]]:
    """The recap item table: id, pillar, weight, outcome (pass/fail/unscored/...), measured value or verdict."""
    items = (r.detail or {}).get("items") or (r.official or {}).get("items") or []
    rows = []
    for it in items:
        if not isinstance(it, dict):
            continue
        outcome = it.get("outcome") or ("pass" if it.get("passed") else "fail")
        pillar = it.get("pillar_name", it.get("pillar"))
        rows.append({"item_id": str(it.get("item_id", "?")), "pillar": "" if pillar is None else pillar,
                     "dispatch": it.get("dispatch"), "weight": _num(it.get("weight")), "outcome": str(outcome),
                     "reason": str(it.get("reason", ""))})
    return rows


def _recap(r: Result) -> list[str]:
    out = []
    for it in recap_items(r):
        w = it["weight"]
        if it["outcome"] == "fail" and w != 0:
            what = "lost" if w > 0 else "deducted"
            out.append(f"{it['item_id']} ({what} {abs(w):g}): {it['reason']}")
        elif it["outcome"] not in ("pass", "fail"):
            out.append(f"{it['item_id']} ({it['outcome']}, weight {w:g}): {it['reason']}")
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


def judge_usage(results: list[Result]) -> dict[str, Any]:
    """Judge calls, tokens and cost summed over recap items (cost None when no item reported one)."""
    calls = prompt = completion = 0
    cost: float | None = None
    for r in results:
        for it in (r.detail or {}).get("items") or []:
            j = it.get("judge") if isinstance(it, dict) else None
            if not isinstance(j, dict):
                continue
            calls += int(_num(j.get("attempts")))
            prompt += int(_num(j.get("prompt_tokens")))
            completion += int(_num(j.get("completion_tokens")))
            if isinstance(j.get("cost_usd"), (int, float)):
                cost = (cost or 0.0) + float(j["cost_usd"])
    return {"calls": calls, "prompt_tokens": prompt, "completion_tokens": completion, "cost_usd": cost}


def unscored_reasons(results: list[Result]) -> dict[str, int]:
    """Why recap items were left unscored, with counts (most frequent first)."""
    counts: dict[str, int] = {}
    for r in results:
        for it in recap_items(r):
            if it["outcome"] == "unscored":
                counts[it["reason"] or "no reason given"] = counts.get(it["reason"] or "no reason given", 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _computation(r: Result) -> str:
    c, fam = r.components or {}, r.family
    if r.status != "scored":
        how = "left out of the means" if r.status == "excluded" else "counts 0"
        return f"{r.status}: {how} ({r.reason or 'no reason given'})"
    if fam == "sequencing":
        return (f"adjusted_final_score = nd {_num(c.get('nd_score')):.4f} x lis {_num(c.get('lis_score')):.4f} x "
                f"adj {_num(c.get('adj_score')):.4f} = {r.adjusted_final_score or 0:.4f} (legacy final_score = "
                f"0.4 nd + 0.3 lis + 0.3 adj = {r.final_score:.4f})")
    if fam == "assembly":
        n = len((r.detail or {}).get("correct") or []) or "?"
        return (f"final_score = {c.get('n_correct', '?')}/{n} slots right = {r.final_score:.4f}; "
                f"adjusted_final_score = max(0, (final - 1/3) / (2/3)) = {r.adjusted_final_score or 0:.4f}")
    if fam == "repair":
        parts = [f"{k} {_num(c.get(k)) * w:.2f}/{w:g}" for k, w in repair_weights().items()]
        return f"final_score = ({' + '.join(parts)}) / 100 = {r.final_score:.4f}"
    if fam == "recap":
        un = int(_num(c.get("unscored")))
        return (f"final_score = clamp((earned {_num(c.get('earned')):g} - deductions {_num(c.get('deductions')):g}) / "
                f"total_positive {_num(c.get('total_positive')):g}, 0, 1) = {r.final_score:.4f} over "
                f"{int(_num(c.get('n_items'))) - un} of {int(_num(c.get('n_items')))} items"
                + (f" ({un} llm item(s) unscored, excluded)" if un else ""))
    return f"headline_score = {r.headline_score:.4f}"


def _sub(d: dict[str, Any], key: str) -> dict[str, Any]:
    value = d.get(key)
    return value if isinstance(value, dict) else {}


def _repair_sections(r: Result) -> dict[str, list[str]]:
    d = r.detail or {}
    out: dict[str, list[str]] = {}
    fmt = _sub(d, "format")
    bad = [f"{k}: fixed {v.get('fixed')!r} vs source {v.get('source')!r}"
           for k, v in (fmt.get("items") or {}).items() if isinstance(v, dict) and not v.get("pass")]
    out["format"] = [f"{_num(fmt.get('score')):.2f}/{_num(fmt.get('max'), repair_weights()['format']):g} "
                     f"({fmt.get('n_passed', '?')}/{fmt.get('n_items', '?')} checks pass)", *bad]
    loc = _sub(d, "localization")
    out["localization"] = [f"{_num(loc.get('score')):.2f}/{_num(loc.get('max'), repair_weights()['localization']):g}: {loc.get('rationale', '')}"]
    out["localization"] += [f"{k}: {_num(loc.get(f'{k}_sub')):.2f}/{_num(loc.get(f'{k}_max')):g}"
                            for k in ("scene_hit", "start", "end", "iou") if f"{k}_max" in loc]
    parse = (r.extra or {}).get("localization_parse") or {}
    lines = [f"rule: {parse.get('rule')}"] if parse.get("rule") else []
    for slot in parse.get("slots") or []:
        if isinstance(slot, dict):
            where = ", ".join(f"line {n}" for n in slot.get("lines") or []) or "no lines"
            lines.append(f"{slot.get('label')} ({where}): "
                         + (f"window {slot.get('window')}" if slot.get("window") else f"ignored: {slot.get('problem')}"))
    lines += [w for w in r.warnings if w.startswith("D-R9") or "report.md" in w]
    out["report.md lines"] = lines or ["report.md was not read"]
    edit = _sub(d, "edit")
    out["edit"] = [f"{_num(edit.get('score')):.2f}/{_num(edit.get('max'), repair_weights()['edit']):g}"
                   + (f": video {_num(edit.get('video_sub')):.2f}, audio {_num(edit.get('audio_sub')):.2f}"
                      if "video_sub" in edit else "") + (f" ({edit['error']})" if edit.get("error") else "")]
    chunks = [c for c in edit.get("chunks") or [] if isinstance(c, dict)]

    def worst(c: dict[str, Any]) -> float:
        vals = [c.get(k) for k in ("video_ssim_in", "video_ssim_out", "audio_xcorr_in", "audio_xcorr_out")]
        return min([float(v) for v in vals if isinstance(v, (int, float))] or [1.0])

    out["worst chunks"] = [
        f"{_num(c.get('start_s')):g}-{_num(c.get('end_s')):g} s: lowest similarity {worst(c):.3f} ("
        + ", ".join(f"{k} {c[k]:.3f}" for k in ("video_ssim_in", "video_ssim_out", "audio_xcorr_in",
                                                 "audio_xcorr_out") if isinstance(c.get(k), (int, float))) + ")"
        for c in sorted(chunks, key=worst)[:WORST_CHUNKS]]
    return {k: v for k, v in out.items() if v}


@dataclass
class Explanation:
    """Everything `avb explain` shows for one (run, task) result."""

    run: str
    task_id: int
    family: str
    status: str
    headline: float
    headline_field: str
    computation: str
    reason: str
    lost: list[str]
    sections: dict[str, list[str]] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)
    judge: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`avb explain --json`)."""
        return asdict(self)

    def one_line(self) -> str:
        """`avb verify -v`: status, task, headline and the first things that lost points, on one line."""
        head = f"[{self.status}] {self.family} {self.task_id} {self.headline:.4f}"
        if self.status != "scored":
            return f"{head}: {self.reason or 'no reason given'}"
        what = self.lost if self.family != "sequencing" else self.lost[1:] or self.lost[:1]
        ids = sorted({w.split(":", 1)[0] for w in self.warnings if w[:2] in ("D-", "d-")})
        tail = clip_words("; ".join(what), 200, f" … (more: avb explain RUN {self.task_id})") or "nothing lost"
        extra = (f" [warnings {', '.join(ids)}]" if ids else "") + \
            (f" [integrity {', '.join(self.integrity)}]" if self.integrity else "")
        return f"{head}: {tail}{extra}"

    def to_text(self) -> str:
        """Human-readable, one block."""
        lines = [f"run {self.run}, task {self.task_id} ({self.family}): {self.status}, "
                 f"{self.headline_field} {self.headline:.4f}", f"  how: {self.computation}"]
        if self.reason:
            lines.append(f"  reason: {self.reason}")
        if self.integrity:
            lines.append(f"  integrity flags (not comparable): {', '.join(self.integrity)}")
        lines.append("  lost points:" if self.lost else "  lost points: none")
        lines += [f"    - {x}" for x in self.lost]
        for name, body in self.sections.items():
            lines.append(f"  {name}:")
            lines += [f"    - {x}" for x in body]
        if self.items:
            lines.append("  items:")
            lines += [f"    {it['outcome']:<9} {it['item_id']:<24} w {it['weight']:>5g}  {it['reason']}"
                      for it in self.items]
        if self.judge.get("calls") or self.judge.get("prompt_tokens"):
            j = self.judge
            lines.append(f"  judge: {j['calls']} call(s), {j['prompt_tokens']} prompt + {j['completion_tokens']} "
                         f"completion tokens" + (f", ${j['cost_usd']:.4f}" if j.get("cost_usd") is not None else ""))
        lines.append("  warnings:" if self.warnings else "  warnings: none")
        lines += [f"    - {w}" for w in self.warnings]
        return "\n".join(lines)


def clip_words(text: str, limit: int, more: str) -> str:
    """`text` if it fits in `limit` characters, else cut at the last word boundary before it, plus `more`."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ;,") + more


def explain_result(result: Result) -> Explanation:
    """The explanation of one result (see the module docstring for what each family shows)."""
    from agenticvbench.aggregate import integrity_of, run_ref

    fn = _BY_FAMILY.get(result.family)
    lost = (fn(result) if fn else []) if result.status == "scored" else [f"{result.status}: " + (
        "left out of the means" if result.status == "excluded" else "counts 0")]
    sections = _repair_sections(result) if result.family == "repair" and result.status == "scored" else {}
    return Explanation(
        run=run_ref(result).short, task_id=int(result.task_id), family=result.family, status=result.status,
        headline=float(result.headline_score), headline_field=headline_name(result.family),
        computation=_computation(result), reason=result.reason, lost=lost, sections=sections,
        items=recap_items(result) if result.family == "recap" else [], warnings=list(result.warnings),
        integrity=integrity_of(result), judge=judge_usage([result]) if result.family == "recap" else {})


def explain_table(results: list[Result]) -> list[dict[str, Any]]:
    """One row per result: run, task, status, headline and the lost-points lines joined (for a DataFrame)."""
    from agenticvbench.aggregate import run_ref

    return [{"task_id": r.task_id, "run": run_ref(r).short, "status": r.status, "headline": r.headline_score,
             "why": "; ".join(lost_points(r))} for r in results]
