"""OpenVibe bench.benchmark@1: the contract's fixtures, each constraint of the field table, and the export."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agenticvbench import load_tasks
from agenticvbench.fsutil import text_sha256
from agenticvbench.interop import openvibe
from agenticvbench.interop.openvibe import (
    InvalidDocumentError,
    build_document,
    export_openvibe,
    load_schema,
    rfc3339_utc,
    validate,
    verifier_version,
)
from agenticvbench.interop.ulid import ulid_timestamp_ms


def paths(doc: Any) -> list[str]:
    return [e["path"] for e in validate(doc)["errors"]]


@pytest.fixture
def good(openvibe_fixtures: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return openvibe_fixtures["playable-games"]


# ------------------------------------------------------------------------------------------- fixtures


def test_fixture_playable_games_is_valid(good: dict[str, Any]) -> None:
    assert validate(good) == {"valid": True, "errors": []}


def test_fixture_bad_task_is_rejected_for_prompt_and_holdout(openvibe_fixtures) -> None:
    r = validate(openvibe_fixtures["bad-task"])
    assert r["valid"] is False
    assert [e["path"] for e in r["errors"]] == ["/tasks/0/holdout", "/tasks/0/prompt"]
    assert "required" in r["errors"][0]["message"] and "too short" in r["errors"][1]["message"]


def test_fixture_bad_visibility_is_rejected_for_visibility(openvibe_fixtures) -> None:
    r = validate(openvibe_fixtures["bad-visibility"])
    assert r["valid"] is False and [e["path"] for e in r["errors"]] == ["/visibility"]
    assert "secret" in r["errors"][0]["message"]


# --------------------------------------------------------------------------------------------- schema


def test_schema_is_draft_2020_12_package_data() -> None:
    path = resources.files("agenticvbench.interop") / openvibe.SCHEMA_RESOURCE
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert schema == load_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)
    assert set(schema["$defs"]) == {"task", "judge", "scoring", "limits", "matrix"}


@pytest.mark.parametrize(
    "value",
    ["2026-10-30 12:00:00Z", "2026-10-30", "2026-13-30T12:00:00Z", "2026-10-30T12:00:00", "yesterday"],
)
def test_bad_date_time_is_rejected(good: dict[str, Any], value: str) -> None:
    """`format: date-time` is only enforced when jsonschema has an RFC 3339 checker; this proves it does."""
    good["created_at"] = value
    assert paths(good) == ["/created_at"]


def test_good_date_times(good: dict[str, Any]) -> None:
    for value in ("2026-10-30T12:00:00Z", "2026-10-30T12:00:00.123+02:00"):
        good["created_at"] = value
        assert validate(good)["valid"]


@pytest.mark.parametrize(
    "field,value,ok",
    [
        ("id", "bmk_01JAB2C3D4E5F6G7H8J9K0MNPS", True),
        ("id", "bmk_01JAB2C3D4E5F6G7H8J9K0MNPI", False),
        ("id", "bmk_01jab2c3d4e5f6g7h8j9k0mnps", False),
        ("id", "01JAB2C3D4E5F6G7H8J9K0MNPS", False),
        ("id", "bmk_01JAB2C3D4E5F6G7H8J9K0MNP", False),
        ("owner", "o" * 120, True),
        ("owner", "o" * 121, False),
        ("owner", "", False),
        ("title", "t" * 160, True),
        ("title", "t" * 161, False),
        ("title", "", False),
        ("description", "", True),
        ("description", "d" * 4000, True),
        ("description", "d" * 4001, False),
        ("kind", "k" * 80, True),
        ("kind", "k" * 81, False),
        ("kind", "", False),
        ("tags", [], True),
        ("tags", [f"t{i}" for i in range(32)], True),
        ("tags", [f"t{i}" for i in range(33)], False),
        ("tags", ["x" * 40], True),
        ("tags", ["x" * 41], False),
        ("tags", [""], False),
        ("tags", ["a", "a"], False),
        ("visibility", "unlisted", True),
        ("visibility", "private", False),
        ("version", 1, True),
        ("version", 7, True),
        ("version", 0, False),
        ("version", "1", False),
        ("version", 1.5, False),
        ("parent", None, True),
        ("parent", "bmk_01JAB2C3D4E5F6G7H8J9K0MNPS@3", True),
        ("parent", "bmk_01JAB2C3D4E5F6G7H8J9K0MNPS", False),
        ("parent", "x" * 121, False),
    ],
)
def test_top_level_constraints(good: dict[str, Any], field: str, value: Any, ok: bool) -> None:
    good[field] = value
    got = paths(good)
    assert (got == []) is ok
    if not ok:
        assert all(p.startswith(f"/{field}") for p in got)


@pytest.mark.parametrize(
    "field",
    [
        "id",
        "owner",
        "title",
        "description",
        "kind",
        "tags",
        "visibility",
        "version",
        "parent",
        "tasks",
        "judges",
        "scoring",
        "limits",
        "matrix",
        "created_at",
    ],
)
def test_every_field_is_required(good: dict[str, Any], field: str) -> None:
    del good[field]
    r = validate(good)
    assert [e["path"] for e in r["errors"]] == [f"/{field}"] and "required" in r["errors"][0]["message"]


def test_no_extra_top_level_fields(good: dict[str, Any]) -> None:
    good["extra"] = 1
    assert paths(good) == ["/extra"]


def test_array_sizes(good: dict[str, Any]) -> None:
    task = good["tasks"][0]
    good["tasks"] = [dict(task, id=f"t{i}") for i in range(200)]
    assert validate(good)["valid"]
    good["tasks"].append(dict(task, id="t200"))
    assert paths(good) == ["/tasks"]
    good = copy.deepcopy(good)
    good["tasks"] = []
    assert paths(good) == ["/tasks"]
    judge = {"type": "j", "version": "1", "config": {}}
    good["tasks"] = [task]
    good["judges"] = [dict(judge, type=f"j{i}") for i in range(20)] + [dict(judge, type="human_pairwise")]
    assert paths(good) == ["/judges"]


# -------------------------------------------------------------------------------------------- $defs


@pytest.mark.parametrize(
    "task,bad",
    [
        ({"id": "t", "prompt": "ok", "holdout": False}, []),
        ({"id": "t", "prompt": "ok", "holdout": True, "expected": {"a": 1}}, []),
        ({"id": "t", "prompt": "ok", "holdout": "no"}, ["/tasks/0/holdout"]),
        ({"id": "t", "prompt": "ok", "holdout": False, "expected": [1]}, ["/tasks/0/expected"]),
        ({"id": "", "prompt": "ok", "holdout": False}, ["/tasks/0/id"]),
        ({"prompt": "ok", "holdout": False}, ["/tasks/0/id"]),
        ({"id": "t", "prompt": "ok", "holdout": False, "hint": "x"}, ["/tasks/0/hint"]),
    ],
)
def test_task_def(good: dict[str, Any], task: dict[str, Any], bad: list[str]) -> None:
    good["tasks"] = [task]
    assert paths(good) == bad


@pytest.mark.parametrize(
    "judge,bad",
    [
        ({"type": "human_pairwise", "version": "2", "config": {"k": [1]}}, []),
        ({"type": "human_pairwise", "version": "2"}, ["/judges/0/config"]),
        ({"type": "human_pairwise", "version": 2, "config": {}}, ["/judges/0/version"]),
        ({"type": "", "version": "2", "config": {}}, ["/judges/0/type", "/scoring/weights/human_pairwise"]),
    ],
)
def test_judge_def(good: dict[str, Any], judge: dict[str, Any], bad: list[str]) -> None:
    good["judges"] = [judge]
    assert paths(good) == bad


@pytest.mark.parametrize(
    "change,bad",
    [
        ({"method": "median"}, ["/scoring/method"]),
        ({"scale": {"min": 0}}, ["/scoring/scale/max"]),
        ({"scale": {"min": 100, "max": 0}}, ["/scoring/scale"]),
        ({"weights": {"human_pairwise": -1}}, ["/scoring/weights/human_pairwise"]),
        ({"weights": {"nobody": 1}}, ["/scoring/weights/nobody"]),
        ({"weights": {"human_pairwise": 0.5, "game_outcome": 2}}, []),
    ],
)
def test_scoring_def(good: dict[str, Any], change: dict[str, Any], bad: list[str]) -> None:
    good["scoring"].update(change)
    assert paths(good) == bad


@pytest.mark.parametrize(
    "limits,bad",
    [
        ({"ms": 0, "tokens": 0, "usd": 0}, []),
        ({"ms": None, "tokens": None, "usd": None, "turns": 200}, []),
        ({"ms": -1, "tokens": 1, "usd": 1}, ["/limits/ms"]),
        ({"ms": 1, "tokens": 1, "usd": -0.01}, ["/limits/usd"]),
        ({"ms": 1.5, "tokens": 1, "usd": 1}, ["/limits/ms"]),
        ({"ms": 1, "usd": 1}, ["/limits/tokens"]),
        ({"ms": 1, "tokens": 1, "usd": 1, "turns": 0}, ["/limits/turns"]),
        ({"ms": 1, "tokens": 1, "usd": 1, "gpu": 1}, ["/limits/gpu"]),
    ],
)
def test_limits_def(good: dict[str, Any], limits: dict[str, Any], bad: list[str]) -> None:
    good["limits"] = limits
    assert paths(good) == bad


@pytest.mark.parametrize(
    "matrix,bad",
    [
        ({"models": ["m"], "harnesses": ["h"]}, []),
        ({"models": [], "harnesses": ["h"]}, ["/matrix/models"]),
        ({"models": ["m", "m"], "harnesses": ["h"]}, ["/matrix/models"]),
        ({"models": ["m"], "harnesses": [""]}, ["/matrix/harnesses/0"]),
        ({"models": ["m"]}, ["/matrix/harnesses"]),
    ],
)
def test_matrix_def(good: dict[str, Any], matrix: dict[str, Any], bad: list[str]) -> None:
    good["matrix"] = matrix
    assert paths(good) == bad


def test_unique_task_ids_and_judge_types(good: dict[str, Any]) -> None:
    good["tasks"][1]["id"] = "t1"
    good["judges"][1]["type"] = "human_pairwise"
    assert paths(good) == ["/judges/1/type", "/tasks/1/id"]


def test_validate_non_object() -> None:
    r = validate([1])
    assert r["valid"] is False and r["errors"][0]["path"] == ""


# --------------------------------------------------------------------------------------------- export

NOW = datetime(2026, 3, 1, 12, 30, 45, 678000, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def mirror_tasks(mirror: Path) -> list:
    return load_tasks(dataset=str(mirror))


def test_export_is_valid_and_complete(mirror_tasks: list, mirror_rows: list, tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    doc = export_openvibe(mirror_tasks, out)
    assert json.loads(out.read_text()) == doc and validate(doc)["valid"]
    assert [t["id"] for t in doc["tasks"]] == ["recap-1", "sequencing-37", "repair-65", "assembly-83"]
    assert all(t["holdout"] is False for t in doc["tasks"])
    assert [t["prompt"] for t in doc["tasks"]] == [r["prompt"] for r in mirror_rows]
    exp = {t["id"]: t["expected"] for t in doc["tasks"]}
    assert exp["sequencing-37"] == {"correct_order": ["3", "1", "2"]}
    assert exp["assembly-83"] == {"correct_assembly_in_slot_order": ["2.mp4", "5.mp4"]}
    assert exp["repair-65"] == {"cell": "v1/s1"}
    assert exp["recap-1"] == {"rubric": json.loads(mirror_rows[0]["rubric_json"])}
    types = [j["type"] for j in doc["judges"]]
    assert types == [
        "agenticvbench.recap",
        "agenticvbench.sequencing",
        "agenticvbench.repair",
        "agenticvbench.assembly",
    ]
    for j in doc["judges"]:
        fam = j["config"]["family"]
        assert j["version"] == verifier_version(fam)
        assert j["config"]["tasks"] == [t["id"] for t in doc["tasks"] if t["id"].startswith(fam + "-")]
        assert j["config"]["dataset"]["dataset"] == str(mirror_tasks[0].source.dataset)
    assert doc["judges"][1]["config"]["score_field"] == "adjusted_final_score"
    assert doc["judges"][2]["config"]["score_field"] == "final_score"
    assert doc["scoring"] == {
        "method": "mean",
        "scale": {"min": 0, "max": 100},
        "weights": dict.fromkeys(types, 1),
    }
    assert doc["limits"] == {"ms": 1_800_000, "tokens": None, "usd": None, "turns": 200}
    assert doc["matrix"] == {"models": ["gpt-5.5"], "harnesses": ["codex_cli"]}
    assert (doc["visibility"], doc["version"], doc["parent"]) == ("public", 1, None)


def test_export_id_and_created_at(mirror_tasks: list) -> None:
    before = datetime.now(timezone.utc) - timedelta(seconds=1)
    doc = build_document(mirror_tasks)
    created = datetime.fromisoformat(doc["created_at"])
    assert before <= created <= datetime.now(timezone.utc) and doc["created_at"].endswith("Z")
    assert doc["id"].startswith("bmk_") and len(doc["id"]) == 30
    assert ulid_timestamp_ms(doc["id"][4:]) == int(created.timestamp() * 1000)
    assert build_document(mirror_tasks)["id"] != doc["id"]  # fresh random bits every time


def test_export_fixed_clock(mirror_tasks: list) -> None:
    doc = build_document(mirror_tasks, now=NOW, owner="prj_demo")
    assert doc["created_at"] == "2026-03-01T12:30:45.678Z" and doc["owner"] == "prj_demo"
    assert ulid_timestamp_ms(doc["id"][4:]) == int(NOW.timestamp() * 1000)
    assert (
        rfc3339_utc(datetime(2026, 1, 1, 1, 0, tzinfo=timezone(timedelta(hours=2))))
        == "2025-12-31T23:00:00.000Z"
    )


def test_export_recap_digest(mirror_tasks: list, mirror_rows: list) -> None:
    doc = build_document(mirror_tasks, recap_rubric="digest")
    recap = next(t for t in doc["tasks"] if t["id"] == "recap-1")
    assert recap["expected"] == {"rubric_sha256": text_sha256(mirror_rows[0]["rubric_json"]), "n_items": 3}
    assert validate(doc)["valid"]


def test_export_repair_inline_profile(tmp_path: Path, mirror_rows: list, make_mirror) -> None:
    """A demo repair task carries its profile inline; the export must carry it too (the cell resolves nowhere)."""
    profile = {"injection": {"variant": "v1_frozen_scene"}, "windows": []}
    rows = [dict(mirror_rows[2], rubric_json=json.dumps({"cell": "demo/c1", "profile": profile}))]
    tasks = load_tasks(dataset=str(make_mirror(tmp_path, rows)))
    doc = export_openvibe(tasks)
    assert doc["tasks"][0]["expected"] == {"cell": "demo/c1", "profile": profile}
    assert [j["type"] for j in doc["judges"]] == ["agenticvbench.repair"]
    assert doc["scoring"]["weights"] == {"agenticvbench.repair": 1}


def test_export_refuses_an_invalid_document(tmp_path: Path, mirror_rows: list, make_mirror) -> None:
    rows = [dict(mirror_rows[1], prompt="x")]
    tasks = load_tasks(dataset=str(make_mirror(tmp_path / "m", rows)))
    out = tmp_path / "out.json"
    with pytest.raises(InvalidDocumentError) as info:
        export_openvibe(tasks, out)
    assert [e["path"] for e in info.value.errors] == ["/tasks/0/prompt"]
    assert not out.exists()


def test_verifier_version_falls_back_to_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A family whose verifier cannot be imported yet must not crash the export."""
    from agenticvbench import verifiers

    def broken(family: str):
        raise ModuleNotFoundError(f"agenticvbench.verifiers.{family}")

    monkeypatch.setattr(verifiers, "get_verifier", broken)
    assert verifier_version("sequencing") == "unknown"

    class Fake:
        version = "9.9"

    monkeypatch.setattr(verifiers, "get_verifier", lambda family: Fake())
    assert verifier_version("sequencing") == "9.9"
