"""Sequencing verifier: bit-for-bit parity with the official golden vectors, plus our extras and clean failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import kendalltau

from agenticvbench.dataset.tasks import SequencingTask, task_from_row
from agenticvbench.runs.submission import Submission
from agenticvbench.verifiers import get_verifier
from agenticvbench.verifiers.base import VerifyContext
from agenticvbench.verifiers.manifest import read_manifest
from agenticvbench.verifiers.sequencing import OFFICIAL_FIELDS, kendall_tau, official_result, score_order

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = json.loads((DATA / "golden" / "vectors.json").read_text(encoding="utf-8"))["sequencing"]
SNOWFLAKE = ["6", "12", "3", "13", "2", "4", "9", "11", "1", "8", "10", "7", "5"]
SCORE_FIELDS = (
    "nd_score",
    "lis_score",
    "adj_score",
    "strict_match",
    "final_score",
    "adjusted_final_score",
    "error",
)


def make_task(correct: list[Any], task_id: int = 37) -> SequencingTask:
    row = {
        "task_id": task_id,
        "task_family": "sequencing",
        "prompt": "order the shots",
        "reference_file_urls": [f"sequencing/materials/{task_id}.zip"],
        "verifier_reference_urls": None,
        "rubric_json": json.dumps({"correct_order": correct, "n_slots": len(correct), "provenance": {}}),
    }
    task = task_from_row(row)
    assert isinstance(task, SequencingTask)
    return task


def write_solution(folder: Path, sources: list[Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    segs = [
        {"output": [float(i), float(i + 1)], "source": s, "source_range": [0.0, 1.0]}
        for i, s in enumerate(sources)
    ]
    p = folder / "solution.json"
    p.write_text(json.dumps({"segments": segs}), encoding="utf-8")
    return p


def ctx(tmp_path: Path) -> VerifyContext:
    return VerifyContext(cache_dir=tmp_path / "cache")


def assert_exact(ours: dict[str, Any], golden: dict[str, Any]) -> None:
    """Every official field the vector records must be equal with ==, and of the same JSON type (0.0 vs 0)."""
    for key in SCORE_FIELDS:
        if key in golden:
            assert ours[key] == golden[key], key
            assert type(ours[key]) is type(golden[key]), key


@pytest.mark.parametrize("vec", [v for v in GOLDEN if "pred_sources" in v], ids=lambda v: v["case"])
def test_golden_vector_end_to_end(tmp_path: Path, vec: dict[str, Any]) -> None:
    """The manifest goes through a real file, so int/float `source` values take the official str() path."""
    task = make_task(vec["correct_order"])
    write_solution(tmp_path / "37", vec["pred_sources"])
    official = official_result(read_manifest(tmp_path / "37" / "solution.json"), task.correct_order, 37)
    assert list(official) == list(OFFICIAL_FIELDS)
    assert official["task_id"] == 37 and official["n_slots"] == len(vec["correct_order"])
    assert_exact(official, vec)
    out = get_verifier("sequencing").verify(task, Submission(37, tmp_path / "37"), ctx(tmp_path))
    assert out.status == "scored"
    assert out.official == official
    assert out.final_score == vec["final_score"] and out.adjusted_final_score == vec["adjusted_final_score"]
    assert out.reason == vec["error"]
    assert out.components == {k: vec[k] for k in ("nd_score", "lis_score", "adj_score", "strict_match")}


def test_golden_missing_file(tmp_path: Path) -> None:
    vec = next(v for v in GOLDEN if v["case"] == "missing_file")
    official = official_result(read_manifest(Path("/nonexistent/solution.json")), SNOWFLAKE, 37)
    assert_exact(official, vec)
    out = get_verifier("sequencing").verify(
        make_task(SNOWFLAKE), Submission(37, tmp_path / "nope"), ctx(tmp_path)
    )
    assert out.status == "missing" and out.adjusted_final_score == 0.0 and out.final_score == 0.0
    assert out.reason == f"solution.json not found at {tmp_path / 'nope' / 'solution.json'}"


def test_golden_segments_not_list(tmp_path: Path) -> None:
    vec = next(v for v in GOLDEN if v["case"] == "segments_not_list")
    p = tmp_path / "solution.json"
    p.write_text('{"segments": "6,12,3"}', encoding="utf-8")
    official = official_result(read_manifest(p), SNOWFLAKE, 37)
    assert_exact(official, vec)
    out = get_verifier("sequencing").verify(make_task(SNOWFLAKE), Submission(37, tmp_path), ctx(tmp_path))
    assert out.status == "malformed" and out.reason == vec["error"] and out.warnings == []


def test_official_example_solution(tmp_path: Path) -> None:
    """The shipped example for task 37 (Snowflake Discovery, 13 clips) scores 1.0 everywhere."""
    folder = tmp_path / "37"
    folder.mkdir()
    (folder / "solution.json").write_bytes(
        (DATA / "official-examples" / "sequencing_task37_perfect_solution.json").read_bytes()
    )
    out = get_verifier("sequencing").verify(make_task(SNOWFLAKE), Submission(37, folder), ctx(tmp_path))
    assert out.official == {
        "task_id": 37,
        "n_slots": 13,
        "nd_score": 1.0,
        "lis_score": 1.0,
        "adj_score": 1.0,
        "strict_match": 1.0,
        "final_score": 1.0,
        "adjusted_final_score": 1.0,
        "error": "",
    }
    assert out.extra["kendall_tau"] == 1.0 and out.warnings == []
    assert out.extra["video"] == {"present": False, "tolerance_s": 0.5}


def test_spec_table_n2_swapped() -> None:
    r = score_order(["2", "1"], ["1", "2"])
    assert (r["nd_score"], r["lis_score"], r["adj_score"]) == (0.0, 0.5, 0.0)


def test_lis_uses_strictly_increasing_ranks() -> None:
    """LIS over golden ranks with bisect_left: [1,0,2,3] keeps 3 of 4."""
    assert score_order(["b", "a", "c", "d"], ["a", "b", "c", "d"])["lis_score"] == 0.75


def test_raw_string_compare_rejects_spaces() -> None:
    r = score_order([" 6", *SNOWFLAKE[1:]], SNOWFLAKE)
    assert r["adjusted_final_score"] == 0.0 and r["error"].startswith(
        "slot set mismatch: expected ['1', '10'"
    )


@pytest.mark.parametrize("shape", ["[1, 2]", '{"segments": ["6"]}', '{"segments": [{"source": "6"}, 7]}'])
def test_official_crash_shapes_are_malformed(tmp_path: Path, shape: str) -> None:
    """D-S1: the official scorer raises AttributeError here; we score 0 as malformed with a D-S1 warning."""
    (tmp_path / "solution.json").write_text(shape, encoding="utf-8")
    out = get_verifier("sequencing").verify(make_task(SNOWFLAKE), Submission(37, tmp_path), ctx(tmp_path))
    assert out.status == "malformed" and out.final_score == 0.0 and out.adjusted_final_score == 0.0
    assert out.reason.startswith("solution.json: ") and out.official["error"] == out.reason
    assert any(w.startswith("D-S1") for w in out.warnings)


@pytest.mark.parametrize("content", [b"", b"\xff\xfe{}", b"{not json"])
def test_unreadable_manifests_are_malformed(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "solution.json").write_bytes(content)
    out = get_verifier("sequencing").verify(make_task(SNOWFLAKE), Submission(37, tmp_path), ctx(tmp_path))
    assert (
        out.status == "malformed"
        and out.adjusted_final_score == 0.0
        and out.reason.startswith("solution.json")
    )


def test_nan_durations_do_not_change_the_score(tmp_path: Path) -> None:
    (tmp_path / "solution.json").write_text(
        '{"segments": [{"output": [NaN, Infinity], "source": "1", "source_range": [NaN, 1]}, '
        '{"output": [0, 1], "source": "2"}]}',
        encoding="utf-8",
    )
    out = get_verifier("sequencing").verify(make_task(["1", "2"]), Submission(37, tmp_path), ctx(tmp_path))
    assert out.status == "scored" and out.adjusted_final_score == 1.0


@pytest.mark.parametrize(
    "pred",
    [
        [f"{c}.mp4" for c in SNOWFLAKE],
        [f" {c}" for c in SNOWFLAKE],
        [float(c) for c in SNOWFLAKE],
    ],
)
def test_near_miss_ids_warn(tmp_path: Path, pred: list[Any]) -> None:
    """D-S2: official matching is kept (score 0), but the user is told the ids were only mis-formatted."""
    write_solution(tmp_path, pred)
    out = get_verifier("sequencing").verify(make_task(SNOWFLAKE), Submission(37, tmp_path), ctx(tmp_path))
    assert out.adjusted_final_score == 0.0 and out.reason.startswith("slot set mismatch")
    assert len(out.warnings) == 1 and out.warnings[0].startswith("D-S2: 13 source id(s)")
    assert "adjusted_final_score 1.000000" in out.warnings[0]


def test_partial_near_miss_warns_without_counterfactual(tmp_path: Path) -> None:
    write_solution(tmp_path, ["6.mp4", *SNOWFLAKE[1:-1]])
    out = get_verifier("sequencing").verify(make_task(SNOWFLAKE), Submission(37, tmp_path), ctx(tmp_path))
    assert len(out.warnings) == 1 and "D-S2: 1 source id(s)" in out.warnings[0]
    assert "would have scored" not in out.warnings[0]


def test_genuinely_wrong_ids_do_not_warn(tmp_path: Path) -> None:
    write_solution(tmp_path, SNOWFLAKE[:-1])
    out = get_verifier("sequencing").verify(make_task(SNOWFLAKE), Submission(37, tmp_path), ctx(tmp_path))
    assert out.adjusted_final_score == 0.0 and out.warnings == []
    assert out.extra["kendall_tau"] is None


@pytest.mark.parametrize("case", [v["case"] for v in GOLDEN if "pred_sources" in v and not v["error"]])
def test_kendall_tau_matches_scipy(case: str) -> None:
    vec = next(v for v in GOLDEN if v["case"] == case)
    pred, correct = [str(s) for s in vec["pred_sources"]], vec["correct_order"]
    ours = kendall_tau(pred, correct)
    if len(correct) < 2:
        assert ours is None
        return
    rank = {c: i for i, c in enumerate(correct)}
    expected = kendalltau(list(range(len(pred))), [rank[c] for c in pred]).statistic
    assert ours == pytest.approx(expected, abs=1e-12)


def test_kendall_tau_extremes() -> None:
    assert kendall_tau(SNOWFLAKE, SNOWFLAKE) == 1.0
    assert kendall_tau(SNOWFLAKE[::-1], SNOWFLAKE) == -1.0
    assert kendall_tau(["1", "2"], ["1", "3"]) is None


def test_verifier_metadata_and_input_files(tmp_path: Path) -> None:
    v = get_verifier("sequencing")
    assert v.family == "sequencing" and v.version
    task = make_task(SNOWFLAKE)
    assert v.input_files(task, Submission(37, tmp_path)) == []
    p = write_solution(tmp_path, SNOWFLAKE)
    assert v.input_files(task, Submission(37, tmp_path)) == [p]


def test_video_check_can_be_disabled(tmp_path: Path) -> None:
    write_solution(tmp_path, SNOWFLAKE)
    c = VerifyContext(cache_dir=tmp_path, options={"video_check": False})
    out = get_verifier("sequencing").verify(make_task(SNOWFLAKE), Submission(37, tmp_path), c)
    assert "video" not in out.extra and out.adjusted_final_score == 1.0


def test_detail_keys_match_the_declared_shape(tmp_path: Path) -> None:
    """The `SequencingDetail` TypedDict must name exactly the keys the verifier writes, so it cannot drift."""
    from agenticvbench.verifiers.sequencing import SequencingDetail

    write_solution(tmp_path / "37", ["2", "1", "3"])
    out = get_verifier("sequencing").verify(
        make_task(["1", "2", "3"]), Submission(37, tmp_path / "37"), ctx(tmp_path)
    )
    assert out.status == "scored"
    assert set(out.detail) == set(SequencingDetail.__annotations__)
    assert out.detail == {"pred": ["2", "1", "3"], "correct": ["1", "2", "3"]}
