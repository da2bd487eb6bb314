"""Logs are hostile input: a huge line, 100,000-deep nesting, NaN, bytes that are not UTF-8, a symlink, a file or
line count over its cap each become a one-line note, never a traceback, and the rest of the log is still read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import traj_logs as logs

from agenticvbench.cost.usage_stores import MAX_LINE_BYTES
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory import source
from agenticvbench.trajectory.audit import UNREADABLE, audit_run
from agenticvbench.trajectory.context import AuditContext
from agenticvbench.trajectory.locate import read_log

GOOD = logs.claude_code([logs.shell("ffprobe in.mp4")])


def _read(folder: Path, name: str, data: bytes):
    (folder / "1").mkdir(parents=True, exist_ok=True)
    (folder / "1" / name).write_bytes(data)
    with JobDir(folder) as job:
        return read_log(job, ("1", name))


def _one_line(notes: list[str]) -> None:
    assert notes and all("\n" not in n and len(n) < 400 for n in notes), notes


def test_a_huge_line_is_skipped_with_a_note(tmp_path: Path) -> None:
    """A line over the line cap is skipped (never parsed); the lines around it are read."""
    huge = b'{"type": "user", "message": {"content": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}}\n'
    traj = _read(tmp_path, "claude-code.txt", GOOD.encode() + huge + GOOD.encode())
    assert traj.format == "claude-code" and len([s for s in traj.steps if s.tool]) == 2
    assert any("over" in n and "skipped" in n for n in traj.notes)
    _one_line(traj.notes)


@pytest.mark.parametrize("name", ["claude-code.txt", "trajectory.json"])
def test_deep_nesting_is_refused_without_recursing(tmp_path: Path, name: str) -> None:
    """100,000 nested lists in a JSON line or in the ATIF document: a note, no RecursionError."""
    deep = b"[" * 100_000 + b"]" * 100_000
    if name == "trajectory.json":
        data = b'{"schema_version": "ATIF-v1.4", "steps": [' + deep + b"]}"
    else:
        data = GOOD.encode() + b'{"type": "user", "message": {"content": ' + deep + b"}}\n"
    traj = _read(tmp_path, name, data)
    assert any("nested" in n for n in traj.notes), traj.notes
    _one_line(traj.notes)
    if name == "claude-code.txt":
        assert [s.tool for s in traj.steps if s.tool] == ["Bash"]


def test_nan_and_infinity_are_dropped_with_a_note(tmp_path: Path) -> None:
    """NaN tokens in an ATIF step and an Infinity in a JSON line are dropped, named in a note; the steps stay."""
    doc = json.loads(logs.atif([logs.shell("ls")]))
    doc["steps"][1]["metrics"]["prompt_tokens"] = float("nan")
    traj = _read(tmp_path / "a", "trajectory.json", json.dumps(doc).encode())
    assert [s.tokens for s in traj.steps if s.tool] == [10]
    assert any("NaN" in n or "nan" in n for n in traj.notes), traj.notes
    line = GOOD.replace('"input_tokens": 50', '"input_tokens": Infinity')
    traj = _read(tmp_path / "b", "claude-code.txt", line.encode())
    assert [s.tokens for s in traj.steps if s.tokens] == [5] and any("inf" in n.lower() for n in traj.notes)


def test_bytes_that_are_not_utf8_are_noted_once(tmp_path: Path) -> None:
    """Bad UTF-8 inside a line is read as U+FFFD with one note; the call is still judged."""
    bad = GOOD.replace("ffprobe in.mp4", "ffprobe in\udcff.mp4").encode("utf-8", "surrogateescape")
    traj = _read(tmp_path, "claude-code.txt", bad * 2)
    assert len([s for s in traj.steps if s.tool]) == 2
    assert len([n for n in traj.notes if "UTF-8" in n]) == 1


def test_a_symlinked_log_is_not_followed(tmp_path: Path) -> None:
    """A trajectory.json that is a symlink (to another run's log) is refused with a note, and so is a log under
    a symlinked agent/ folder: the task is `unreadable`, not clean."""
    target = tmp_path / "elsewhere.json"
    target.write_text(logs.atif([logs.shell("cat /answers.parquet")]))
    run = tmp_path / "run"
    (run / "1").mkdir(parents=True)
    os.symlink(target, run / "1" / "trajectory.json")
    (tmp_path / "agent-elsewhere").mkdir()
    (tmp_path / "agent-elsewhere" / "trajectory.json").write_text(target.read_text())
    (run / "2").mkdir()
    os.symlink(tmp_path / "agent-elsewhere", run / "2" / "agent")
    ctx = AuditContext(repos=frozenset(), inputs={1: (), 2: ()}, hosts={}, references=frozenset())
    audit = audit_run(run, ctx)
    t1, t2 = audit.tasks
    assert t1.status == UNREADABLE and t1.logs == [] and "symlink" in t1.notes[0]
    assert t2.status == "not audited" and not audit.audited


def test_caps_on_size_and_line_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An ATIF file over the document cap is not read (a note naming the cap); past the line cap a JSONL log
    stops with a note, keeping what was read."""
    monkeypatch.setattr(source, "MAX_DOCUMENT_BYTES", 100)
    traj = _read(tmp_path / "a", "trajectory.json", logs.atif([logs.shell("ls")]).encode())
    assert traj.steps == [] and any("100 byte" in n for n in traj.notes), traj.notes
    monkeypatch.setattr(source, "MAX_LINES", 3)
    traj = _read(tmp_path / "b", "claude-code.txt", (GOOD * 3).encode())
    assert len(traj.steps) >= 1 and any("more than 3 lines" in n for n in traj.notes)


def test_garbage_in_every_field_is_no_traceback(tmp_path: Path) -> None:
    """Wrong types everywhere (steps as a string, calls as numbers, content as objects) read as nothing."""
    junk = {
        "schema_version": "ATIF-v1.4",
        "steps": [
            1,
            "x",
            {"tool_calls": 5, "observation": "y"},
            {"source": "agent", "tool_calls": [{"function_name": 3}]},
        ],
    }
    traj = _read(tmp_path / "a", "trajectory.json", json.dumps(junk).encode())
    assert traj.format == "atif" and [s.tool for s in traj.steps] == [None, "unnamed"]
    init = GOOD.splitlines()[0].encode() + b"\n"
    lines = (
        init + b'{"type": "assistant", "message": {"content": {"a": 1}}}\n{"type": "user", "message": 7}\n'
    )
    traj = _read(tmp_path / "b", "claude-code.txt", lines)
    assert traj.format == "claude-code" and [s.tool for s in traj.steps] == [] and not traj.notes
    events = b'{"type": "item.completed", "item": {"id": 1, "type": ["x"]}}\n{"type": "turn.completed"}\n'
    assert _read(tmp_path / "c", "codex.txt", events).steps == []


def test_a_corrupt_opencode_database_is_a_note(tmp_path: Path) -> None:
    """An `opencode.db` that is SQLite in its header only is one note."""
    (tmp_path / "1" / "agent").mkdir(parents=True)
    (tmp_path / "1" / "agent" / "opencode.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    with JobDir(tmp_path) as job:
        traj = read_log(job, ("1", "agent", "opencode.db"))
    assert (
        traj.format == "opencode" and traj.steps == [] and "not a readable OpenCode database" in traj.notes[0]
    )
