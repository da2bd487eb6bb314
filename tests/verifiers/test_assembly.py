"""Assembly verifier: bit-for-bit parity with the official golden vectors, plus our extras and clean failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenticvbench.dataset.tasks import AssemblyTask, task_from_row
from agenticvbench.runs.submission import InputRejected, Submission
from agenticvbench.verifiers import get_verifier
from agenticvbench.verifiers.assembly import OFFICIAL_FIELDS, adjust, norm_clip, official_result, score_picks
from agenticvbench.verifiers.base import VerifyContext
from agenticvbench.verifiers.manifest import read_manifest

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = json.loads((DATA / "golden" / "vectors.json").read_text(encoding="utf-8"))["assembly"]
CORRECT = ["3.mp4", "7.mp4", "5.mp4", "11.mp4"]
DURATIONS = [2.0, 1.5, 1.5, 2.0]
SCORE_FIELDS = ("n_correct", "assembly_score", "strict_match", "final_score", "adjusted_final_score", "error")


def make_task(
    correct: list[Any],
    durations: list[float] | None = None,
    duration_sec: float | None = None,
    task_id: int = 83,
) -> AssemblyTask:
    durations = durations if durations is not None else [1.0] * len(correct)
    rubric = {
        "correct_assembly_in_slot_order": correct,
        "correct_assembly_durations": durations,
        "n_slots": len(correct),
        "film": "Demo Film",
        "duration_sec": duration_sec if duration_sec is not None else sum(durations),
    }
    row = {
        "task_id": task_id,
        "task_family": "assembly",
        "prompt": "assemble",
        "verifier_reference_urls": None,
        "reference_file_urls": [f"assembly/materials/{task_id}.zip"],
        "rubric_json": json.dumps(rubric),
    }
    task = task_from_row(row)
    assert isinstance(task, AssemblyTask)
    return task


def write_solution(folder: Path, sources: list[Any], lengths: list[float] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lengths = lengths or [1.0] * len(sources)
    segs, t = [], 0.0
    for s, length in zip(sources, lengths, strict=True):
        segs.append({"output": [t, t + length], "source": s, "source_range": [0.0, length]})
        t += length
    p = folder / "solution.json"
    p.write_text(json.dumps({"segments": segs}), encoding="utf-8")
    return p


def ctx(tmp_path: Path) -> VerifyContext:
    return VerifyContext(cache_dir=tmp_path / "cache")


@pytest.mark.parametrize("vec", GOLDEN, ids=lambda v: v["case"])
def test_golden_vector_end_to_end(tmp_path: Path, vec: dict[str, Any]) -> None:
    """Every official field equal with == and of the same JSON type; the manifest goes through a real file."""
    task = make_task(vec["correct"])
    write_solution(tmp_path / "83", vec["pred_sources"])
    official = official_result(
        read_manifest(tmp_path / "83" / "solution.json"), task.correct_assembly_in_slot_order, 83
    )
    assert list(official) == list(OFFICIAL_FIELDS)
    assert official["task_id"] == 83 and official["n_slots"] == len(vec["correct"])
    for key in SCORE_FIELDS:
        if key in vec:
            assert official[key] == vec[key], key
            assert type(official[key]) is type(vec[key]), key
    if "picks_normalized" in vec:
        assert official["picks"] == vec["picks_normalized"]
    assert official["correct"] == [norm_clip(c) for c in vec["correct"]]
    out = get_verifier("assembly").verify(task, Submission(83, tmp_path / "83"), ctx(tmp_path))
    assert out.status == "scored" and out.official == official
    assert out.final_score == vec["final_score"] and out.adjusted_final_score == vec["adjusted_final_score"]
    assert out.reason == vec.get("error", "")
    assert out.components == {k: official[k] for k in ("n_correct", "assembly_score", "strict_match")}


def test_official_example_solution(tmp_path: Path) -> None:
    folder = tmp_path / "83"
    folder.mkdir()
    (folder / "solution.json").write_bytes(
        (DATA / "official-examples" / "assembly_perfect_solution.json").read_bytes()
    )
    out = get_verifier("assembly").verify(
        make_task(CORRECT, DURATIONS, 7.0), Submission(83, folder), ctx(tmp_path)
    )
    assert out.official == {
        "task_id": 83,
        "n_slots": 4,
        "n_correct": 4,
        "assembly_score": 1.0,
        "strict_match": 1.0,
        "final_score": 1.0,
        "adjusted_final_score": 1.0,
        "picks": CORRECT,
        "correct": CORRECT,
        "error": "",
    }
    assert out.extra["slot_duration_matches"] == 4 and out.extra["total_duration"]["match"] is True
    assert out.warnings == []


@pytest.mark.parametrize(
    ("n_correct", "n", "expected"),
    [
        (2, 3, 0.49999999999999994),
        (3, 5, 0.39999999999999997),
        (0, 4, 0.0),
        (1, 4, 0.0),
        (2, 4, 0.25),
        (3, 4, 0.625),
        (4, 4, 1.0),
        (1, 3, 0.0),
    ],
)
def test_chance_adjustment_by_division(n_correct: int, n: int, expected: float) -> None:
    """D-S4: the official code divides by (1 - 1/3); x1.5 would give 0.5 / 0.4 for 2/3 and 3/5."""
    assert adjust(n_correct / n) == expected
    correct = [str(i) for i in range(n)]
    picks = correct[:n_correct] + ["x"] * (n - n_correct)
    assert score_picks(picks, correct)["adjusted_final_score"] == expected


def test_duplicates_and_free_strings_allowed() -> None:
    r = score_picks(["3", "3", "5", "anything"], CORRECT)
    assert r["n_correct"] == 2 and r["error"] == ""


def test_missing_source_normalises_to_dot_mp4(tmp_path: Path) -> None:
    (tmp_path / "solution.json").write_text('{"segments": [{}, {}, {}, {}]}', encoding="utf-8")
    official = official_result(read_manifest(tmp_path / "solution.json"), CORRECT, 83)
    assert official["picks"] == [".mp4"] * 4 and official["n_correct"] == 0


def test_missing_file(tmp_path: Path) -> None:
    official = official_result(read_manifest(Path("/nonexistent/solution.json")), CORRECT, 83)
    assert official["error"] == "solution.json not found at /nonexistent/solution.json"
    assert (
        official["final_score"] == 0.0 and official["adjusted_final_score"] == 0.0 and official["picks"] == []
    )
    out = get_verifier("assembly").verify(make_task(CORRECT), Submission(83, None), ctx(tmp_path))
    assert out.status == "missing" and out.reason == "solution.json not found at <run>/83/solution.json"


@pytest.mark.parametrize(
    ("shape", "crashes"),
    [
        ("[1, 2]", True),
        ('{"segments": ["3.mp4", "7.mp4", "5.mp4", "11.mp4"]}', True),
        ('{"clips": []}', False),
        ('{"segments": "3,7,5,11"}', False),
        ("", False),
    ],
)
def test_malformed_shapes(tmp_path: Path, shape: str, crashes: bool) -> None:
    """D-S1 shapes crash the official scorer; all of these are a clean `malformed` 0 for us."""
    (tmp_path / "solution.json").write_text(shape, encoding="utf-8")
    out = get_verifier("assembly").verify(make_task(CORRECT), Submission(83, tmp_path), ctx(tmp_path))
    assert out.status == "malformed" and out.final_score == 0.0 and out.adjusted_final_score == 0.0
    assert out.reason.startswith("solution.json") and out.official["error"] == out.reason
    assert any(w.startswith("D-S1") for w in out.warnings) is crashes


def test_non_utf8_and_huge_are_malformed(tmp_path: Path) -> None:
    (tmp_path / "solution.json").write_bytes(b'{"segments": [{"source": "\xe9"}]}')
    out = get_verifier("assembly").verify(make_task(CORRECT), Submission(83, tmp_path), ctx(tmp_path))
    assert out.status == "malformed" and "not UTF-8" in out.reason
    (tmp_path / "solution.json").write_bytes(b'{"segments": []}' + b" " * (6 * 1024 * 1024))
    with pytest.raises(
        InputRejected, match="limit"
    ):  # the submission gate refuses it; the engine says malformed
        get_verifier("assembly").verify(make_task(CORRECT), Submission(83, tmp_path), ctx(tmp_path))


@pytest.mark.parametrize("variant", ["3.MP4", 3.0, "/workspace/materials/3.mp4", "clip3.mp4", "3.0"])
def test_near_miss_ids_warn(tmp_path: Path, variant: Any) -> None:
    """D-S2: the official normalisation misses these; the slot stays wrong, but a warning names it."""
    write_solution(tmp_path, [variant, "7", "5", "11"])
    out = get_verifier("assembly").verify(make_task(CORRECT), Submission(83, tmp_path), ctx(tmp_path))
    assert out.official["n_correct"] == 3 and out.adjusted_final_score == 0.625
    assert (
        len(out.warnings) == 1
        and out.warnings[0].startswith("D-S2: 1 slot(s)")
        and "slot 1: " in out.warnings[0]
    )  # 1-based, as in avb explain


def test_wrong_clip_does_not_warn(tmp_path: Path) -> None:
    write_solution(tmp_path, ["4.mp4", "7", "5", "11"])
    out = get_verifier("assembly").verify(make_task(CORRECT), Submission(83, tmp_path), ctx(tmp_path))
    assert out.official["n_correct"] == 3 and out.warnings == []


def test_duration_matching(tmp_path: Path) -> None:
    """Tolerance: |got - expected| <= max(0.1 s, 5 % of expected)."""
    task = make_task(["1", "2", "3", "4", "5"], [1.5, 1.5, 4.0, 4.0, 2.0], duration_sec=13.0)
    write_solution(tmp_path, ["1", "2", "3", "4", "5"], [1.59, 1.65, 4.19, 4.25, 2.0])
    out = get_verifier("assembly").verify(task, Submission(83, tmp_path), ctx(tmp_path))
    assert [s["match"] for s in out.extra["slot_durations"]] == [True, False, True, False, True]
    assert out.extra["slot_duration_matches"] == 3 and out.extra["slot_duration_match_rate"] == 0.6
    assert out.extra["duration_tolerance"]["abs_s"] == 0.1 and out.extra["duration_tolerance"]["rel"] == 0.05
    total = out.extra["total_duration"]
    assert total["got_s"] == pytest.approx(13.68) and total["match"] is False
    assert out.adjusted_final_score == 1.0  # extras never touch the headline


def test_duration_matching_with_nan_and_wrong_count(tmp_path: Path) -> None:
    (tmp_path / "solution.json").write_text(
        '{"segments": [{"output": [0, NaN], "source": "1"}, {"output": [1, 2], "source": "2"}]}',
        encoding="utf-8",
    )
    task = make_task(["1", "2", "3"], [1.0, 1.0, 1.0], duration_sec=3.0)
    out = get_verifier("assembly").verify(task, Submission(83, tmp_path), ctx(tmp_path))
    assert out.reason == "malformed: expected 3 segments, got 2" and out.status == "scored"
    assert out.official["picks"] == ["1.mp4", "2.mp4"]
    assert [s["got_s"] for s in out.extra["slot_durations"]] == [None, 1.0, None]
    assert [s["match"] for s in out.extra["slot_durations"]] == [False, True, False]
    assert out.extra["invalid_output_intervals"] == [0]
    assert out.extra["total_duration"] == {"expected_s": 3.0, "got_s": 2.0, "match": False}


def test_verifier_metadata_and_input_files(tmp_path: Path) -> None:
    v = get_verifier("assembly")
    assert v.family == "assembly" and v.version
    assert v.input_files(make_task(CORRECT), Submission(83, tmp_path)) == []
    p = write_solution(tmp_path, CORRECT)
    assert v.input_files(make_task(CORRECT), Submission(83, tmp_path)) == [p]


def test_explanation_and_warning_number_the_slot_alike(tmp_path: Path) -> None:
    """Regression: `avb explain` said "slot 4: picked 4.MP4.mp4" while the D-S2 warning under it said "slot 3"
    (0-based), and `slot_durations[].slot` was 0-based too: slots are numbered from 1 wherever people read them."""
    from agenticvbench.analysis.explain import lost_points
    from agenticvbench.results.model import Result

    write_solution(tmp_path, ["1", "7", "5", "11.MP4"], [1.0, 1.0, 1.0, 1.0])
    task = make_task(["1", "7", "5", "11"], [1.0, 1.0, 1.0, 1.0], duration_sec=4.0)
    out = get_verifier("assembly").verify(task, Submission(83, tmp_path), ctx(tmp_path))
    assert "slot 4: '11.MP4.mp4' vs '11.mp4'" in out.warnings[0]
    assert [s["slot"] for s in out.extra["slot_durations"]] == [1, 2, 3, 4]
    res = Result(
        task_id=83,
        family="assembly",
        status="scored",
        final_score=out.final_score,
        adjusted_final_score=out.adjusted_final_score,
        components=out.components,
        detail=out.detail,
    )
    assert "slot 4: picked 11.MP4.mp4, want 11.mp4" in lost_points(res)


def test_detail_keys_match_the_declared_shape(tmp_path: Path) -> None:
    """The `AssemblyDetail` TypedDict must name exactly the keys the verifier writes, so it cannot drift."""
    from agenticvbench.verifiers.assembly import AssemblyDetail

    write_solution(tmp_path / "83", ["3.mp4", "5.mp4", "7.mp4", "11.mp4"], DURATIONS)
    out = get_verifier("assembly").verify(
        make_task(CORRECT, DURATIONS), Submission(83, tmp_path / "83"), ctx(tmp_path)
    )
    assert out.status == "scored"
    assert set(out.detail) == set(AssemblyDetail.__annotations__)
    assert out.detail["correct"] == CORRECT and len(out.detail["picks"]) == len(CORRECT)
