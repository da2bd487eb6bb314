"""The repair localisation rubric (35 points): the exact `report.md` grammar and scoring.

There is no LLM. The report is read line by line with the official grammar: `- start:` / `- end:` field lines
(first wins per key), numbered `- window_N_start:` lines and `## Diagnosis` blocks for the multi-region variants.
Only bare `H:MM:SS(.f)`, `M:SS(.f)` and `S(.f)` timestamps parse; anything else scores that window 0, and we say so
in a warning (D-R9). Each truth region earns 5 (scene hit) + 10 (start) + 10 (end) + 10 (IoU) points, scaled by
35/N over N regions; each region takes its best prediction.

Reading (`read_report`): exactly as the official scorer (`Path.read_text(encoding="utf-8", errors="replace")`, then
`str.splitlines()`): undecodable bytes become U+FFFD, `\\r\\n` / `\\r` become line ends, and a leading UTF-8
byte-order mark stays in the text (so a field on the first line does not match, as upstream). A report that is not
UTF-8 therefore still scores what its lines give; we add a warning naming the first bad byte and a guess at the
real encoding, and one for a byte-order mark.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import TooLargeError
from agenticvbench.pinned import read_submitted
from agenticvbench.submission import TEXT_MAX_BYTES as REPORT_MAX_BYTES
from agenticvbench.verifiers.repair.constants import LOC_MAX
from agenticvbench.verifiers.repair.detail import LocalizationDetail
from agenticvbench.verifiers.repair.profiles import CellSpec, TruthRegion

# Point split of one region's budget (scene hit, start, end, IoU), as fractions of 35; the decay rate of the
# start/end terms (points * e^(-3 * |delta seconds|)).
SPLIT: dict[str, float] = {"scene_hit": 5.0, "start": 10.0, "end": 10.0, "iou": 10.0}
DECAY_PER_S = 3.0
MAX_PREDICTIONS = 12
MAX_NEAR_MISS_WARNINGS = 3

_FIELD_RE = re.compile(r"^\s*-\s*(type|start|end)\s*:(.*)$", re.IGNORECASE)
_NUMBERED_RE = re.compile(r"^\s*-\s*window[_\- ]?(\d+)[_\- ]?(start|end)\s*:(.*)$", re.IGNORECASE)
_DIAG_RE = re.compile(r"^\s*##\s+Diagnosis\b", re.IGNORECASE)
_TS_RES = (
    re.compile(r"^([0-9]+):([0-9]+):([0-9]+(?:\.[0-9]+)?)$"),
    re.compile(r"^()([0-9]+):([0-9]+(?:\.[0-9]+)?)$"),
    re.compile(r"^()()([0-9]+(?:\.[0-9]+)?)$"),
)
# A line that probably meant to give a start/end time but that the grammar ignores (bold, `*` bullets, ...).
_NEAR_MISS_RE = re.compile(
    r"^[\s>*+\-#\d.)_`]*(?:window[\s_-]?\d+[\s_-]?)?(start|end)(?:[\s_-]?(?:time|ts|timestamp|s|sec))?"
    r"[*_`\s]*[:=][^\d\n]{0,8}\d",
    re.IGNORECASE,
)
_LOOSE_DIAG_RE = re.compile(r"^\s*#+\s*diagnosis", re.IGNORECASE)


def read_report(path: Path) -> tuple[str, list[str]]:
    """Read report.md as the official scorer does (UTF-8, undecodable bytes replaced); returns (text, warnings).

    Raises `OSError` when the file cannot be read or is over its size cap.
    """
    try:
        raw = read_submitted(path, REPORT_MAX_BYTES)  # the bytes hashed (pinned), else a bounded read
    except TooLargeError as exc:
        raise OSError(str(exc)) from None
    warnings: list[str] = []
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        guess = (
            "UTF-16 (byte-order mark)"
            if raw[:2] in (b"\xff\xfe", b"\xfe\xff")
            else "probably latin-1 / cp1252"
        )
        warnings.append(
            f"report.md is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}; "
            f"{guess}); undecodable bytes are replaced, as the official scorer does, so lines holding "
            "them may not match the report grammar"
        )
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        warnings.append(
            "report.md starts with a UTF-8 byte-order mark; the official scorer keeps it, so the first "
            "line does not match the report grammar (save the file without a BOM)"
        )
    if "\x00" in text:
        warnings.append(
            "report.md contains NUL bytes (UTF-16 without a byte-order mark?); read as UTF-8 as the "
            "official scorer does, so its lines do not match the report grammar"
        )
    return text, warnings


def parse_timestamp(value: str) -> float | None:
    """Parse `H:MM:SS(.f)`, `M:SS(.f)` or `S(.f)` (ASCII digits, no range check: `0:75` = 75 s); else None."""
    v = value.strip()
    for rx in _TS_RES:
        m = rx.match(v)
        if m:
            h, mi, s = m.groups()
            try:
                return (int(h) * 3600 if h else 0) + (int(mi) * 60 if mi else 0) + float(s)
            except ValueError:  # over Python's 4300-digit int limit: the official int() raises too
                return None
    return None


def _unparseable_hint(value: str) -> str:
    v = value.strip()
    if not v:
        return "the value is empty"
    if v.startswith("-"):
        return "negative values do not parse"
    if "`" in v:
        return "backticks do not parse"
    if re.fullmatch(r"[0-9]+:[0-9]+:[0-9]+:[0-9]+", v):
        return "frame codes HH:MM:SS:FF do not parse"
    if re.search(r"[0-9],[0-9]", v):
        return "comma decimals do not parse"
    if re.match(r"^[0-9:.]+\s*(?:s|sec|secs|seconds|ms)\b", v, re.IGNORECASE):
        return "unit suffixes do not parse"
    if re.match(r"^[0-9:.]+\s*\S", v):
        return "trailing notes after the time do not parse"
    return "only H:MM:SS(.f), M:SS(.f) or S(.f) parse"


@dataclass(frozen=True)
class FieldValue:
    """One `start`/`end` value found in the report, with where it came from."""

    line: int  # 1-based line number
    key: str
    raw: str

    @property
    def seconds(self) -> float | None:
        """The parsed timestamp, or None when the official grammar rejects it."""
        return parse_timestamp(self.raw)


@dataclass
class Slot:
    """One predicted window (a numbered pair, a Diagnosis block, or the whole-file pair)."""

    label: str
    start: FieldValue | None = None
    end: FieldValue | None = None

    @property
    def window(self) -> tuple[float, float] | None:
        """[start, end] in seconds when both parse and end > start; None makes the slot invalid."""
        s = self.start.seconds if self.start else None
        e = self.end.seconds if self.end else None
        return (s, e) if s is not None and e is not None and e > s else None

    def problem(self) -> str:
        """Why the slot is invalid ('' when valid), for the rationale."""
        for key, fv in (("start", self.start), ("end", self.end)):
            if fv is None:
                return f"no `{key}` line"
            if fv.seconds is None:
                return f"{key} {fv.raw!r} does not parse"
        return "" if self.window else "end <= start"


@dataclass
class ParsedReport:
    """Every grammar match in a report, before any variant-specific rule picks windows."""

    first: dict[str, FieldValue] = field(default_factory=dict)  # whole-file first start / end
    counts: dict[str, int] = field(default_factory=lambda: {"start": 0, "end": 0})
    numbered: dict[int, dict[str, FieldValue]] = field(default_factory=dict)
    blocks: list[dict[str, FieldValue]] = field(default_factory=list)
    near_misses: list[tuple[int, str]] = field(default_factory=list)
    near_headings: list[tuple[int, str]] = field(default_factory=list)  # `### Diagnosis`, `##Diagnosis`, ...


def parse_report(text: str) -> ParsedReport:
    """Apply the official line grammar to the whole report (first-wins per key everywhere)."""
    rep = ParsedReport()
    block: dict[str, FieldValue] | None = None
    for n, line in enumerate(text.splitlines(), start=1):
        if _DIAG_RE.match(line):
            block = {}
            rep.blocks.append(block)
            continue
        if line.startswith("## "):
            block = None
            continue
        m = _NUMBERED_RE.match(line)
        if m and len(m.group(1)) <= 9:  # a window number is small; a 5000-digit one would not even convert
            slot = rep.numbered.setdefault(int(m.group(1)), {})
            slot.setdefault(m.group(2).lower(), FieldValue(n, m.group(2).lower(), m.group(3).strip()))
            continue
        m = _FIELD_RE.match(line)
        if m:
            key = m.group(1).lower()
            if key == "type":
                continue
            fv = FieldValue(n, key, m.group(2).strip())
            rep.first.setdefault(key, fv)
            rep.counts[key] += 1
            if block is not None:
                block.setdefault(key, fv)
            continue
        if _NEAR_MISS_RE.match(line):
            rep.near_misses.append((n, line.strip()))
        elif _LOOSE_DIAG_RE.match(line):
            rep.near_headings.append((n, line.strip()))
    return rep


def predicted_slots(rep: ParsedReport, multi_region: bool) -> tuple[list[Slot], str]:
    """The prediction slots the official rules pick, and which rule picked them."""
    whole = [Slot("whole-file start/end", rep.first.get("start"), rep.first.get("end"))]
    if not multi_region:
        return whole, "first start/end in the file"
    if rep.numbered:
        return [
            Slot(f"window_{k}", v.get("start"), v.get("end"))
            for k, v in sorted(rep.numbered.items())[:MAX_PREDICTIONS]
        ], "numbered window lines"
    if len(rep.blocks) >= 2:
        return [
            Slot(f"Diagnosis block {i + 1}", b.get("start"), b.get("end"))
            for i, b in enumerate(rep.blocks[:MAX_PREDICTIONS])
        ], "one window per Diagnosis block"
    return whole, "first start/end in the file"


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


def _warnings(rep: ParsedReport, slots: list[Slot], multi: bool) -> list[str]:
    out: list[str] = []
    for slot in slots:
        for fv in (slot.start, slot.end):
            if fv is not None and fv.seconds is None:
                out.append(
                    f"D-R9: report.md line {fv.line}: {fv.key} value {fv.raw!r} is not a timestamp the "
                    f"official grammar accepts ({_unparseable_hint(fv.raw)}), so {slot.label} scores 0"
                )
    if not multi and rep.numbered and slots[0].window is None:
        out.append(
            "D-R9: report.md gives `- window_N_start/end:` lines, which the official scorer reads only for "
            "the multi-region variants (v03 swap, combined); this variant needs `- start:` / `- end:`"
        )
    if not multi:
        for key in ("start", "end"):
            if rep.counts[key] > 1:
                out.append(
                    f"D-R9: report.md has {rep.counts[key]} `- {key}:` lines; the official scorer reads "
                    f"only the first (line {rep.first[key].line}) for this single-window variant"
                )
    near = rep.near_misses + (rep.near_headings if multi and not rep.numbered else [])
    for n, text in sorted(near)[:MAX_NEAR_MISS_WARNINGS]:
        out.append(
            f"D-R9: report.md line {n}: {text[:80]!r} looks like a window line but does not match the "
            "official grammar (`- start: <time>`, `- window_N_start: <time>`, `## Diagnosis`), so it is "
            "ignored"
        )
    return out


# A line that names a time window under a key the grammar does not know (`- window: 4.0-5.5`, `- time range:`).
_LOOSE_WINDOW_RE = re.compile(
    r"^[\s>*+\-]*[*_`]*(?:defect[\s_-]*|fault[\s_-]*|time[\s_-]*)?(window|range|interval|span|segment|"
    r"time[\s_-]*range|timestamps?|times?|timecode|location|region)[*_`\s]*[:=]\s*(.*\d.*)$",
    re.IGNORECASE,
)
_RANGE_RE = re.compile(r"([0-9:.]+)\s*(?:s\b|sec\w*)?\s*(?:-|–|—|to|\.\.)\s*([0-9:.]+)")


def loose_window_warnings(text: str, rep: ParsedReport) -> list[str]:
    """Warnings for lines that look like a window but use a key the official grammar ignores, quoting the line
    and the accepted form (`- start: <time>` / `- end: <time>`); the score is unchanged (the lines stay ignored)."""
    seen = {n for n, _ in rep.near_misses}
    out: list[str] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if n in seen or _FIELD_RE.match(line) or _NUMBERED_RE.match(line):
            continue
        m = _LOOSE_WINDOW_RE.match(line)
        if not m:
            continue
        r = _RANGE_RE.search(m.group(2))
        form = (
            f"`- start: {r.group(1)}` and `- end: {r.group(2)}`"
            if r
            else "`- start: <time>` and `- end: <time>`"
        )
        out.append(
            f"D-R9: report.md line {n}: {line.strip()[:80]!r} looks like a time window, but the official "
            f"grammar ignores this key; write it as {form} (seconds, M:SS or H:MM:SS)"
        )
        if len(out) >= MAX_NEAR_MISS_WARNINGS:
            break
    return out


def score_localization(text: str, spec: CellSpec) -> LocalizationResult:
    """Score a report's text against the cell's truth regions (single- or multi-region rules by variant)."""
    if spec.localization_error:
        return zero_result(spec.localization_error, spec)
    rep = parse_report(text)
    slots, rule = predicted_slots(rep, spec.multi_region)
    preds = [(i, w) for i, w in ((i, s.window) for i, s in enumerate(slots)) if w is not None]
    warnings = _warnings(rep, slots, spec.multi_region) + loose_window_warnings(text, rep)
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
