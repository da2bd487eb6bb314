"""Typed tasks from dataset rows: valid rows parse per family; malformed rows fail naming the task and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agenticvbench.dataset.tasks import (
    AssemblyTask,
    RecapTask,
    RepairTask,
    SequencingTask,
    load_cells,
    resolve_cell,
    task_from_row,
)
from agenticvbench.errors import TaskError

REAL_GT = Path(__file__).resolve().parents[2] / "agenticvbench" / "ground_truth" / "repair"
SEQ = {"correct_order": ["6", "12", "3"], "n_slots": 3, "provenance": {"film": "The Snowflake Discovery"}}
ASM = {
    "correct_assembly_in_slot_order": ["3.mp4", "7.mp4"],
    "correct_assembly_durations": [2.0, 1.5],
    "n_slots": 2,
    "film": "f",
    "duration_sec": 3.5,
}
RECAP = [
    {
        "id": "a",
        "dispatch": "python",
        "kind": "ffprobe_duration_range",
        "params": {"min": 1, "max": 2},
        "weight": 2,
        "pillar": 0,
    },
    {"id": "b", "dispatch": "llm", "prompt": "ok?", "weight": -1},
    {"id": "c", "dispatch": "compound", "stages": []},
]


def _row(task_id: int, family: str, rubric: Any, /, **over: Any) -> dict[str, Any]:
    r = {
        "task_id": task_id,
        "task_family": family,
        "prompt": "do it",
        "reference_file_urls": ["x/1.zip"],
        "verifier_reference_urls": None,
        "rubric_json": rubric if isinstance(rubric, str) else json.dumps(rubric),
    }
    r.update(over)
    return r


def _fails(row: dict[str, Any], field: str) -> TaskError:
    with pytest.raises(TaskError) as info:
        task_from_row(row)
    err = info.value
    assert err.task_id == row["task_id"] and err.field == field, str(err)
    assert f"task {row['task_id']}" in str(err) and repr(field) in str(err)
    return err


def test_valid_rows_of_every_family() -> None:
    seq = task_from_row(_row(37, "sequencing", SEQ))
    assert isinstance(seq, SequencingTask) and seq.correct_order == ["6", "12", "3"] and seq.n_slots == 3
    assert seq.provenance == {"film": "The Snowflake Discovery"}
    ints = task_from_row(_row(38, "sequencing", {"correct_order": [2, 1]}))
    assert (
        ints.correct_order == ["2", "1"] and ints.n_slots == 2
    )  # ints become the strings the scorer compares
    asm = task_from_row(_row(83, "assembly", ASM))
    assert isinstance(asm, AssemblyTask) and asm.correct_assembly_durations == [2.0, 1.5] and asm.film == "f"
    rep = task_from_row(
        _row(65, "repair", {"cell": "v4/s1"}, verifier_reference_urls=["repair/sources/v4.mp4"])
    )
    assert isinstance(rep, RepairTask) and rep.variant == "v05_noise_floor_spike"
    assert rep.profile["injection"]["start_s"] == 14.683 and rep.verifier_reference_urls == [
        "repair/sources/v4.mp4"
    ]
    rec = task_from_row(_row(1, "recap", RECAP))
    assert isinstance(rec, RecapTask) and [i["id"] for i in rec.items] == ["a", "b", "c"]
    assert rec.summary()["rubric"] == RECAP


def test_numpy_values_from_parquet_are_accepted() -> None:
    """Rows read through pandas carry numpy ints and arrays; they must load like plain Python values."""
    row = _row(37, "sequencing", SEQ, task_id=np.int64(37), reference_file_urls=np.array(["a.zip"]))
    t = task_from_row(row)
    assert t.task_id == 37 and type(t.task_id) is int and t.reference_file_urls == ["a.zip"]


@pytest.mark.parametrize(
    ("row", "field"),
    [
        (_row(5, "recap", RECAP, task_id="5"), "task_id"),
        (_row(5, "recap", RECAP, task_id=True), "task_id"),
        (_row(5, "cooking", RECAP), "task_family"),
        (_row(5, "recap", RECAP, prompt=None), "prompt"),
        (_row(5, "recap", RECAP, reference_file_urls=None), "reference_file_urls"),
        (_row(5, "recap", RECAP, reference_file_urls=[1]), "reference_file_urls"),
        (_row(5, "recap", RECAP, verifier_reference_urls="a.mp4"), "verifier_reference_urls"),
        (_row(5, "recap", RECAP, rubric_json=None), "rubric_json"),
        (_row(5, "recap", "[{not json"), "rubric_json"),
    ],
)
def test_malformed_columns_name_task_and_field(row: dict[str, Any], field: str) -> None:
    _fails(row, field)


@pytest.mark.parametrize(
    ("rubric", "field"),
    [
        (["6"], "rubric_json"),
        ({"n_slots": 1}, "rubric_json.correct_order"),
        ({"correct_order": []}, "rubric_json.correct_order"),
        ({"correct_order": ["1", 2.0]}, "rubric_json.correct_order[1]"),
        ({"correct_order": ["1", True]}, "rubric_json.correct_order[1]"),
        ({"correct_order": ["1", "2"], "n_slots": 3}, "rubric_json.n_slots"),
        ({"correct_order": ["1", "2"], "n_slots": "2"}, "rubric_json.n_slots"),
    ],
)
def test_malformed_sequencing_rubrics(rubric: Any, field: str) -> None:
    _fails(_row(40, "sequencing", rubric), field)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"correct_assembly_durations": None}, "rubric_json.correct_assembly_durations"),
        ({"correct_assembly_durations": [2.0, -1.0]}, "rubric_json.correct_assembly_durations[1]"),
        ({"correct_assembly_durations": [2.0]}, "rubric_json.correct_assembly_durations"),
        ({"correct_assembly_in_slot_order": ["3.mp4"]}, "rubric_json.correct_assembly_in_slot_order"),
        ({"n_slots": -2}, "rubric_json.n_slots"),
        ({"film": 7}, "rubric_json.film"),
        ({"duration_sec": "long"}, "rubric_json.duration_sec"),
    ],
)
def test_malformed_assembly_rubrics(change: dict[str, Any], field: str) -> None:
    rubric = {**ASM, **change}
    rubric = {k: v for k, v in rubric.items() if v is not None}
    _fails(_row(90, "assembly", rubric), field)


def test_assembly_nan_duration_is_rejected() -> None:
    """Python's json accepts the bare token NaN; a NaN duration would poison every mean, so it is refused."""
    text = json.dumps(ASM).replace("1.5]", "NaN]")
    _fails(_row(91, "assembly", text), "rubric_json.correct_assembly_durations[1]")


@pytest.mark.parametrize(
    ("rubric", "field", "words"),
    [
        ("[]", "rubric_json", "JSON object"),
        ({}, "rubric_json.cell", "missing"),
        ({"cell": 3}, "rubric_json.cell", "string"),
        ({"cell": "v9/s9"}, "rubric_json.cell", "unknown cell"),
        ({"cell": "demo/x"}, "rubric_json.cell", "unknown cell"),
    ],
)
def test_malformed_repair_rubrics(rubric: Any, field: str, words: str) -> None:
    err = _fails(_row(70, "repair", rubric), field)
    assert words in str(err)


@pytest.mark.parametrize(
    ("rubric", "field"),
    [
        ({"id": "a"}, "rubric_json"),
        ([["a"]], "rubric_json[0]"),
        ([{"dispatch": "llm"}], "rubric_json[0].id"),
        ([{"id": "", "dispatch": "llm"}], "rubric_json[0].id"),
        ([RECAP[0], {"id": "x", "dispatch": "gemini"}], "rubric_json[1].dispatch"),
        ([{"id": "x", "dispatch": "llm", "weight": "2"}], "rubric_json[0].weight"),
        ([{"id": "x", "dispatch": "llm", "weight": True}], "rubric_json[0].weight"),
    ],
)
def test_malformed_recap_rubrics(rubric: Any, field: str) -> None:
    _fails(_row(3, "recap", rubric), field)


def test_every_real_cell_resolves_to_its_variant_and_profile() -> None:
    cells = load_cells()
    assert len(cells) == 22
    for cell, entry in cells.items():
        variant, profile = resolve_cell(cell)
        assert variant == entry["variant"]
        on_disk = json.loads((REAL_GT / "ground_truth" / cell / "profile.json").read_text())
        assert profile == on_disk
        assert ("injection" in profile) != ("injections" in profile)
        assert profile["format"]["duration_s"] > 0


def test_unknown_cell_is_rejected() -> None:
    with pytest.raises(KeyError, match="unknown cell 'v8/s1'"):
        resolve_cell("v8/s1")


def test_inline_demo_profile_is_used_as_is() -> None:
    profile = {
        "format": {"duration_s": 12.0},
        "injection": {"variant": "v04_color_grade_shift", "start_s": 1.0, "end_s": 2.0},
    }
    t = task_from_row(_row(66, "repair", {"cell": "demo/c", "profile": profile}))
    assert t.cell == "demo/c" and t.variant == "v04_color_grade_shift" and t.profile == profile
