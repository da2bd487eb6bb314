"""The repair localisation rubric: report.md grammar, window rules and the 5/10/10/10 scoring."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agenticvbench.dataset.tasks import resolve_cell
from agenticvbench.verifiers.repair.localize import score_localization
from agenticvbench.verifiers.repair.profiles import derive
from agenticvbench.verifiers.repair.report_grammar import parse_timestamp, read_report

GOLDEN = json.loads(
    (Path(__file__).parents[1] / "data" / "golden" / "vectors.json").read_text(encoding="utf-8")
)
CASES = GOLDEN["repair_localization"]
OFFICIAL_KEYS = {
    "score",
    "max",
    "window_sub",
    "window_max",
    "description_sub",
    "description_max",
    "predicted_window_s",
    "truth_window_s",
    "iou",
    "iou_sub",
    "iou_max",
    "scene_hit",
    "scene_hit_sub",
    "scene_hit_max",
    "start_delta_s",
    "end_delta_s",
    "start_sub",
    "start_max",
    "end_sub",
    "end_max",
    "description",
    "rationale",
}


def spec(cell: str):
    variant, profile = resolve_cell(cell)
    return derive(profile, variant)


def loc(text: str, cell: str):
    return score_localization(text, spec(cell))


def test_golden_vector_count():
    assert len(CASES) == 98


@pytest.mark.parametrize("case", CASES, ids=[f"{c['cell']}-{c['case']}" for c in CASES])
def test_golden_localisation(case):
    res = loc(case["report_md"], case["cell"])
    assert abs(res.score - case["score_out_of_35"]) < 1e-9
    assert res.detail["scene_hit"] == case["scene_hit"]
    assert abs(res.detail["iou"] - case["iou"]) < 1e-9
    assert OFFICIAL_KEYS <= set(res.detail)


def test_golden_localisation_is_bit_exact():
    """Spec README §1: localisation matches the official scorer bit for bit (the sub-score association matters)."""
    mismatches = [
        (c["cell"], c["case"]) for c in CASES if loc(c["report_md"], c["cell"]).score != c["score_out_of_35"]
    ]
    assert mismatches == []


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("22", 22.0),
        ("22.5", 22.5),
        (" 22.5 ", 22.5),
        ("00:22.000", 22.0),
        ("1:02", 62.0),
        ("0:75", 75.0),
        ("1:02:03.5", 3723.5),
        ("01:00:00", 3600.0),
        ("2:12.680", 132.68),
    ],
)
def test_timestamps_that_parse(text, seconds):
    assert parse_timestamp(text) == pytest.approx(seconds, abs=1e-12)


@pytest.mark.parametrize(
    "text",
    [
        "14.7s",
        "14,7",
        "`14.7`",
        "14.7 (approx)",
        "00:00:14:12",
        "-1.0",
        "-0:01.000",
        "",
        "abc",
        "1:2:3:4",
        "14.7 s",
        "+3",
        "1e3",
        "00:22.000 - 00:23.000",
    ],
)
def test_timestamps_that_do_not_parse(text):
    """D-R9: units, comma decimals, backticks, notes, frame codes and negatives are all unparseable."""
    assert parse_timestamp(text) is None


def _report(*lines: str) -> str:
    return "\n".join(lines) + "\n"


EXACT_V1S1 = ("- start: 22.0", "- end: 23.0")


@pytest.mark.parametrize(
    "lines",
    [
        ("## Diagnosis", "* start: 22.0", "* end: 23.0"),
        ("## Diagnosis", "- **start**: 22.0", "- **end**: 23.0"),
        ("## Diagnosis", "- start_time: 22.0", "- end_time: 23.0"),
        ("## Diagnosis", "start: 22.0", "end: 23.0"),
    ],
)
def test_non_grammar_lines_are_ignored_with_a_warning(lines):
    """D-R9: bullets other than `-`, bold keys and `start_time` do not match, so the window scores 0."""
    res = loc(_report(*lines), "v1/s1")
    assert res.score == 0.0
    assert any("does not match the official grammar" in w for w in res.warnings)


def test_grammar_is_case_insensitive_and_spacing_tolerant():
    for lines in (
        ("- START: 22.0", "- End : 23.0"),
        ("-start:22.0", "-end:23.0"),
        ("   -   start :  22 ", "- end: 23"),
    ):
        assert loc(_report(*lines), "v1/s1").score == 35.0, lines


def test_first_start_and_end_anywhere_win_for_single_window_variants():
    """D-R9: only the first start/end count, even before any Diagnosis heading and for buffering's 3 freezes."""
    text = _report(
        "- start: 22.0",
        "## Diagnosis",
        "- type: freeze",
        "- start: 50",
        "- end: 23.0",
        "## Diagnosis",
        "- start: 60",
        "- end: 61",
    )
    res = loc(text, "v1/s1")
    assert res.score == 35.0
    assert sum("reads only the first" in w for w in res.warnings) == 2
    # an unparseable first value is not replaced by a later good one
    res = loc(_report("- start: 22.0s", "- end: 23.0", "- start: 22.0"), "v1/s1")
    assert res.score == 0.0 and any("D-R9" in w and "line 1" in w for w in res.warnings)


def test_numbered_lines_are_ignored_by_single_window_variants():
    res = loc(_report("- window_1_start: 22.0", "- window_1_end: 23.0"), "v1/s1")
    assert res.score == 0.0 and any("multi-region" in w for w in res.warnings)


def test_end_not_after_start_scores_zero():
    res = loc(_report("- start: 23.0", "- end: 23.0"), "v1/s1")
    assert res.score == 0.0 and res.detail["predicted_window_s"] is None
    assert "end <= start" in res.detail["rationale"]


def test_single_window_formula_and_sub_scores():
    """Off by 0.1 s at both ends (window shrunk) on v4/s1 gives 29.113 (observed)."""
    res = loc(_report("- start: 14.783", "- end: 17.427"), "v4/s1")
    assert res.score == pytest.approx(29.113, abs=5e-4)
    d = res.detail
    assert d["scene_hit_sub"] == 5.0 and d["start_sub"] == pytest.approx(10 * math.exp(-0.3))
    assert d["score"] == pytest.approx(d["scene_hit_sub"] + d["start_sub"] + d["end_sub"] + d["iou_sub"])
    assert (d["scene_hit_max"], d["start_max"], d["end_max"], d["iou_max"], d["max"]) == (5, 10, 10, 10, 35)


def test_scene_hit_is_closed_interval_overlap():
    # v4/s1 scene bound [9.0, 16.666667]: a prediction ending exactly at 9.0 still touches it
    assert loc(_report("- start: 8.0", "- end: 9.0"), "v4/s1").detail["scene_hit"] is True
    assert loc(_report("- start: 8.0", "- end: 8.999"), "v4/s1").detail["scene_hit"] is False


def test_multi_region_numbered_lines_take_precedence_and_sort_by_n():
    text = _report(
        "## Diagnosis",
        "- start: 0:10",
        "- end: 0:20",
        "## Diagnosis",
        "- start: 0:30",
        "- end: 0:40",
        "- Window 2 end: 01:27.320",
        "- window2-start: 01:12.560",
        "- window1start: 02:12.680",
        "- window_1_end: 02:23.460",
    )
    res = loc(text, "v2/s1")
    assert res.score == 35.0 and res.parse["rule"] == "numbered window lines"
    assert res.detail["n_predicted"] == 2 and res.detail["n_truth"] == 2
    assert [w["prediction_index"] for w in res.detail["windows"]] == [0, 1]


def test_multi_region_invalid_slots_are_dropped():
    text = _report(
        "- window_1_start: 02:12.680",
        "- window_1_end: 02:23.460",
        "- window_2_start: 90",
        "- window_2_end: 80",
        "- window_3_start: 1:12.56s",
        "- window_3_end: 1:27.32",
    )
    res = loc(text, "v2/s1")
    assert res.detail["n_predicted"] == 1
    assert res.detail["windows"][0]["score"] == 17.5 and res.detail["windows"][1]["score"] < 17.5
    assert any("window_3" in w and "D-R9" in w for w in res.warnings)


def test_multi_region_at_most_12_predictions():
    lines = [f"- window_{n}_start: {n}\n- window_{n}_end: {n + 0.5}" for n in range(1, 13)]
    lines += ["- window_13_start: 02:12.680", "- window_13_end: 02:23.460"]
    res = loc(_report(*lines), "v2/s1")
    assert res.detail["n_predicted"] == 12 and res.score < 10


def test_diagnosis_blocks():
    """`###` does not open a block; `## Other` closes one; one block falls back to the whole-file pair."""
    two_blocks = _report(
        "## Diagnosis 1",
        "- start: 02:12.680",
        "- end: 02:23.460",
        "## Diagnosis: swap",
        "- start: 01:12.560",
        "- end: 01:27.320",
    )
    assert loc(two_blocks, "v2/s1").score == 35.0
    closed = _report(
        "## Diagnosis",
        "- start: 02:12.680",
        "- end: 02:23.460",
        "## Diagnosis",
        "- start: 01:12.560",
        "## Repair trajectory",
        "- end: 01:27.320",
    )
    res = loc(closed, "v2/s1")
    assert res.detail["n_predicted"] == 1 and res.score == pytest.approx(
        17.5 + res.detail["windows"][1]["score"]
    )
    h3 = _report(
        "### Diagnosis",
        "- start: 02:12.680",
        "- end: 02:23.460",
        "### Diagnosis",
        "- start: 01:12.560",
        "- end: 01:27.320",
    )
    res = loc(h3, "v2/s1")
    assert res.parse["rule"] == "first start/end in the file" and res.detail["n_predicted"] == 1
    assert any("### Diagnosis" in w for w in res.warnings)


def test_one_window_can_serve_two_coincident_regions():
    """v7/s2 has two injections with the same window, so one correct block scores 35/35."""
    res = loc(_report("## Diagnosis", "- start: 1:45.683", "- end: 1:50.247"), "v7/s2")
    assert res.score == pytest.approx(35.0) and res.detail["n_predicted"] == 1
    assert all(w["prediction_index"] == 0 for w in res.detail["windows"])


def test_multi_region_detail_describes_outer_spans():
    res = loc(_report("- window_1_start: 02:12.680", "- window_1_end: 02:23.460"), "v2/s1")
    d = res.detail
    assert d["predicted_window_s"] == [132.68, 143.46] and d["truth_window_s"] == [72.56, 143.46]
    assert d["iou"] == pytest.approx(10.78 / 70.9)
    assert {"windows", "n_predicted", "n_truth"} <= set(d) and OFFICIAL_KEYS <= set(d)
    assert d["windows"][0]["group"] == "A" and d["windows"][0]["max"] == 17.5


def test_no_valid_window_in_multi_region():
    res = loc("# nothing here\n", "v7/s1")
    assert res.score == 0.0 and res.detail["scene_hit"] is False and res.detail["predicted_window_s"] is None


def test_clean_report_has_no_warnings():
    assert loc(_report("# Report", "## Diagnosis", "- type: freeze", *EXACT_V1S1), "v1/s1").warnings == []


def test_read_report_crlf_and_a_bom_like_upstream(tmp_path):
    """Upstream reads with `read_text(encoding="utf-8")`: CRLF ends lines, but a UTF-8 BOM stays in the text, so a
    field on the first line does not match (we keep that number and say why in a warning)."""
    p = tmp_path / "report.md"
    p.write_bytes(b"- start: 22.0\r\n- end: 23.0\r\n")
    text, warnings = read_report(p)
    assert text == "- start: 22.0\n- end: 23.0\n" and warnings == []
    assert loc(text, "v1/s1").score == 35.0
    p.write_bytes(b"\xef\xbb\xbf# Diagnosis report\r\n- start: 22.0\r\n- end: 23.0\r\n")
    text, warnings = read_report(p)
    assert loc(text, "v1/s1").score == 35.0 and any("byte-order mark" in w for w in warnings)
    p.write_bytes(b"\xef\xbb\xbf- start: 22.0\n- end: 23.0\n")
    text, warnings = read_report(p)
    assert loc(text, "v1/s1").score < 35.0


@pytest.mark.parametrize(
    ("data", "guess"),
    [
        ("- start: 22.0\n- end: 23.0\n".encode("utf-16"), "UTF-16"),
        ("- note: caf\u00e9\n- start: 22.0\n- end: 23.0\n".encode("latin-1"), "latin-1"),
    ],
)
def test_read_report_non_utf8_is_read_with_replacement(tmp_path, data, guess):
    """The official scorer reads report.md with errors="replace" and scores what parses (a latin-1 report with an
    accented note still earns its window); we do the same and warn, naming the byte and a guess."""
    p = tmp_path / "report.md"
    p.write_bytes(data)
    text, warnings = read_report(p)
    assert any(guess in w and "not valid UTF-8" in w for w in warnings)
    expected = 35.0 if guess == "latin-1" else 0.0  # UTF-16: every other byte is NUL, no line matches
    assert loc(text, "v1/s1").score == expected


def test_read_report_latin1_ascii_only_and_utf16_without_bom(tmp_path):
    p = tmp_path / "report.md"
    p.write_bytes("- start: 22.0\n- end: 23.0\n".encode("latin-1"))
    assert loc(read_report(p)[0], "v1/s1").score == 35.0
    p.write_bytes("- start: 22.0\n- end: 23.0\n".encode("utf-16-le"))
    text, warnings = read_report(p)
    assert loc(text, "v1/s1").score == 0.0 and any("NUL" in w for w in warnings)
