"""The shape of a repair result's `detail`: what the three rubrics report, as the official scorer's JSON has it.

`RepairDetail` is written by `verifier.score_repair` (and its zero, missing and failed paths) and read by the
family's explanation (`repair/explain.py`) and the report's chunk plot. Every key the official JSON can carry is
listed; the classes are `total=False` because the error paths write only `score`, `max` and `error` (plus
`chunk_errors` when every edit chunk failed). Kept free of heavy imports, like `constants.py`, so reports can read
a result without loading PyAV.

`as_repair_detail` is the one reader for a stored result: a result file may be hand-edited, so a part that is not
a mapping reads as empty instead of raising.
"""

from __future__ import annotations

from typing import Any, TypedDict, cast

#: One format item: does the fixed file's value match the source's (within the tolerance)? ("pass" is a Python
#: keyword, hence the functional form.)
FormatItem = TypedDict("FormatItem", {"pass": bool, "fixed": Any, "source": Any})


class FormatDetail(TypedDict, total=False):
    """`detail["format"]`: 7 items, 5 points shared equally among those that pass."""

    score: float
    max: float
    n_passed: int
    n_items: int
    items: dict[str, FormatItem]
    tolerances: dict[str, float]
    error: str


class LocalizationDetail(TypedDict, total=False):
    """`detail["localization"]`: the reported window against the truth window (35 points: scene hit 5, start 10,
    end 10, IoU 10); the description judge is vestigial upstream and always scores 0 of 0."""

    score: float
    max: float
    window_sub: float
    window_max: float
    description_sub: float
    description_max: float
    predicted_window_s: list[float] | None
    truth_window_s: list[float] | None
    iou: float
    iou_sub: float
    iou_max: float
    scene_hit: bool
    scene_hit_sub: float
    scene_hit_max: float
    start_delta_s: float | None
    end_delta_s: float | None
    start_sub: float
    start_max: float
    end_sub: float
    end_max: float
    description: dict[str, Any]
    rationale: str
    windows: list[dict[str, Any]]  # multi-region variants: one entry per truth region, its best prediction
    n_predicted: int
    n_truth: int
    error: str


class EditChunk(TypedDict, total=False):
    """One 10-second chunk of the edit rubric: similarity to the source inside and outside the defect window."""

    start_s: float
    end_s: float
    duration_s: float
    n_video_in: int
    n_video_out: int
    video_ssim_in: float | None
    video_ssim_out: float | None
    video_lag_in_frames: float | None
    video_lag_out_frames: float | None
    audio_xcorr_in: float | None
    audio_xcorr_out: float | None
    audio_peak_norm_in: float | None
    audio_peak_norm_out: float | None
    audio_peak_lag_ms_in: float | None
    audio_peak_lag_ms_out: float | None
    audio_dur_in: float
    audio_dur_out: float


class EditDetail(TypedDict, total=False):
    """`detail["edit"]`: 60 points, video and audio budgets each losing points for low similarity to the source."""

    score: float
    max: float
    window_s: list[float] | None
    video: dict[str, Any]
    audio: dict[str, Any]
    video_sub: float
    audio_sub: float
    video_ssim_mean: float | None
    audio_xcorr_peak: float | None
    scoring: dict[str, Any]
    chunks: list[EditChunk]
    engine: dict[str, Any]
    chunk_errors: list[str]
    cache_error: str
    error: str


class RepairDetail(TypedDict):
    """A repair result's `detail`: one entry per rubric, in the order the official JSON lists them."""

    format: FormatDetail
    localization: LocalizationDetail
    edit: EditDetail


#: The similarity signals of a chunk, in the order the explanation lists them.
CHUNK_SIGNALS = ("video_ssim_in", "video_ssim_out", "audio_xcorr_in", "audio_xcorr_out")


def as_repair_detail(detail: Any) -> RepairDetail:
    """A stored result's detail read as `RepairDetail`: a missing or non-mapping part reads as an empty one, and
    a chunk that is not a mapping is dropped (the file may be hand-edited; nothing here raises)."""
    d = detail if isinstance(detail, dict) else {}
    parts = {
        k: dict(p) if isinstance(p := d.get(k), dict) else {} for k in ("format", "localization", "edit")
    }
    edit = parts["edit"]
    if "chunks" in edit:
        chunks = edit["chunks"]
        edit["chunks"] = [c for c in chunks if isinstance(c, dict)] if isinstance(chunks, list) else []
    return cast(RepairDetail, parts)
