"""The repair format rubric (5 points): 7 container/stream items of fixed.mp4 against the real source file.

Both files are probed once with `agenticvbench.media.probe` (PyAV, ffprobe vocabulary); the first video and the
first audio stream are compared. The comparison is against the source *file*, never the profile.
Tolerances come from `ground_truth/repair/format_config.json`: `default`, overridden per source file stem (D-R13).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from agenticvbench.dataset.tasks import GROUND_TRUTH_DIR
from agenticvbench.errors import MediaError
from agenticvbench.media import ProbeResult, probe
from agenticvbench.verifiers.repair.constants import FORMAT_MAX
from agenticvbench.verifiers.repair.detail import FormatDetail, FormatItem

ITEMS: tuple[str, ...] = (
    "container",
    "video_codec",
    "audio_codec",
    "fps",
    "resolution",
    "duration_s",
    "audio_sample_rate",
)
FORMAT_CONFIG = GROUND_TRUTH_DIR / "format_config.json"


@lru_cache(maxsize=1)
def _config() -> dict[str, Any]:
    with open(FORMAT_CONFIG, encoding="utf-8") as fh:
        return json.load(fh)["tolerances"]


def tolerances(source_stem: str) -> dict[str, float]:
    """The tolerances for a source: `default`, updated by `per_source[<source file stem>]` (D-R13)."""
    cfg = _config()
    return {**cfg["default"], **(cfg.get("per_source") or {}).get(source_stem, {})}


def format_values(pr: ProbeResult) -> dict[str, Any]:
    """The 7 compared values of one probed file (None where the stream or field is absent)."""
    v, a = pr.video, pr.audio
    return {
        "container": pr.format_name,
        "video_codec": v.codec_name if v else None,
        "audio_codec": a.codec_name if a else None,
        "fps": v.fps if v else None,  # avg_frame_rate, falling back to r_frame_rate when 0/0 or missing
        "resolution": [v.width, v.height] if v and v.width is not None and v.height is not None else None,
        "duration_s": pr.duration,
        "audio_sample_rate": int(a.sample_rate) if a and a.sample_rate is not None else None,
    }


def _passes(item: str, fixed: Any, source: Any, tol: dict[str, float]) -> bool:
    if fixed is None or source is None:
        return False
    if item in tol:
        return abs(float(fixed) - float(source)) <= tol[item]
    return bool(fixed == source)


@dataclass
class FormatResult:
    """The format score (0..5), the official `detail.format` dict, and the fixed file's probe (if any)."""

    score: float
    detail: FormatDetail
    fixed_probe: ProbeResult | None = None
    warnings: list[str] = field(default_factory=list)


def _zero(error: str, tol: dict[str, float], fixed_probe: ProbeResult | None = None) -> FormatResult:
    return FormatResult(
        0.0,
        {
            "score": 0.0,
            "max": FORMAT_MAX,
            "n_passed": 0,
            "n_items": len(ITEMS),
            "items": {k: {"pass": False, "fixed": None, "source": None} for k in ITEMS},
            "tolerances": tol,
            "error": error,
        },
        fixed_probe,
    )


def score_format(fixed_mp4: Path | None, source_mp4: Path | None) -> FormatResult:
    """Score the 7 format items; a missing fixed.mp4, or a file that cannot be probed, fails every item."""
    tol = tolerances(source_mp4.stem if source_mp4 is not None else "")
    if fixed_mp4 is None or not fixed_mp4.is_file():
        return _zero("missing fixed.mp4", tol)
    try:
        fixed_pr = probe(fixed_mp4)
    except MediaError as exc:
        return _zero(f"cannot probe fixed.mp4: {exc}", tol)
    if source_mp4 is None or not source_mp4.is_file():
        return _zero("missing source.mp4", tol, fixed_pr)
    try:
        source_pr = probe(source_mp4)
    except MediaError as exc:
        return _zero(f"cannot probe source: {exc}", tol, fixed_pr)
    fv, sv = format_values(fixed_pr), format_values(source_pr)
    items: dict[str, FormatItem] = {
        k: {"pass": _passes(k, fv[k], sv[k], tol), "fixed": fv[k], "source": sv[k]} for k in ITEMS
    }
    passed = sum(1 for it in items.values() if it["pass"])
    score = FORMAT_MAX * passed / len(ITEMS)
    detail: FormatDetail = {
        "score": score,
        "max": FORMAT_MAX,
        "n_passed": passed,
        "n_items": len(ITEMS),
        "items": items,
        "tolerances": tol,
    }
    return FormatResult(score, detail, fixed_pr)
