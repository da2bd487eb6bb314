"""Profile derivation for the repair scorer: truth regions, scene bounds, edit window and edit parameters."""

from __future__ import annotations

import copy
import json

import pytest

from agenticvbench.dataset.tasks import GROUND_TRUTH_DIR, load_cells, resolve_cell
from agenticvbench.verifiers.repair.profiles import (
    MULTI_REGION_VARIANTS,
    ProfileError,
    derive,
    edit_overrides,
    scoring_inputs,
    variant_of_profile,
)

DERIVED = json.loads((GROUND_TRUTH_DIR / "derived_scoring_inputs.json").read_text(encoding="utf-8"))
BY_CELL = {e["cell"]: e for e in DERIVED}


def _spec(cell: str):
    variant, profile = resolve_cell(cell)
    return derive(profile, variant)


def test_derived_inputs_cover_all_22_cells():
    assert sorted(BY_CELL) == sorted(load_cells()) and len(BY_CELL) == 22


@pytest.mark.parametrize("entry", DERIVED, ids=[e["cell"] for e in DERIVED])
def test_derivation_equals_derived_scoring_inputs(entry):
    """Regions (truth, scene bounds, labels), edit window and edit kwargs equal the published derivation exactly."""
    variant, profile = resolve_cell(entry["cell"])
    assert variant == entry["variant"]
    spec = derive(profile, variant)
    got = scoring_inputs(spec)
    assert got["localization_regions"] == entry["localization_regions"]
    assert got["edit_gt_window"] == entry["edit_gt_window"]
    assert got["edit_kwargs"] == entry["edit_kwargs"]
    assert spec.edit.duration_s == entry["format"]["duration_s"]
    assert spec.multi_region == (variant in MULTI_REGION_VARIANTS)
    assert spec.localization_error == ""


@pytest.mark.parametrize(
    ("variant", "shares"),
    [
        ("v01_frozen_scene", (0.6, 0.4)),
        ("v03_scene_swap", (0.6, 0.4)),
        ("v04_color_grade_shift", (0.9, 0.1)),
        ("v05_noise_floor_spike", (0.1, 0.9)),
        ("v06_duplicate_segment", (0.6, 0.4)),
        ("v07_audio_video_desync", (0.1, 0.9)),
        ("_combined", (0.6, 0.4)),
    ],
)
def test_edit_shares_and_weights_per_variant(variant, shares):
    cell = next(e["cell"] for e in DERIVED if e["variant"] == variant)
    p = _spec(cell).edit
    assert (p.video_share, p.audio_share) == shares
    assert (p.w_in, p.w_out) == (2.5, 1.0)


def test_combined_has_no_task_json_overrides():
    assert edit_overrides("_combined") == {}
    assert edit_overrides("v07_audio_video_desync") == {
        "w_in": 2.5,
        "w_out": 1,
        "video_share": 0.1,
        "audio_share": 0.9,
    }


def test_v03_window_is_none_with_d_r4_warning():
    """D-R4: the official v03 edit window reads keys the shipped profiles lack, so there is no in-window."""
    for cell in ("v2/s1", "v2/s2", "v2/s3"):
        spec = _spec(cell)
        assert spec.edit.window is None
        assert any(w.startswith("D-R4") for w in spec.warnings)


def test_v03_window_when_profile_has_the_upstream_keys():
    """The code path the official scorer intended: [scene_1.original_start_s, scene_4.original_end_s]."""
    variant, profile = resolve_cell("v2/s1")
    p = copy.deepcopy(profile)
    p["injection"]["scene_1"]["original_start_s"] = 10.0
    p["injection"]["scene_4"] = {
        "group": "B",
        "broken_start_s": 90.0,
        "broken_end_s": 95.0,
        "original_end_s": 50.0,
    }
    spec = derive(p, variant)
    assert spec.edit.window == (10.0, 50.0)
    assert not any(w.startswith("D-R4") for w in spec.warnings)
    # scene_i are read for i = 1, 2, ... until one is missing: scene_4 is not reached without scene_3
    assert spec.regions[1].truth == (72.56, 87.32)
    p["injection"]["scene_3"] = {"group": "B", "broken_start_s": 88.0, "broken_end_s": 89.0}
    assert derive(p, variant).regions[1].truth == (72.56, 95.0)


def test_d_r11_warnings_from_profile():
    """D-R11: v01/v06 windows are broken-time but applied to source time; v7/s3's window ends past the source."""

    def kinds(cell):
        return [w.split(":")[0] + (" past" if "past the source" in w else "") for w in _spec(cell).warnings]

    for cell in ("v1/s1", "v1/s3", "v5/s1", "v5/s4", "v7/s1"):
        assert kinds(cell) == ["D-R11"], cell
    assert kinds("v7/s3") == ["D-R11", "D-R11 past"]
    for cell in ("v3/s1", "v4/s2", "v6/s1", "v6/s3", "v7/s2"):
        assert kinds(cell) == [], cell


def test_v7_window_is_the_union_span():
    assert _spec("v7/s1").edit.window == (70.234, 133.27900000000002)
    assert _spec("v7/s3").edit.window == (0.0, 217.965)


def test_v06_scene_bound_extends_by_duplicate_and_next_scene():
    variant, profile = resolve_cell("v5/s2")
    inj = profile["injection"]
    (bound,) = derive(profile, variant).regions[0].scene_bounds
    assert bound == (inj["target_scene"]["start_s"], inj["target_scene"]["end_s"] + inj["duration_s"])


def test_v03_missing_group_zeroes_localisation_not_the_task():
    variant, profile = resolve_cell("v2/s1")
    p = copy.deepcopy(profile)
    p["injection"]["scene_2"]["group"] = "A"
    spec = derive(p, variant)
    assert spec.regions == () and "group B" in spec.localization_error


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda p: p["format"].pop("duration_s"), "profile.format.duration_s"),
        (lambda p: p["injection"].pop("start_s"), "profile.injection.start_s"),
        (
            lambda p: p["injection"].__setitem__("target_scene_index", 999),
            "profile.injection.target_scene_index",
        ),
        (lambda p: p["injection"].__setitem__("end_s", "soon"), "profile.injection.end_s"),
        (lambda p: p.pop("injection"), "profile.injection"),
    ],
)
def test_profile_errors_name_the_field(mutate, field):
    variant, profile = resolve_cell("v3/s1")
    p = copy.deepcopy(profile)
    mutate(p)
    with pytest.raises(ProfileError) as err:
        derive(p, variant)
    assert err.value.field == field


def test_unknown_variant_and_bad_combined():
    _, profile = resolve_cell("v7/s1")
    with pytest.raises(ProfileError, match="unknown repair variant"):
        derive(profile, "v99_nonsense")
    with pytest.raises(ProfileError, match="non-empty list"):
        derive({**profile, "injections": []}, "_combined")


def test_variant_of_profile():
    assert variant_of_profile(resolve_cell("v4/s1")[1]) == "v05_noise_floor_spike"
    assert variant_of_profile(resolve_cell("v7/s2")[1]) == "_combined"
    with pytest.raises(ProfileError):
        variant_of_profile({"format": {}})


@pytest.mark.parametrize(
    ("cell", "mutate", "field"),
    [
        ("v1/s1", lambda p: p["injection"].__setitem__("windows", 5), "profile.injection.windows"),
        (
            "v7/s1",
            lambda p: p["injections"][0].__setitem__("variant", ["v01_frozen_scene"]),
            "profile.injections[0].variant",
        ),
        ("v3/s1", lambda p: p["format"].__setitem__("duration_s", 1e18), "profile.format.duration_s"),
        ("v3/s1", lambda p: p["format"].__setitem__("duration_s", 0), "profile.format.duration_s"),
        ("v3/s1", lambda p: p["format"].__setitem__("duration_s", -12.5), "profile.format.duration_s"),
    ],
)
def test_profile_edge_cases_are_profile_errors(cell, mutate, field):
    """Regression: a non-list `windows` raised TypeError, a list-valued `_combined` variant raised TypeError
    (unhashable, in the D-R11 check), and a duration above ~1.8e17 s made the edit chunk planner loop forever
    (`t += 10` stops changing t). Each must be a `ProfileError` naming the field (a clean `malformed`)."""
    variant, profile = resolve_cell(cell)
    p = copy.deepcopy(profile)
    mutate(p)
    with pytest.raises(ProfileError) as err:
        derive(p, variant)
    assert err.value.field == field


def test_profile_duration_limit_keeps_real_cells():
    """The duration bound rejects nonsense only: every shipped cell still derives (all far below 1e6 s)."""
    from agenticvbench.verifiers.repair.constants import MAX_DURATION_S

    assert all(0 < _spec(c).edit.duration_s <= MAX_DURATION_S for c in BY_CELL)
