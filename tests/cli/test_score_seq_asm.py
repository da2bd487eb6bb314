"""`avb score sequencing|assembly`: official-compatible arguments, exact official JSON, official exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agenticvbench.cli.main import main

SNOWFLAKE = ["6", "12", "3", "13", "2", "4", "9", "11", "1", "8", "10", "7", "5"]
CLIPS = ["3.mp4", "7.mp4", "5.mp4", "11.mp4"]


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny local mirror with HEAD's 6 columns: one sequencing task (37) and one assembly task (83)."""
    root = tmp_path_factory.mktemp("mirror")
    (root / "data").mkdir()
    rows = [
        {
            "task_id": 37,
            "task_family": "sequencing",
            "prompt": "order the shots",
            "reference_file_urls": ["sequencing/materials/37.zip"],
            "verifier_reference_urls": None,
            "rubric_json": json.dumps(
                {
                    "correct_order": [int(c) for c in SNOWFLAKE],
                    "n_slots": 13,
                    "provenance": {"film": "The Snowflake Discovery"},
                }
            ),
        },
        {
            "task_id": 83,
            "task_family": "assembly",
            "prompt": "assemble",
            "reference_file_urls": ["assembly/materials/83.zip"],
            "verifier_reference_urls": None,
            "rubric_json": json.dumps(
                {
                    "correct_assembly_in_slot_order": CLIPS,
                    "correct_assembly_durations": [2.0, 1.5, 1.5, 2.0],
                    "n_slots": 4,
                    "film": "Demo",
                    "duration_sec": 7.0,
                }
            ),
        },
    ]
    schema = pa.schema(
        [
            ("task_id", pa.int64()),
            ("task_family", pa.string()),
            ("prompt", pa.string()),
            ("reference_file_urls", pa.list_(pa.string())),
            ("verifier_reference_urls", pa.list_(pa.string())),
            ("rubric_json", pa.string()),
        ]
    )
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), root / "data" / "train-00000-of-00001.parquet")
    return root


def solution(tmp_path: Path, sources: list[Any] | None = None, raw: str | None = None) -> str:
    p = tmp_path / "solution.json"
    if raw is None:
        raw = json.dumps(
            {
                "segments": [
                    {"output": [i, i + 1], "source": s, "source_range": [0, 1]}
                    for i, s in enumerate(sources or [])
                ]
            }
        )
    p.write_text(raw, encoding="utf-8")
    return str(p)


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, Any], str]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, json.loads(out), out


def test_sequencing_correct_order_perfect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sol = solution(tmp_path, SNOWFLAKE)
    code, result, text = run(
        capsys,
        [
            "score",
            "sequencing",
            "--solution-json",
            sol,
            "--task-id",
            "37",
            "--correct-order",
            " 6, 12,3,13,2,4,9,11,1,8,10,7,5 ",
        ],
    )
    expected = {
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
    assert code == 0 and result == expected
    assert text == json.dumps(expected, indent=2) + "\n"  # byte-identical to the official print


def test_sequencing_mismatch_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sol = solution(tmp_path, [f"{c}.mp4" for c in SNOWFLAKE])
    code, result, _ = run(
        capsys,
        [
            "score",
            "sequencing",
            "--solution-json",
            sol,
            "--task-id",
            "37",
            "--correct-order",
            ",".join(SNOWFLAKE),
        ],
    )
    assert code == 1 and result["error"].startswith("slot set mismatch: expected ['1', '10'")
    assert result["adjusted_final_score"] == 0.0


def test_sequencing_swap_first_two_from_mirror(
    tmp_path: Path, mirror: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--task-id loads correct_order (ints in rubric_json, compared as str) from a local mirror."""
    sol = solution(tmp_path, ["12", "6", *SNOWFLAKE[2:]])
    code, result, _ = run(
        capsys, ["score", "sequencing", "--solution-json", sol, "--task-id", "37", "--dataset", str(mirror)]
    )
    assert code == 0
    assert (
        result["adjusted_final_score"] == 0.7509157509157509 and result["final_score"] == 0.9173992673992675
    )


def test_sequencing_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "nope" / "solution.json")
    code, result, _ = run(
        capsys,
        ["score", "sequencing", "--solution-json", missing, "--task-id", "37", "--correct-order", "1,2"],
    )
    assert code == 1 and result["error"] == f"solution.json not found at {missing}"
    assert result["n_slots"] == 2 and result["final_score"] == 0.0


@pytest.mark.parametrize("family", ["sequencing", "assembly"])
@pytest.mark.parametrize("raw", ["[1, 2]", '{"segments": [1]}', '{"segments": 5}', "{oops"])
def test_official_crash_and_zeroing_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], family: str, raw: str
) -> None:
    """D-S1: where the official CLI prints a traceback we print JSON with a non-empty error; exit 1 either way."""
    flag = "--correct-order" if family == "sequencing" else "--correct-assembly"
    code, result, _ = run(
        capsys,
        ["score", family, "--solution-json", solution(tmp_path, raw=raw), "--task-id", "1", flag, "1,2"],
    )
    assert code == 1 and result["error"].startswith("solution.json")
    assert result["final_score"] == 0.0 and result["adjusted_final_score"] == 0.0


def test_assembly_correct_assembly_partial(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sol = solution(tmp_path, ["3", "7", "5", "1"])
    code, result, text = run(
        capsys,
        [
            "score",
            "assembly",
            "--solution-json",
            sol,
            "--task-id",
            "83",
            "--correct-assembly",
            "3.mp4, 7.mp4,5,11.mp4",
        ],
    )
    expected = {
        "task_id": 83,
        "n_slots": 4,
        "n_correct": 3,
        "assembly_score": 0.75,
        "strict_match": 0.0,
        "final_score": 0.75,
        "adjusted_final_score": 0.625,
        "picks": ["3.mp4", "7.mp4", "5.mp4", "1.mp4"],
        "correct": CLIPS,
        "error": "",
    }
    assert code == 0 and result == expected and text == json.dumps(expected, indent=2) + "\n"


def test_assembly_from_mirror_wrong_count(
    tmp_path: Path, mirror: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sol = solution(tmp_path, ["3", "7", "5"])
    code, result, _ = run(
        capsys, ["score", "assembly", "--solution-json", sol, "--task-id", "83", "--dataset", str(mirror)]
    )
    assert code == 1 and result["error"] == "malformed: expected 4 segments, got 3"
    assert result["picks"] == ["3.mp4", "7.mp4", "5.mp4"] and result["correct"] == CLIPS


def test_assembly_perfect_from_mirror(
    tmp_path: Path, mirror: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result, _ = run(
        capsys,
        [
            "score",
            "assembly",
            "--solution-json",
            solution(tmp_path, [3, 7, 5, 11]),
            "--task-id",
            "83",
            "--dataset",
            str(mirror / "data" / "train-00000-of-00001.parquet"),
        ],
    )
    assert code == 0 and result["adjusted_final_score"] == 1.0 and result["strict_match"] == 1.0


def test_task_of_other_family_is_an_input_error(
    tmp_path: Path, mirror: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "score",
            "sequencing",
            "--solution-json",
            solution(tmp_path, SNOWFLAKE),
            "--task-id",
            "83",
            "--dataset",
            str(mirror),
        ]
    )
    captured = capsys.readouterr()
    assert code == 3 and captured.out == "" and "83" in captured.err


def test_task_id_must_be_int(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """D-S5: HEAD's --task-id is an int; old string ids are a usage error."""
    with pytest.raises(SystemExit) as exc:
        main(["score", "sequencing", "--solution-json", "x.json", "--task-id", "bench-v1"])
    assert exc.value.code == 2
