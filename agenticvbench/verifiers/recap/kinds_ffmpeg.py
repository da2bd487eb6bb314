"""ffmpeg-filter recap kinds: volume, black runs, freeze runs, brightness, decode errors, LUFS."""

from __future__ import annotations

import math
from typing import Any

from agenticvbench.media.filters import Run
from agenticvbench.verifiers.recap.kind_registry import KindResult, ParamError, fmt, kind, num, req
from agenticvbench.verifiers.recap.media_facts import DEFAULT_PIX_TH, MediaFacts


@kind("ffmpeg_audio_loudness_min")
def audio_loudness_min(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """volumedetect's mean_volume is strictly above `threshold_db`; no measurement (no audio) fails."""
    thr = num(req(params, "threshold_db"), "threshold_db")
    vol = facts.volume()
    if vol is None:
        return KindResult(False, "no mean_volume measured (no audio?)")
    return KindResult(
        vol.mean_volume > thr, f"mean volume {fmt(vol.mean_volume, ' dB')} (must be > {fmt(thr)} dB)"
    )


def _cutoff(facts: MediaFacts, params: dict[str, Any]) -> float:
    exclude = num(params.get("exclude_last_seconds", 0), "exclude_last_seconds")
    duration = facts.probe().duration
    return math.inf if duration is None else duration - exclude


def _longest(runs: list[Run]) -> str:
    if not runs:
        return "none"
    r = max(runs, key=lambda r: r.duration or 0.0)
    return f"{fmt(r.duration, 's')} at {fmt(r.start)}-{fmt(r.end)} s"


@kind(
    "ffmpeg_blackdetect_max_run",
    needs=lambda params: (
        {("blackfreeze",)} if num(params.get("pix_th", DEFAULT_PIX_TH), "pix_th") == DEFAULT_PIX_TH else set()
    ),
)
def blackdetect_max_run(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """No black run (blackdetect d=max/2, pix_th) ending by duration - exclude_last_seconds lasts > max_seconds.

    Runs are detected once per pix_th with d=0 (see `agenticvbench.media.filters.video_pass`):
    every run longer than max_seconds is also at least d = max_seconds/2 long, so the verdict is the official one.
    """
    limit = num(req(params, "max_seconds"), "max_seconds")
    pix_th = num(params.get("pix_th", DEFAULT_PIX_TH), "pix_th")
    cutoff = _cutoff(facts, params)
    runs = [r for r in facts.black_runs(pix_th) if r.end is not None and r.end <= cutoff]
    bad = [r for r in runs if (r.duration or 0.0) > limit]
    return KindResult(
        not bad,
        f"longest black run {_longest(runs)} (max {fmt(limit)} s, pix_th {fmt(pix_th)}, "
        f"runs ending after {fmt(cutoff)} s ignored)",
    )


@kind("ffmpeg_freeze_max_run", needs={("blackfreeze",)})
def freeze_max_run(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """No ended freeze (freezedetect n=0.003, d=max/2) ending by the cutoff lasts > max_seconds.

    Kept quirk (official): a freeze that runs to the end of the file has no freeze_end, so it is never counted.
    """
    limit = num(req(params, "max_seconds"), "max_seconds")
    cutoff = _cutoff(facts, params)
    runs = facts.freeze_runs()
    ended = [r for r in runs if r.end is not None and r.end <= cutoff]
    bad = [r for r in ended if (r.duration or 0.0) > limit]
    open_note = "; a freeze running to end of file is not counted" if any(r.end is None for r in runs) else ""
    return KindResult(
        not bad,
        f"longest freeze {_longest(ended)} (max {fmt(limit)} s, runs ending after "
        f"{fmt(cutoff)} s ignored{open_note})",
    )


@kind("ffmpeg_brightness_at_times")
def brightness_at_times(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """At least `min_passing` (default: all) of the frames at `times` have mean luma YAVG > `min_brightness`.

    Fixed upstream defect ("brightness kind"): the official command never saw a YAVG value and always failed.
    We measure it: the first frame at or after each time, signalstats YAVG on the 0-255 scale.
    """
    raw_times = req(params, "times")
    if isinstance(raw_times, (int, float, str)):
        raw_times = [raw_times]
    try:
        times = [num(t, "times") for t in raw_times]
    except TypeError:
        raise ParamError(f"parameter 'times' must be a list of seconds, got {raw_times!r}") from None
    thr = num(req(params, "min_brightness"), "min_brightness")
    need = num(params.get("min_passing", len(times)), "min_passing")
    values = [(t, facts.luma_at(t)) for t in times]
    passing = sum(1 for _t, y in values if y is not None and y > thr)
    shown = ", ".join(f"{fmt(t)}s={fmt(y)}" for t, y in values)
    return KindResult(
        passing >= need, f"YAVG {shown}; {passing}/{len(times)} above {fmt(thr)} (need {fmt(need)})"
    )


@kind("ffmpeg_decode_no_errors", needs={("decode",)})
def decode_no_errors(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """`ffmpeg -v error -i F -f null -` writes nothing to stderr."""
    log = facts.decode_errors()
    if not log:
        return KindResult(True, "decoded without errors")
    lines = log.splitlines()
    head = " | ".join(lines[:3])[:300]
    return KindResult(False, f"{len(lines)} decode error line(s): {head}")


@kind("ffmpeg_loudness_lufs_range")
def loudness_lufs_range(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """loudnorm's integrated loudness (input_i) lies in [min (-1e9), max (1e9)]."""
    lo, hi = num(params.get("min", -1e9), "min"), num(params.get("max", 1e9), "max")
    stats = facts.loudnorm()
    if stats is None or "input_i" not in stats:
        return KindResult(False, "no loudnorm measurement (no audio?)")
    try:
        lufs = float(stats["input_i"])
    except (TypeError, ValueError):
        return KindResult(False, f"unparsable input_i {stats['input_i']!r}")
    return KindResult(
        lo <= lufs <= hi, f"integrated loudness {fmt(lufs, ' LUFS')} (range {fmt(lo)} to {fmt(hi)})"
    )
