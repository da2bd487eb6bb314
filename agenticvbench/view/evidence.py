"""The evidence a task page draws, per family, read from the result file (nothing is rescored).

Every builder takes the page's `Disclosure` (`view.disclosure`): without `answers` a page keeps what the agent
made and the scores, and drops the correct order, the gold defect window, the expected clip per slot and anything
derived from them (the misplaced marks, the per-slot right/wrong); without `solved_outputs` it also drops what the
run submitted for a task it solved exactly; without `rubric` the recap items show their outcome only; without
`verifier_derived` the repair timeline does not split its series by the gold window.

`FAMILY_VIEWS` is the one table of what the viewer does per family: the builder of its evidence, whether a bundle
may show its explanation's lost lines, and why a bundle never holds its output videos. The table lives here, not
in the verifier registry, because everything in it is about rendering and publishing pages (thumbnails, timeline
geometry, what a public bundle may reveal), which `verifiers/` must not import; `task_page_evidence` and the pages
look a family up in it instead of branching on its name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.results.model import Result
from agenticvbench.view.disclosure import Disclosure
from agenticvbench.view.model import ViewModel
from agenticvbench.view.thumbs import Thumbnailer, video_duration

TIMELINE_W, TIMELINE_H, TIMELINE_PAD = 720, 150, 30
MAX_ITEM_FRAMES = 6
CONTACT_FRAMES = 8
_AT_TIMES = re.compile(r"\bat ([0-9]+(?:\.[0-9]+)?)(?:\s*-\s*([0-9]+(?:\.[0-9]+)?))? ?s\b")
SERIES = (  # (chunk keys, label, CSS class)
    (("video_ssim_out",), "video SSIM outside the window", "v-out"),
    (("video_ssim_in",), "video SSIM inside the window", "v-in"),
    (("audio_xcorr_out",), "audio xcorr outside the window", "a-out"),
    (("audio_xcorr_in",), "audio xcorr inside the window", "a-in"),
)
#: The series of a page that may not reveal the gold window: a chunk's signal whichever side it falls on.
MERGED_SERIES = (
    (("video_ssim_out", "video_ssim_in"), "video SSIM per chunk", "v-out"),
    (("audio_xcorr_out", "audio_xcorr_in"), "audio xcorr per chunk", "a-out"),
)


@dataclass
class Thumb:
    """A frame thumbnail: its cached name (None when no frame could be made), the time and a caption."""

    name: str | None
    t: float
    caption: str = ""
    mark: str = ""  # a CSS class: "bad" for a misplaced clip, "good" for a right one


@dataclass(kw_only=True)
class Evidence:
    """What one task page draws besides the players (all optional; the template shows what is set)."""

    kind: str
    items: list[dict[str, Any]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    strips: list[tuple[str, list[Thumb]]] = field(default_factory=list)
    metrics: list[tuple[str, str]] = field(default_factory=list)
    timeline: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and x == x else None


def _strs(value: Any) -> list[str]:
    """A list of clip ids as text; [] for anything that is not a list (a result file is read as found)."""
    return [str(v) for v in value] if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _metrics(result: Result, keys: tuple[str, ...], spec: str) -> list[tuple[str, str]]:
    """The official metrics among `keys` that the result holds as numbers, formatted with `spec`."""
    official = _dict(result.official)
    return [(k, format(v, spec)) for k in keys if (v := _num(official.get(k))) is not None]


def _window(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        a, b = _num(value[0]), _num(value[1])
        if a is not None and b is not None and b >= a:
            return a, b
    return None


def item_times(reason: str) -> list[float]:
    """The times (seconds) a recap check's reason names ("longest black run 2s at 4-6 s" -> [4.0, 6.0])."""
    return [float(g) for m in _AT_TIMES.finditer(reason) for g in m.groups() if g is not None][
        :MAX_ITEM_FRAMES
    ]


def _clip_files(model: ViewModel, task_id: int) -> dict[str, Path]:
    """Clip id -> input file, by file name and by stem ("3.mp4" and "3")."""
    out: dict[str, Path] = {}
    for name, i in model.inputs(task_id):
        out.setdefault(name, model.files[i].path)
        out.setdefault(Path(name).stem, model.files[i].path)
    return out


def _clip_thumb(thumbs: Thumbnailer, files: dict[str, Path], clip: str, mark: str = "") -> Thumb:
    path = files.get(clip)
    name = thumbs.frames(path, [0.3])[0] if path is not None else None
    return Thumb(name, 0.3, clip, mark)


def solved(result: Result) -> bool:
    """True when the run's submission is the task's answer: an exact order (`strict_match` 1), every slot right,
    or a headline of 1."""
    official = _dict(result.official)
    if _num(official.get("strict_match")) == 1.0:
        return True
    n, of = _num(official.get("n_correct")), _num(official.get("n_slots"))
    if n is not None and of and n == of:
        return True
    return result.status == "scored" and (_num(result.headline_score) or 0.0) >= 1.0 - 1e-9


def recap(
    result: Result, video: Path | None, thumbs: Thumbnailer, duration: float | None, policy: Disclosure
) -> Evidence:
    """Rubric items with weight, outcome, reason and evidence, each with the frames at the times it names
    (without `policy.rubric`: the item's number and outcome, and the frames)."""
    ev = Evidence(kind="recap")
    items = _dict(result.detail).get("items")
    for it in items if isinstance(items, list) else []:
        if not isinstance(it, dict):
            continue
        reason = str(it.get("reason", ""))
        times = item_times(reason)
        frames = thumbs.frames(video, times) if video is not None and times else [None] * len(times)
        evidence = _dict(it.get("evidence"))
        shown = policy.rubric
        ev.items.append(
            {
                "item_id": str(it.get("item_id", "")) if shown else f"item {len(ev.items) + 1}",
                "pillar": str(it.get("pillar_name", "")) if shown else "",
                "weight": _num(it.get("weight")) if shown else None,
                "outcome": str(it.get("outcome", "")),
                "reason": reason if shown else "",
                "evidence": [f"{k}: {v}" for k, v in evidence.items()] if shown else [],
                "frames": [Thumb(n, t, f"{t:g} s") for n, t in zip(frames, times, strict=True)],
            }
        )
    if video is not None and duration:
        times = [duration * (k + 0.5) / CONTACT_FRAMES for k in range(CONTACT_FRAMES)]
        names = thumbs.frames(video, times)
        ev.strips.append(
            (
                "the recap, frame by frame",
                [Thumb(n, t, f"{t:.1f} s") for n, t in zip(names, times, strict=True)],
            )
        )
    return ev


def sequencing(result: Result, model: ViewModel, thumbs: Thumbnailer, policy: Disclosure) -> Evidence:
    """Clips in the submitted order (misplaced ones marked) above the correct order; the official metrics."""
    ev = Evidence(kind="sequencing")
    detail = _dict(result.detail)
    pred, correct = _strs(detail.get("pred")), _strs(detail.get("correct"))
    files = _clip_files(model, result.task_id)
    rank = {c: i for i, c in enumerate(correct)}
    marks = ["good" if rank.get(c) == k else "bad" if policy.answers else "" for k, c in enumerate(pred)]
    if policy.solved_outputs or not solved(result):
        ev.strips.append(
            ("submitted order", [_clip_thumb(thumbs, files, c, m) for c, m in zip(pred, marks, strict=True)])
        )
    else:
        ev.notes.append(
            "the submitted order is withheld: the run solved this task exactly, so it is the answer"
        )
    if policy.answers:
        ev.strips.append(("correct order", [_clip_thumb(thumbs, files, c) for c in correct]))
        pairs = [
            (a, b)
            for i, a in enumerate(pred)
            for b in pred[i + 1 :]
            if a in rank and b in rank and rank[a] > rank[b]
        ]
        ev.notes.append(
            f"{len(pairs)} pair(s) in the other order than the correct one"
            + (": " + ", ".join(f"{a} before {b}" for a, b in pairs[:30]) if pairs else "")
        )
    keys = ("nd_score", "lis_score", "adj_score", "strict_match", "adjusted_final_score", "final_score")
    ev.metrics = _metrics(result, keys, ".4f")
    return ev


def assembly(result: Result, model: ViewModel, thumbs: Thumbnailer, policy: Disclosure) -> Evidence:
    """The storyboard slots: the chosen clip per slot, and (not in a bundle) the expected one."""
    ev = Evidence(kind="assembly")
    detail = _dict(result.detail)
    picks = _strs(detail.get("picks")) if policy.solved_outputs or not solved(result) else []
    if not picks and _strs(detail.get("picks")):
        ev.notes.append(
            "the chosen clips are withheld: the run solved this task exactly, so they are the answer"
        )
    correct = _strs(detail.get("correct")) if policy.answers else []
    durations = _dict(result.extra).get("slot_durations")
    files = _clip_files(model, result.task_id)
    for k in range(max(len(picks), len(correct))):
        pick = picks[k] if k < len(picks) else ""
        want = correct[k] if k < len(correct) else ""
        mark = ("good" if pick == want else "bad") if policy.answers else ""
        dur = durations[k] if isinstance(durations, list) and k < len(durations) else {}
        ev.rows.append(
            {
                "slot": k + 1,
                "chosen": _clip_thumb(thumbs, files, pick, mark) if pick else None,
                "expected": _clip_thumb(thumbs, files, want) if want else None,
                "got_s": _num(dur.get("got_s")) if isinstance(dur, dict) else None,
            }
        )
    ev.metrics = _metrics(result, ("n_correct", "n_slots", "final_score", "adjusted_final_score"), "g")
    return ev


def repair(result: Result, policy: Disclosure) -> Evidence:
    """The per-chunk similarity as a timeline with the predicted (and, with `answers`, the gold) defect window;
    without `verifier_derived` each signal is one series (split by the gold window, it would locate the answer)."""
    ev = Evidence(kind="repair")
    detail = _dict(result.detail)
    edit, loc = _dict(detail.get("edit")), _dict(detail.get("localization"))
    raw_chunks = edit.get("chunks")
    chunks = [c for c in raw_chunks if isinstance(c, dict)] if isinstance(raw_chunks, list) else []
    pred = _window(loc.get("predicted_window_s"))
    gold = _window(loc.get("truth_window_s")) if policy.answers else None
    ends = [v for c in chunks if (v := _num(c.get("end_s"))) is not None]
    span = max([*ends, *(pred or ()), *(gold or ()), 1.0])
    w, h, pad = TIMELINE_W, TIMELINE_H, TIMELINE_PAD

    def x(t: float) -> float:
        return round(pad + (w - 2 * pad) * t / span, 1)

    def y(v: float) -> float:
        return round(h - pad - (h - 2 * pad) * max(0.0, min(1.0, v)), 1)

    series = SERIES if policy.verifier_derived else MERGED_SERIES
    lines = []
    for keys, label, css in series:
        for c in chunks:
            v = next((n for k in keys if (n := _num(c.get(k))) is not None), None)
            a, b = _num(c.get("start_s")), _num(c.get("end_s"))
            if v is not None and a is not None and b is not None:
                lines.append({"x1": x(a), "x2": x(b), "y": y(v), "css": css, "title": f"{label}: {v:.3f}"})
    bands = [
        {"x": x(win[0]), "w": max(1.0, x(win[1]) - x(win[0])), "css": css, "label": label}
        for win, css, label in ((pred, "pred", "predicted window"), (gold, "gold", "gold window"))
        if win
    ]
    ticks = [{"x": x(t), "label": f"{t:g}"} for t in _ticks(span)]
    ev.timeline = {
        "w": w,
        "h": h,
        "lines": lines,
        "bands": bands,
        "ticks": ticks,
        "y0": y(0),
        "y1": y(1),
        "x0": x(0),
        "xend": x(span),
        "legend": [(css, label) for _, label, css in series],
        "pred": pred,
        "gold": gold,
        "span": span,
    }
    ev.metrics = _metrics(result, ("format_score", "localization_score", "edit_score", "final_score"), ".4f")
    if not chunks:
        ev.notes.append("no per-chunk similarity in this result (the edit was not measured)")
    return ev


def _ticks(span: float) -> list[float]:
    step = next(s for s in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600, 1e9) if span / s <= 10)
    return [k * step for k in range(int(span // step) + 1)]


@dataclass(frozen=True)
class EvidenceInput:
    """What a family's evidence builder may read: the result, the view model, the thumbnailer, what the page may
    show (`view.disclosure`), and the task's first output video (None without one)."""

    result: Result
    model: ViewModel
    thumbs: Thumbnailer
    policy: Disclosure
    video: Path | None


@dataclass(frozen=True)
class FamilyView:
    """What the viewer does for one family (see the module docstring)."""

    build: Callable[[EvidenceInput], Evidence]
    #: A bundle may show the explanation's lost lines: they hold no answer (recap: the items' own reasons).
    public_lost: bool = False
    #: Why a bundle never holds the family's output videos; "" when it may.
    withheld: str = ""


FAMILY_VIEWS: dict[str, FamilyView] = {
    "recap": FamilyView(
        lambda x: recap(x.result, x.video, x.thumbs, video_duration(x.video) if x.video else None, x.policy),
        public_lost=True,
    ),
    "sequencing": FamilyView(lambda x: sequencing(x.result, x.model, x.thumbs, x.policy)),
    "assembly": FamilyView(lambda x: assembly(x.result, x.model, x.thumbs, x.policy)),
    # A good repair output reproduces the verifier-only source (a perfect one byte for byte, a stream-copied one
    # packet for packet).
    "repair": FamilyView(
        lambda x: repair(x.result, x.policy),
        withheld="a repair output reproduces the verifier-only source video (the better, the closer)",
    ),
}


def task_page_evidence(family: str, given: EvidenceInput) -> Evidence | None:
    """The evidence a task page of `family` draws; None for a family without a builder."""
    view = FAMILY_VIEWS.get(family)
    return view.build(given) if view is not None else None
