"""What the repair scorer needs from a cell's `profile.json`, derived per variant.

One function, `derive(profile, variant)`, turns a profile into a `CellSpec`: the localisation truth regions with
their scene bounds, whether the variant is scored multi-region, and the edit parameters (source duration, the
in-window, budget shares and deduction weights). The per-variant edit overrides are data: the `scoring` block of
`ground_truth/repair/variants/<variant>.json`, filtered to the keys the official scorer honours.

Known upstream quirks that change numbers are reproduced and reported as warnings here, because they are visible
from the profile alone: D-R4 (v03 has no edit window) and D-R11 (broken-time windows applied to source time, and
a window ending past the source duration).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from agenticvbench.dataset.tasks import GROUND_TRUTH_DIR, load_cells
from agenticvbench.verifiers.repair.constants import MAX_DURATION_S

VARIANTS: tuple[str, ...] = (
    "v01_frozen_scene",
    "v03_scene_swap",
    "v04_color_grade_shift",
    "v05_noise_floor_spike",
    "v06_duplicate_segment",
    "v07_audio_video_desync",
    "_combined",
)
MULTI_REGION_VARIANTS: frozenset[str] = frozenset({"v03_scene_swap", "_combined"})
# Variants whose injection windows are expressed in the broken video's timeline (D-R11).
BROKEN_TIME_VARIANTS: frozenset[str] = frozenset({"v01_frozen_scene", "v06_duplicate_segment"})
# Edit defaults and the `task.json` scoring keys the official scorer honours that matter here.
EDIT_DEFAULTS: dict[str, float] = {"video_share": 0.6, "audio_share": 0.4, "w_in": 2.5, "w_out": 1.0}
EDIT_OVERRIDE_KEYS: frozenset[str] = frozenset(EDIT_DEFAULTS)
VARIANTS_DIR = GROUND_TRUTH_DIR / "variants"


class ProfileError(ValueError):
    """A profile lacks a field the scorer needs (the official scorer crashes or errors on it)."""

    def __init__(self, field_name: str, problem: str) -> None:
        self.field = field_name
        self.problem = problem
        super().__init__(f"profile field {field_name!r}: {problem}")


@dataclass(frozen=True)
class TruthRegion:
    """One localisation target: the truth window and the scene spans that earn `scene_hit`."""

    truth: tuple[float, float]
    scene_bounds: tuple[tuple[float, float], ...]
    labels: dict[str, str] = field(default_factory=dict)  # v03: group; _combined: variant, subtask


@dataclass(kw_only=True, frozen=True)
class EditParams:
    """Inputs of the edit rubric: source duration (drives chunking), in-window, shares and weights."""

    duration_s: float
    window: tuple[float, float] | None
    video_share: float
    audio_share: float
    w_in: float
    w_out: float
    overrides: dict[str, Any] = field(default_factory=dict)  # the variant's raw (whitelisted) scoring block


@dataclass(kw_only=True, frozen=True)
class CellSpec:
    """Everything the format-independent rubrics need for one cell."""

    variant: str
    multi_region: bool
    regions: tuple[TruthRegion, ...]
    edit: EditParams
    localization_error: str = ""  # set when the official localisation scores 0 for a profile reason
    warnings: tuple[str, ...] = ()


def _get(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise ProfileError(f"{where}.{key}", "missing")
    return obj[key]


def _num(obj: Any, key: str, where: str) -> float:
    value = _get(obj, key, where)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ProfileError(f"{where}.{key}", f"must be a finite number, got {value!r}")
    return float(value)


def _span(obj: Any, where: str) -> tuple[float, float]:
    return _num(obj, "start_s", where), _num(obj, "end_s", where)


def _scene(profile: dict[str, Any], index: Any, where: str) -> tuple[float, float]:
    """`narrative.scene_list[index]` as [start_s, end_s] (positional, as the official scorer indexes it)."""
    scenes = _get(_get(profile, "narrative", "profile"), "scene_list", "profile.narrative")
    if (
        isinstance(index, bool)
        or not isinstance(index, int)
        or not isinstance(scenes, list)
        or not -len(scenes) <= index < len(scenes)
    ):
        raise ProfileError(where, f"scene index {index!r} is not in narrative.scene_list")
    return _span(scenes[index], f"profile.narrative.scene_list[{index}]")


@cache
def _variant_scoring(variant: str) -> tuple[tuple[str, Any], ...]:
    path = VARIANTS_DIR / f"{variant}.json"
    if not path.is_file():  # `_combined` has no task.json: defaults apply
        return ()
    with open(path, encoding="utf-8") as fh:
        scoring = json.load(fh).get("scoring") or {}
    return tuple((k, v) for k, v in scoring.items() if k in EDIT_OVERRIDE_KEYS)


def edit_overrides(variant: str) -> dict[str, Any]:
    """The variant's `scoring` overrides that the official edit rubric honours (empty for `_combined`)."""
    return dict(_variant_scoring(variant))


def _v01_regions(profile: dict[str, Any], inj: dict[str, Any]) -> list[TruthRegion]:
    windows = inj.get("windows") or []
    if not isinstance(windows, list):
        raise ProfileError("profile.injection.windows", f"must be a list, got {type(windows).__name__}")
    top = inj.get("target_scene_index")
    indices = [w.get("target_scene_index", top) if isinstance(w, dict) else top for w in windows] or [top]
    bounds = tuple(
        _scene(profile, i, "profile.injection.windows[].target_scene_index") for i in indices if i is not None
    )
    return [TruthRegion(_span(inj, "profile.injection"), bounds)]


def _v03_regions(inj: dict[str, Any]) -> tuple[list[TruthRegion], str]:
    groups: dict[str, list[tuple[float, float]]] = {}
    i = 1
    while f"scene_{i}" in inj:
        sc = inj[f"scene_{i}"]
        where = f"profile.injection.scene_{i}"
        groups.setdefault(str(_get(sc, "group", where)), []).append(
            (_num(sc, "broken_start_s", where), _num(sc, "broken_end_s", where))
        )
        i += 1
    missing = [g for g in ("A", "B") if g not in groups]
    if missing:
        return [], f"profile has no scene group {' or '.join(missing)} (injection.scene_i.group)"
    regions = [
        TruthRegion(
            (min(s for s, _ in groups[g]), max(e for _, e in groups[g])), tuple(groups[g]), {"group": g}
        )
        for g in ("A", "B")
    ]
    return regions, ""


def _v06_bound(inj: dict[str, Any]) -> tuple[float, float]:
    ts = _get(inj, "target_scene", "profile.injection")
    start, end = _span(ts, "profile.injection.target_scene")
    end += _num(inj, "duration_s", "profile.injection")
    if isinstance(inj.get("next_scene"), dict):
        end = max(end, _num(inj["next_scene"], "end_s", "profile.injection.next_scene"))
    return start, end


def _combined_regions(profile: dict[str, Any], injections: list[Any], duration: float) -> list[TruthRegion]:
    regions = []
    for k, inj in enumerate(injections):
        where = f"profile.injections[{k}]"
        truth = _span(inj, where)
        kind = inj.get("variant")
        if kind is not None and not isinstance(kind, str):  # a label, and a set member in _window_warnings
            raise ProfileError(f"{where}.variant", f"must be a string, got {type(kind).__name__}")
        idx = inj.get("target_scene_index")
        bound = _scene(profile, idx, f"{where}.target_scene_index") if idx is not None else (0.0, duration)
        labels = {key: str(inj[key]) for key in ("variant", "subtask") if key in inj}
        regions.append(TruthRegion(truth, (bound,), labels))
    return regions


def _edit_window(variant: str, inj: Any, injections: list[Any]) -> tuple[float, float] | None:
    if variant == "_combined":
        spans = [_span(x, f"profile.injections[{k}]") for k, x in enumerate(injections)]
        return min(s for s, _ in spans), max(e for _, e in spans)
    if variant == "v03_scene_swap":  # D-R4: the official code reads keys the shipped profiles lack
        s1, s4 = inj.get("scene_1"), inj.get("scene_4")
        if (
            isinstance(s1, dict)
            and isinstance(s4, dict)
            and "original_start_s" in s1
            and "original_end_s" in s4
        ):
            return _num(s1, "original_start_s", "profile.injection.scene_1"), _num(
                s4, "original_end_s", "profile.injection.scene_4"
            )
        return None
    return _span(inj, "profile.injection")


def _edit_params(variant: str, duration: float, window: tuple[float, float] | None) -> EditParams:
    over = edit_overrides(variant)
    vals = {k: float(over.get(k, d)) for k, d in EDIT_DEFAULTS.items()}
    return EditParams(duration_s=duration, window=window, overrides=over, **vals)


def _window_warnings(
    variant: str, inj: Any, injections: list[Any], window: tuple[float, float] | None, duration: float
) -> list[str]:
    out: list[str] = []
    if variant == "v03_scene_swap" and window is None:
        out.append(
            "D-R4: the v03 edit in-window needs scene_1.original_start_s and scene_4.original_end_s, "
            "which this profile lacks; as in the official scorer every sample counts as out-of-window "
            "(only w_out applies)"
        )
    kinds: set[Any] = (
        {variant} if variant != "_combined" else {x.get("variant") for x in injections if isinstance(x, dict)}
    )
    broken = sorted(k for k in kinds if k in BROKEN_TIME_VARIANTS)
    if window is not None and broken:
        out.append(
            f"D-R11: the edit in-window [{window[0]:g}, {window[1]:g}] s comes from {', '.join(broken)} "
            "injection times in the broken video's timeline, but is applied unchanged to the "
            "source-time comparison (as in the official scorer)"
        )
    if window is not None and window[1] > duration:
        out.append(
            f"D-R11: the edit in-window ends at {window[1]:g} s, past the source duration "
            f"{duration:g} s (profile.format.duration_s)"
        )
    return out


def derive(profile: dict[str, Any], variant: str) -> CellSpec:
    """Derive the localisation truth and edit parameters of one cell; `ProfileError` names a missing field."""
    if variant not in VARIANTS:
        raise ProfileError(
            "injection.variant", f"unknown repair variant {variant!r} (known: {', '.join(VARIANTS)})"
        )
    if not isinstance(profile, dict):
        raise ProfileError("profile", "must be a JSON object")
    duration = _num(_get(profile, "format", "profile"), "duration_s", "profile.format")
    if not 0.0 < duration <= MAX_DURATION_S:  # the edit rubric chunks [0, duration) in 10-s steps
        raise ProfileError(
            "profile.format.duration_s", f"must be > 0 and at most {MAX_DURATION_S:g} s, got {duration!r}"
        )
    inj: Any = None
    injections: list[Any] = []
    loc_error = ""
    if variant == "_combined":
        injections = _get(profile, "injections", "profile")
        if not isinstance(injections, list) or not injections:
            raise ProfileError("profile.injections", "must be a non-empty list")
        regions = _combined_regions(profile, injections, duration)
    else:
        inj = _get(profile, "injection", "profile")
        if not isinstance(inj, dict):
            raise ProfileError("profile.injection", "must be an object")
        if variant == "v01_frozen_scene":
            regions = _v01_regions(profile, inj)
        elif variant == "v03_scene_swap":
            regions, loc_error = _v03_regions(inj)
        elif variant in ("v04_color_grade_shift", "v05_noise_floor_spike"):
            bound = _scene(profile, inj.get("target_scene_index"), "profile.injection.target_scene_index")
            regions = [TruthRegion(_span(inj, "profile.injection"), (bound,))]
        elif variant == "v06_duplicate_segment":
            regions = [TruthRegion(_span(inj, "profile.injection"), (_v06_bound(inj),))]
        else:  # v07: the whole clip is the scene bound (D-R3: scene_hit is nearly free)
            regions = [TruthRegion(_span(inj, "profile.injection"), ((0.0, duration),))]
    window = _edit_window(variant, inj, injections)
    return CellSpec(
        variant=variant,
        multi_region=variant in MULTI_REGION_VARIANTS,
        regions=tuple(regions),
        edit=_edit_params(variant, duration, window),
        localization_error=loc_error,
        warnings=tuple(_window_warnings(variant, inj, injections, window, duration)),
    )


def variant_of_profile(profile: dict[str, Any]) -> str:
    """The variant a bare profile implies: `injection.variant`, or `_combined` when it has `injections`."""
    inj = profile.get("injection") if isinstance(profile, dict) else None
    if isinstance(inj, dict) and inj.get("variant"):
        return str(inj["variant"])
    if isinstance(profile, dict) and "injections" in profile:
        return "_combined"
    raise ProfileError("injection.variant", "missing (and the profile has no `injections` list)")


def scoring_inputs(spec: CellSpec) -> dict[str, Any]:
    """The spec in the shape of `derived_scoring_inputs.json` (regions, edit window, edit kwargs)."""
    return {
        "localization_regions": [
            {**r.labels, "truth": list(r.truth), "scene_bounds": [list(b) for b in r.scene_bounds]}
            for r in spec.regions
        ],
        "edit_gt_window": list(spec.edit.window) if spec.edit.window is not None else None,
        "edit_kwargs": dict(spec.edit.overrides),
    }


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def source_cluster(task: Any) -> str:
    """The source video a repair task was cut from, as a cluster key (`analysis.clusters`), '' when nothing
    records it: the file name of the verifier-only reference the task names (`verifier_reference_urls`, e.g.
    `demo2_source.mp4`), else the profile's `source_file` (inline or shipped), else the `source_path` of the cell in
    `ground_truth/repair/cells.json`, else the `vN` of a cell `vN/sM` (the cells of one `vN` share one source). Key
    `repair-source:<file>` (`repair-group:vN`), never equal to a film's key."""
    refs = getattr(task, "verifier_reference_urls", None) or []
    names = {PurePosixPath(urlsplit(r.strip()).path).name for r in refs if isinstance(r, str)}
    if names - {""}:
        return "repair-source:" + "+".join(sorted(names - {""}))
    profile = getattr(task, "profile", None)
    named = _text(profile.get("source_file")) if isinstance(profile, Mapping) else ""
    cell = _text(getattr(task, "cell", ""))
    shipped = named or (_text(load_cells().get(cell, {}).get("source_path")) if cell else "")
    if shipped:
        return f"repair-source:{PurePosixPath(shipped).name}"
    group = re.fullmatch(r"(v\d+)/s\d+", cell)
    return f"repair-group:{group[1]}" if group else ""
