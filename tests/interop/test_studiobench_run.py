"""StudioBench run validation: each rule passes on the valid demo run and fails on a run that breaks it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agenticvbench.interop.secrets import classify_value, find_secrets
from agenticvbench.interop.studiobench import (
    CALL_LIMIT,
    discover_runs,
    load_task_index,
    parse_calls,
    validate_run,
    wall_clock_limit_s,
)
from agenticvbench.interop.studiobench_calls import split_tool_name
from agenticvbench.media import probe


@pytest.fixture(scope="module")
def tasks(sb_demo: dict[str, Path]) -> dict[str, dict[str, Any]]:
    return load_task_index([sb_demo["tasks_dir"]])


def check(run: Path, tasks: dict[str, dict[str, Any]]):
    return validate_run(run, tasks.get(run.parent.name))


def failed(report) -> set[str]:
    return {r.rule for r in report.failures}


@pytest.fixture
def clone(sb_demo: dict[str, Path], tmp_path: Path) -> Path:
    """A private copy of the valid run, laid out as runs/<batch>/<task>/<model>/, to break one thing in."""
    dest = tmp_path / "batch" / "DEMO-001" / "demo-model"
    shutil.copytree(sb_demo["run_valid"], dest)
    return dest


def rewrite_json(path: Path, **changes: Any) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def write_calls(run: Path, records: list[Any]) -> None:
    (run / ".calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


EXPORT = {"name": "mcp__studiobench__export", "ok": True}


def test_valid_run_passes_every_rule(sb_demo: dict[str, Path], tasks) -> None:
    r = check(sb_demo["run_valid"], tasks)
    assert r.submitted and r.valid_for_bench and r.record_ok and r.ok
    assert failed(r) == set() and r.warnings == []
    assert r.task_id == "DEMO-001" and r.model == "demo-model"
    assert 64.9 < r.final_duration_s < 65.1
    assert r.limits == {
        "wall_clock_s": 1850.0,
        "wall_clock_limit_s": 4 * 3600,
        "wall_clock_within": True,
        "calls": 3,
        "call_limit": 200,
        "calls_within": True,
    }


@pytest.mark.parametrize(
    "scenario,rules,submitted,valid,record",
    [
        ("missing_final", {"artifacts", "final_present", "decodable", "duration"}, False, False, False),
        ("bad_calls_log", {"calls_log"}, False, False, True),
        ("not_exported", {"export_called"}, False, False, True),
        ("foreign_tool", {"isolation"}, True, False, True),
        ("backend_missing", {"backends"}, True, False, True),
        ("undecodable", {"decodable", "duration"}, True, False, True),
        ("no_video", {"decodable"}, True, False, True),
        ("too_short", {"duration"}, True, False, True),
        ("missing_artifacts", {"artifacts"}, True, True, False),
        ("bad_result_json", {"result_json", "backends"}, True, False, False),
        ("secret_in_mcp", {"mcp_json"}, True, True, False),
        ("over_limits", set(), True, True, True),
    ],
)
@pytest.mark.slow
def test_demo_scenarios(
    sb_demo: dict[str, Path],
    tasks,
    scenario: str,
    rules: set[str],
    submitted: bool,
    valid: bool,
    record: bool,
) -> None:
    r = check(sb_demo[f"run_{scenario}"], tasks)
    assert failed(r) == rules
    assert (r.submitted, r.valid_for_bench, r.record_ok) == (submitted, valid, record)
    assert r.ok is (not rules)
    assert all(f.reason for f in r.failures)


def test_reasons_name_the_problem(sb_demo: dict[str, Path], tasks) -> None:
    reason = {f.rule: f.reason for f in check(sb_demo["run_missing_artifacts"], tasks).failures}
    assert reason["artifacts"] == "missing: sp.md"
    reason = {f.rule: f.reason for f in check(sb_demo["run_foreign_tool"], tasks).failures}
    assert "Bash" in reason["isolation"]
    reason = {f.rule: f.reason for f in check(sb_demo["run_too_short"], tasks).failures}
    assert "20.000 s" in reason["duration"] and "[60, 90]" in reason["duration"]
    reason = {f.rule: f.reason for f in check(sb_demo["run_backend_missing"], tasks).failures}
    assert "demo-video" in reason["backends"]


def test_over_limits_is_reported_as_warnings(sb_demo: dict[str, Path], tasks) -> None:
    r = check(sb_demo["run_over_limits"], tasks)
    assert r.limits["calls"] == 208 and r.limits["calls_within"] is False
    assert r.limits["wall_clock_within"] is False
    assert any("200" in w for w in r.warnings) and any("14400" in w for w in r.warnings)


def test_wall_clock_limit_by_duration() -> None:
    """Protocol: 4 h for tasks under 2 minutes, 8 h otherwise (judged by the longest allowed cut)."""
    assert wall_clock_limit_s((60, 119.9)) == 4 * 3600
    assert wall_clock_limit_s((60, 120)) == 8 * 3600
    assert wall_clock_limit_s((100, 180)) == 8 * 3600
    assert wall_clock_limit_s(None) is None
    assert CALL_LIMIT == 200


def test_wall_clock_from_timestamps(clone: Path, tasks) -> None:
    rewrite_json(
        clone / "result.json",
        timings={"started_at": "2026-01-01T10:00:00Z", "ended_at": "2026-01-01T15:00:00Z"},
    )
    r = check(clone, tasks)
    assert r.limits["wall_clock_s"] == 5 * 3600 and r.limits["wall_clock_within"] is False
    assert r.valid_for_bench  # limits are warnings only


def test_long_task_gets_eight_hours(clone: Path, tasks) -> None:
    long_task = dict(tasks["DEMO-001"], duration_sec=[60, 150])
    rewrite_json(clone / "result.json", timings={"wall_clock_s": 5 * 3600})
    r = validate_run(clone, long_task)
    assert r.limits["wall_clock_limit_s"] == 8 * 3600 and r.limits["wall_clock_within"] is True


def test_calls_log_rule(clone: Path, tasks) -> None:
    write_calls(clone, [{"name": "mcp__studiobench__plan"}, EXPORT])  # first record has no `ok`
    r = check(clone, tasks)
    assert "calls_log" in failed(r) and "line 1" in {f.rule: f.reason for f in r.failures}["calls_log"]
    assert not r.submitted
    write_calls(clone, [{"name": "mcp__studiobench__plan", "ok": True}, EXPORT])
    assert check(clone, tasks).submitted


def test_parse_calls_checks_fields(tmp_path: Path) -> None:
    p = tmp_path / ".calls.jsonl"
    p.write_text(
        '{"name": "mcp__studiobench__plan", "ok": true, "duration": 1.5, "backend": "b"}\n\n[1]\n'
        '{"name": "", "ok": "yes", "duration": -1, "arguments": []}\n'
    )
    calls, problems = parse_calls(p)
    assert [(c.server, c.tool, c.ok, c.duration_s, c.backend) for c in calls] == [
        ("studiobench", "plan", True, 1.5, "b")
    ]
    assert len(problems) == 2 and "line 3" in problems[0] and "line 4" in problems[1]
    for word in ("name", "ok", "duration", "arguments"):
        assert f"'{word}'" in problems[1]


def test_export_rule_needs_a_successful_studiobench_export(clone: Path, tasks) -> None:
    write_calls(clone, [{"name": "mcp__studiobench__export", "ok": False, "error": "render failed"}])
    assert "export_called" in failed(check(clone, tasks))
    write_calls(clone, [{"name": "mcp__other__export", "ok": True}])
    assert "export_called" in failed(check(clone, tasks))
    write_calls(clone, [{"name": "export", "server": "studiobench", "ok": True}])
    assert check(clone, tasks).ok


def test_final_present_rule(clone: Path, tasks) -> None:
    (clone / "final.mp4").unlink()
    r = check(clone, tasks)
    assert "final_present" in failed(r) and not r.submitted


@pytest.mark.parametrize("artifact", ["result.json", "mcp.json", ".calls.jsonl", "final.mp4"])
def test_an_artifact_linked_outside_the_run_folder_is_refused(
    clone: Path, tasks, tmp_path: Path, artifact: str
) -> None:
    """The agent writes the run folder: a symlink from an artifact to another run's valid file (or to any file on
    the machine) used to be followed, so a run could pass the protocol with borrowed files, or make the validator
    read what it likes. It is now refused by name and read as missing; the run is not submitted."""
    outside = tmp_path / "elsewhere" / artifact
    outside.parent.mkdir()
    shutil.move(clone / artifact, outside)  # the very same valid bytes, one folder away
    (clone / artifact).symlink_to(outside)
    r = check(clone, tasks)
    assert "artifacts" in failed(r) and not r.ok
    why = next(x.reason for x in r.rules if x.rule == "artifacts")
    assert f"refused {clone / artifact}: a symlink to {outside}" in why and "outside the run folder" in why
    (clone / artifact).unlink()
    shutil.move(outside, clone / artifact)  # the same bytes back inside the folder pass again
    assert check(clone, tasks).ok


def test_a_symlink_inside_the_run_folder_is_still_read(clone: Path, tasks) -> None:
    """Containment is about where a link resolves, not about links: one that stays in the folder is read."""
    (clone / "final.mp4").rename(clone / "render.mp4")
    (clone / "final.mp4").symlink_to("render.mp4")
    assert check(clone, tasks).ok


@pytest.mark.parametrize(
    "name,server", [("Bash", None), ("mcp__filesystem__read", None), ("read", "files"), ("read", None)]
)
def test_isolation_rejects_foreign_calls(clone: Path, tasks, name: str, server: str | None) -> None:
    rec = {"name": name, "ok": True} | ({"server": server} if server else {})
    write_calls(clone, [rec, EXPORT])
    r = check(clone, tasks)
    assert failed(r) == {"isolation"} and r.submitted and not r.valid_for_bench


def test_isolation_checks_tools_available_and_mcp_servers(clone: Path, tasks) -> None:
    rewrite_json(clone / "result.json", tools_available=["mcp__studiobench__export", "WebSearch"])
    assert "WebSearch" in {f.rule: f.reason for f in check(clone, tasks).failures}["isolation"]
    rewrite_json(clone / "result.json", tools_available=["mcp__studiobench__export"])
    assert check(clone, tasks).ok
    mcp = json.loads((clone / "mcp.json").read_text())
    mcp["mcpServers"]["github"] = {"command": "gh-mcp"}
    (clone / "mcp.json").write_text(json.dumps(mcp))
    assert "github" in {f.rule: f.reason for f in check(clone, tasks).failures}["isolation"]


def test_split_tool_name() -> None:
    assert split_tool_name("mcp__studiobench__export") == ("studiobench", "export")
    assert split_tool_name("mcp__studio_bench__a__b") == ("studio_bench", "a__b")
    assert split_tool_name("export", "studiobench") == ("studiobench", "export")
    assert split_tool_name("mcp____x") == (None, "mcp____x")


def test_backends_rule(clone: Path, tasks) -> None:
    rewrite_json(clone / "result.json", backends={"required": ["a", "b"], "available": ["b", "a", "c"]})
    assert check(clone, tasks).ok
    rewrite_json(clone / "result.json", backends={"required": ["a", "b"], "available": ["a"]})
    assert failed(check(clone, tasks)) == {"backends"}
    rewrite_json(clone / "result.json", backends=None)
    assert failed(check(clone, tasks)) == {"backends"}


def test_result_json_needs_a_model(clone: Path, tasks) -> None:
    rewrite_json(clone / "result.json", model="")
    r = check(clone, tasks)
    assert "result_json" in failed(r) and not r.record_ok and r.model == "demo-model"


@pytest.mark.parametrize("lo,hi,ok", [(60, 90, True), (65, 65, True), (60, 64, False), (66, 90, False)])
def test_duration_rule_boundaries(sb_demo: dict[str, Path], tasks, lo: float, hi: float, ok: bool) -> None:
    r = validate_run(sb_demo["run_valid"], dict(tasks["DEMO-001"], duration_sec=[lo, hi]))
    assert ("duration" not in failed(r)) is ok


def test_duration_rule_needs_a_valid_task(sb_demo: dict[str, Path], tasks) -> None:
    r = validate_run(sb_demo["run_valid"], None)
    assert failed(r) == {"duration"} and "not given" in r.failures[0].reason
    assert r.limits["wall_clock_limit_s"] is None and r.limits["wall_clock_within"] is None
    r = validate_run(sb_demo["run_valid"], dict(tasks["DEMO-001"], domain="sports"))
    assert failed(r) == {"duration"} and "not a valid task" in r.failures[0].reason


def test_recorded_flags_are_compared(clone: Path, tasks) -> None:
    rewrite_json(clone / "result.json", valid_for_bench=False, calls={"total": 9})
    r = check(clone, tasks)
    assert r.ok
    assert any("valid_for_bench=false" in w for w in r.warnings)
    assert any("9 calls" in w for w in r.warnings)


def test_to_dict_is_json(sb_demo: dict[str, Path], tasks) -> None:
    d = check(sb_demo["run_secret_in_mcp"], tasks).to_dict()
    text = json.dumps(d)
    assert d["ok"] is False and d["valid_for_bench"] is True
    assert d["secrets"][0]["path"] == "/mcpServers/studiobench/env/STUDIOBENCH_VIDEO_API_KEY"
    assert "sk-demo" not in text  # the secret itself is never echoed


def test_discover_runs(sb_demo: dict[str, Path], tmp_path: Path) -> None:
    assert discover_runs(sb_demo["run_valid"]) == [sb_demo["run_valid"]]
    batch = sb_demo["runs_dir"] / "valid"
    assert discover_runs(batch) == [sb_demo["run_valid"]]
    assert discover_runs(batch / "DEMO-001") == [sb_demo["run_valid"]]
    every = discover_runs(sb_demo["runs_dir"])
    assert len(every) == 13 and sb_demo["run_too_short"] in every
    assert discover_runs(tmp_path) == [tmp_path]


@pytest.mark.parametrize(
    "doc,paths",
    [
        ({"env": {"OPENAI_API_KEY": "sk-proj-abcdefghijklmnopqrstuvwxyz012345"}}, ["/env/OPENAI_API_KEY"]),
        ({"env": {"X": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}, ["/env/X"]),
        ({"env": {"HF": "hf_abcdefghijklmnopqrstuvwxyzABCD"}}, ["/env/HF"]),
        ({"env": {"AWS": "AKIAABCDEFGHIJKLMNOP"}}, ["/env/AWS"]),
        ({"headers": {"Authorization": "Bearer abcdefghijklmnop0123456789"}}, ["/headers/Authorization"]),
        ({"env": {"SERVICE_TOKEN": "hunter2-password"}}, ["/env/SERVICE_TOKEN"]),
        ({"args": ["--api-key", "plainvalue123"]}, ["/args/1"]),
        ({"args": ["--token=plainvalue123"]}, ["/args/0"]),
        ({"x": "Q2hhbmdlTWVQbGVhc2VUaGlzSXNBTG9uZ1JhbmRvbTEyMw"}, ["/x"]),
        ({"env": {"API_KEY": "${API_KEY}", "TOKEN": "$TOKEN", "SECRET": "<redacted>", "PASSWORD": ""}}, []),
        (
            {
                "command": "python",
                "args": ["-m", "studiobench.server", "--port", "8080"],
                "env": {"HOME": "/tmp/h"},
            },
            [],
        ),
        ({"args": ["--api-key=${KEY}"], "max_tokens": "4096"}, []),
    ],
)
def test_find_secrets(doc: dict[str, Any], paths: list[str]) -> None:
    assert [f.path for f in find_secrets(doc)] == paths


def test_classify_value_never_flags_plain_config() -> None:
    assert classify_value("/usr/local/bin/studiobench-server") is None
    assert classify_value("stdio", "type") is None
    assert classify_value("sk-ant-api03-abcdefghijklmnopqrstuv") == "Anthropic API key"


def test_decodable_means_frames_decode_not_just_a_header(clone: Path, tasks) -> None:
    """A file whose header probes fine but whose media data is garbage must fail `decodable`."""
    data = bytearray((clone / "final.mp4").read_bytes())
    mdat = data.find(b"mdat")
    end = mdat - 4 + int.from_bytes(data[mdat - 4 : mdat], "big")  # the box size precedes its type
    data[mdat + 4 : end] = bytes(end - mdat - 4)
    (clone / "final.mp4").write_bytes(bytes(data))
    assert probe(clone / "final.mp4").video is not None  # the header is intact
    r = check(clone, tasks)
    assert (
        "decodable" in failed(r) and "does not decode" in {f.rule: f.reason for f in r.failures}["decodable"]
    )


def test_decodable_needs_at_least_one_frame(clone: Path, tasks, monkeypatch: pytest.MonkeyPatch) -> None:
    """A video stream that decodes to nothing (simulated: the decoder yields no frame) is not decodable."""
    import agenticvbench.interop.studiobench_run as sr

    monkeypatch.setattr(sr, "iter_frames", lambda *a, **k: iter(()))
    r = check(clone, tasks)
    assert failed(r) == {"decodable"} and "no video frames" in r.failures[0].reason


def test_agent_written_json_is_read_bounded(clone: Path, tasks, monkeypatch: pytest.MonkeyPatch) -> None:
    """`result.json`, `mcp.json` and `.calls.jsonl` are written by the agent: a file over the cap, JSON nested
    past the depth limit is a named problem of that file, never a crash or an unbounded read (these
    files were read with plain `read_text` + `json.loads`)."""
    from agenticvbench.interop import studiobench_calls

    (clone / "result.json").write_text("[" * 5000 + "]" * 5000)
    r = check(clone, tasks)
    assert "result_json" in failed(r)
    assert "nested" in {f.rule: f.reason for f in r.failures}["result_json"]

    monkeypatch.setattr(studiobench_calls, "CALLS_MAX_BYTES", 64)
    write_calls(clone, [{"name": "mcp__studiobench__plan", "ok": True}] * 10)
    calls, problems = parse_calls(clone / ".calls.jsonl")
    assert calls == [] and problems == [".calls.jsonl: over the 64 byte limit"]
