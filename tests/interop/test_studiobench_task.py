"""StudioBench task validation: every rule has a passing and a failing example, and `model_view`."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agenticvbench.interop.studiobench import (
    JUDGE_ONLY_FIELDS,
    model_view,
    validate_task,
    validate_task_file,
)
from agenticvbench.interop.studiobench_task import json_pointer

BASE: dict[str, Any] = {
    "id": "DEMO-001",
    "domain": "narrative",
    "task": "open",
    "wish": "A short film about a lighthouse keeper.",
    "duration_sec": [60, 120],
    "aspect": "16:9",
    "audio_profile": ["speech", "music"],
}


def task(**changes: Any) -> dict[str, Any]:
    t = copy.deepcopy(BASE)
    for k, v in changes.items():
        if v is ...:
            t.pop(k, None)
        else:
            t[k] = v
    return t


def paths(t: Any) -> list[str]:
    return [e.path for e in validate_task(t).errors]


def test_base_task_is_valid_without_warnings() -> None:
    r = validate_task(BASE)
    assert r.valid and r.errors == [] and r.warnings == [] and r.task_id == "DEMO-001"


def test_not_an_object() -> None:
    r = validate_task(["id"])
    assert not r.valid and r.errors[0].path == ""


@pytest.mark.parametrize("name", ["id", "domain", "task", "wish", "duration_sec", "aspect"])
def test_required_fields(name: str) -> None:
    r = validate_task(task(**{name: ...}))
    assert not r.valid
    assert any(e.path == f"/{name}" and "required" in e.message for e in r.errors)


def test_missing_audio_profile_is_a_warning_not_an_error() -> None:
    r = validate_task(task(audio_profile=...))
    assert r.valid
    assert [w.path for w in r.warnings] == ["/audio_profile"]


@pytest.mark.parametrize(
    "value,ok",
    [
        ("DEMO-001", True),
        ("a.b_c", True),
        ("", False),
        ("has space", False),
        ("../escape", False),
        (7, False),
        ("x" * 121, False),
    ],
)
def test_id(value: Any, ok: bool) -> None:
    assert ("/id" not in paths(task(id=value))) is ok


@pytest.mark.parametrize(
    "value,ok",
    [
        ("narrative", True),
        ("dialogue", True),
        ("documentary", True),
        ("sports", False),
        ("Narrative", False),
        (None, False),
    ],
)
def test_domain(value: Any, ok: bool) -> None:
    assert ("/domain" not in paths(task(domain=value))) is ok


@pytest.mark.parametrize(
    "value,ok", [("open", True), ("constraint", True), ("audio-led", True), ("audio_led", False), ("", False)]
)
def test_task_kind(value: Any, ok: bool) -> None:
    """`given_audio` is supplied so an `audio-led` task is otherwise complete."""
    assert ("/task" not in paths(task(task=value, given_audio="audio/track.wav"))) is ok


@pytest.mark.parametrize("value,ok", [("A brief.", True), ("", False), ("   ", False), (["a"], False)])
def test_wish(value: Any, ok: bool) -> None:
    assert ("/wish" not in paths(task(wish=value))) is ok


@pytest.mark.parametrize(
    "value,bad_path",
    [
        ([60, 180], None),
        ([60, 60], None),
        ([90.5, 120.25], None),
        ([59.9, 120], "/duration_sec/0"),
        ([60, 180.1], "/duration_sec/1"),
        ([150, 100], "/duration_sec"),
        ([60], "/duration_sec"),
        ([60, 90, 120], "/duration_sec"),
        ("60-120", "/duration_sec"),
        ([True, 120], "/duration_sec/0"),
        ([60, float("nan")], "/duration_sec/1"),
        ([60, "90"], "/duration_sec/1"),
        ([60, float("inf")], "/duration_sec/1"),
    ],
)
def test_duration_range(value: Any, bad_path: str | None) -> None:
    got = paths(task(duration_sec=value))
    assert got == ([] if bad_path is None else [bad_path])


@pytest.mark.parametrize(
    "value,ok",
    [
        ("16:9", True),
        ("9:16", True),
        ("1:1", True),
        ("21:9", True),
        ("16x9", False),
        ("0:9", False),
        ("16:0", False),
        ("-16:9", False),
        ("16:9 ", False),
        ("1.5:1", False),
        (16, False),
    ],
)
def test_aspect(value: Any, ok: bool) -> None:
    assert ("/aspect" not in paths(task(aspect=value))) is ok


@pytest.mark.parametrize(
    "value,bad_path",
    [
        (["speech"], None),
        (["speech", "music", "sfx", "dialogue"], None),
        ([], "/audio_profile"),
        ("speech", "/audio_profile"),
        (["noise"], "/audio_profile/0"),
        (["music", "music"], "/audio_profile/1"),
    ],
)
def test_audio_profile(value: Any, bad_path: str | None) -> None:
    assert paths(task(audio_profile=value)) == ([] if bad_path is None else [bad_path])


@pytest.mark.parametrize(
    "name", ["must", "forbid", "constraints", "plot_beats", "facts", "assets", "references"]
)
def test_list_fields(name: str) -> None:
    assert paths(task(**{name: ["one item", "another"]})) == []
    assert paths(task(**{name: []})) == []
    assert paths(task(**{name: "one item"})) == [f"/{name}"]
    assert paths(task(**{name: ["ok", "", 3, "  "]})) == [f"/{name}/1", f"/{name}/2", f"/{name}/3"]


@pytest.mark.parametrize(
    "kind,field,good", [("assets", "assets", ["clips/a.mp4"]), ("reference", "references", ["refs/look.png"])]
)
def test_kind_needs_its_inputs(kind: str, field: str, good: list[str]) -> None:
    assert paths(task(task=kind, **{field: good})) == []
    assert paths(task(task=kind)) == [f"/{field}"]
    assert paths(task(task=kind, **{field: []})) == [f"/{field}"]


def test_audio_led_needs_given_audio() -> None:
    assert paths(task(task="audio-led", given_audio="audio/score.wav")) == []
    r = validate_task(task(task="audio-led"))
    assert [e.path for e in r.errors] == ["/given_audio"] and "audio-led" in r.errors[0].message
    assert paths(task(task="audio-led", given_audio="")) == ["/given_audio"]


def test_given_audio_must_be_a_path_string() -> None:
    assert paths(task(given_audio="a.wav")) == []
    assert paths(task(given_audio=["a.wav"])) == ["/given_audio"]


def test_unknown_fields_are_errors_with_escaped_pointers() -> None:
    r = validate_task(task(mood="calm", **{"a/b~c": 1}))
    assert sorted(e.path for e in r.errors) == ["/a~1b~0c", "/mood"]
    assert all("unknown field" in e.message for e in r.errors)
    assert json_pointer("x", 0, "a/b") == "/x/0/a~1b"


def test_every_error_says_what_was_expected() -> None:
    r = validate_task(
        {"id": "", "domain": "x", "task": "y", "wish": 1, "duration_sec": [1, 2], "aspect": "z"}
    )
    assert len(r.errors) >= 6
    assert all(
        e.path.startswith("/") and ("expected" in e.message or "required" in e.message) for e in r.errors
    )


def test_validate_task_file(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(BASE))
    assert validate_task_file(good).valid
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = validate_task_file(bad)
    assert not r.valid and r.errors[0].path == "" and "JSON" in r.errors[0].message
    r = validate_task_file(tmp_path / "absent.json")
    assert not r.valid and "cannot read" in r.errors[0].message
    d = r.to_dict()
    assert d["valid"] is False and d["errors"][0] == {"path": "", "message": r.errors[0].message}


def test_model_view_shows_only_what_the_model_may_see() -> None:
    full = task(
        task="audio-led",
        given_audio="audio/score.wav",
        assets=["a.mp4"],
        references=["r.png"],
        must=["m"],
        forbid=["f"],
        constraints=["c"],
        plot_beats=["p"],
        facts=["x"],
    )
    view = model_view(full)
    assert set(view) == {"wish", "assets", "references", "given_audio", "duration_sec", "aspect"}
    assert not set(JUDGE_ONLY_FIELDS) & set(view)
    assert view["duration_sec"] == [60, 120] and view["aspect"] == "16:9"
    view["assets"].append("leak.mp4")
    assert full["assets"] == ["a.mp4"]


def test_model_view_omits_absent_optional_fields() -> None:
    assert set(model_view(BASE)) == {"wish", "duration_sec", "aspect"}
    with pytest.raises(TypeError):
        model_view(["not", "a", "task"])  # type: ignore[arg-type]


def test_invalid_json_message_reads_once(tmp_path: Path) -> None:
    """Regression: an unterminated string read "Unterminated string starting at at line 1" (json's own message
    ends in "at", and the position was appended with another "at")."""
    from agenticvbench.interop.studiobench_task import validate_task_file

    bad = tmp_path / "task.json"
    bad.write_text('{"id": "abc', encoding="utf-8")
    (issue,) = validate_task_file(bad).errors
    assert issue.message == "expected JSON: Unterminated string starting at: line 1 column 8 (char 7)"
