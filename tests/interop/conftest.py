"""Shared fixtures for the interop tests: the OpenVibe contract's fixtures, a tiny dataset mirror, the StudioBench demo."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agenticvbench.demo.studiobench import build_studiobench_demo

# The three fixtures of the bench.benchmark@1 contract page, verbatim (whitespace aside).
PLAYABLE_GAMES = (
    '{"id": "bmk_01JAB2C3D4E5F6G7H8J9K0MNPS", "owner": "openvibe", "title": "Playable games arena", "'
    'description": "One-screen arcade games, judged by play and by the frame.", "kind": "games.play",'
    ' "tags": ["games", "arcade"], "visibility": "public", "version": 1, "parent": null, "tasks": [{"'
    'id": "t1", "prompt": "Build a one-screen arcade game with a paddle, bricks, a ball and a score."'
    ', "holdout": false}, {"id": "t2", "prompt": "Build a snake game on a 20x20 grid.", "holdout": tr'
    'ue, "expected": {"score": "food eaten"}}], "judges": [{"type": "human_pairwise", "version": "1.0'
    '", "config": {"blind": true}}, {"type": "game_outcome", "version": "1.0", "config": {}}], "scori'
    'ng": {"method": "mean", "scale": {"min": 0, "max": 100}, "weights": {"human_pairwise": 1}}, "lim'
    'its": {"ms": 120000, "tokens": 200000, "usd": 0.5}, "matrix": {"models": ["claude-opus-4", "gpt-'
    '5"], "harnesses": ["claude-code", "opencode"]}, "created_at": "2026-10-30T12:00:00.000Z"}'
)
BAD_TASK = (
    '{"id": "bmk_01JAB2C3D4E5F6G7H8J9K0MNPS", "owner": "openvibe", "title": "Playable games arena", "'
    'description": "One-screen arcade games, judged by play and by the frame.", "kind": "games.play",'
    ' "tags": ["games", "arcade"], "visibility": "public", "version": 1, "parent": null, "tasks": [{"'
    'id": "t1", "prompt": "x"}], "judges": [{"type": "human_pairwise", "version": "1.0", "config": {"'
    'blind": true}}, {"type": "game_outcome", "version": "1.0", "config": {}}], "scoring": {"method":'
    ' "mean", "scale": {"min": 0, "max": 100}, "weights": {"human_pairwise": 1}}, "limits": {"ms": 12'
    '0000, "tokens": 200000, "usd": 0.5}, "matrix": {"models": ["claude-opus-4", "gpt-5"], "harnesses'
    '": ["claude-code", "opencode"]}, "created_at": "2026-10-30T12:00:00.000Z"}'
)
BAD_VISIBILITY = (
    '{"id": "bmk_01JAB2C3D4E5F6G7H8J9K0MNPS", "owner": "openvibe", "title": "Playable games arena", "'
    'description": "One-screen arcade games, judged by play and by the frame.", "kind": "games.play",'
    ' "tags": ["games", "arcade"], "visibility": "secret", "version": 1, "parent": null, "tasks": [{"'
    'id": "t1", "prompt": "Build a one-screen arcade game with a paddle, bricks, a ball and a score."'
    ', "holdout": false}, {"id": "t2", "prompt": "Build a snake game on a 20x20 grid.", "holdout": tr'
    'ue, "expected": {"score": "food eaten"}}], "judges": [{"type": "human_pairwise", "version": "1.0'
    '", "config": {"blind": true}}, {"type": "game_outcome", "version": "1.0", "config": {}}], "scori'
    'ng": {"method": "mean", "scale": {"min": 0, "max": 100}, "weights": {"human_pairwise": 1}}, "lim'
    'its": {"ms": 120000, "tokens": 200000, "usd": 0.5}, "matrix": {"models": ["claude-opus-4", "gpt-'
    '5"], "harnesses": ["claude-code", "opencode"]}, "created_at": "2026-10-30T12:00:00.000Z"}'
)


@pytest.fixture
def openvibe_fixtures() -> dict[str, dict[str, Any]]:
    """Fresh copies of the contract's fixtures, by name."""
    return {
        "playable-games": json.loads(PLAYABLE_GAMES),
        "bad-task": json.loads(BAD_TASK),
        "bad-visibility": json.loads(BAD_VISIBILITY),
    }


RECAP_RUBRIC = [
    {"id": "R1", "weight": 2, "dispatch": "python", "kind": "duration_s", "min": 50, "max": 70},
    {"id": "R2", "weight": 1, "dispatch": "llm", "question": "Does the recap open on the lighthouse?"},
    {"id": "N1", "weight": -1, "dispatch": "llm", "question": "Is there a visible watermark?"},
]
MIRROR_ROWS: list[dict[str, Any]] = [
    {
        "task_id": 1,
        "task_family": "recap",
        "prompt": "Cut a 60-second recap of the film for a festival trailer.",
        "reference_file_urls": ["recap/materials/1/film.mp4"],
        "verifier_reference_urls": None,
        "rubric_json": json.dumps(RECAP_RUBRIC),
    },
    {
        "task_id": 37,
        "task_family": "sequencing",
        "prompt": "Put the shuffled shots back in story order.",
        "reference_file_urls": ["sequencing/materials/37.zip"],
        "verifier_reference_urls": None,
        "rubric_json": json.dumps(
            {"correct_order": ["3", "1", "2"], "n_slots": 3, "provenance": {"film": "x"}}
        ),
    },
    {
        "task_id": 65,
        "task_family": "repair",
        "prompt": "Find and fix the defects in broken.mp4.",
        "reference_file_urls": ["repair/materials/65/broken.mp4"],
        "verifier_reference_urls": ["repair/sources/v1_source.mp4"],
        "rubric_json": json.dumps({"cell": "v1/s1"}),
    },
    {
        "task_id": 83,
        "task_family": "assembly",
        "prompt": "Pick one clip per storyboard slot.",
        "reference_file_urls": ["assembly/materials/83.zip"],
        "verifier_reference_urls": None,
        "rubric_json": json.dumps(
            {
                "correct_assembly_in_slot_order": ["2.mp4", "5.mp4"],
                "correct_assembly_durations": [2.0, 3.0],
                "n_slots": 2,
                "film": "demo",
                "duration_sec": 5.0,
            }
        ),
    },
]


def write_mirror(root: Path, rows: list[dict[str, Any]]) -> Path:
    """A local dataset mirror (just the parquet, with the Hub's 6 columns); media are never fetched here."""
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
    (root / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), root / "data" / "train-00000-of-00001.parquet")
    return root


@pytest.fixture
def mirror_rows() -> list[dict[str, Any]]:
    """Fresh copies of the 4 mirror rows (recap 1, sequencing 37, repair 65, assembly 83)."""
    return copy.deepcopy(MIRROR_ROWS)


@pytest.fixture
def make_mirror() -> Callable[[Path, list[dict[str, Any]]], Path]:
    """`write_mirror(root, rows)`, for tests that need their own rows."""
    return write_mirror


@pytest.fixture(scope="session")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4-row mirror, one task per family (the repair row resolves against the shipped ground truth)."""
    return write_mirror(tmp_path_factory.mktemp("mirror"), MIRROR_ROWS)


@pytest.fixture(scope="session")
def sb_demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The StudioBench demo (task files and one run per scenario), built once per session."""
    return build_studiobench_demo(tmp_path_factory.mktemp("studiobench"))
