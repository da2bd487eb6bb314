"""Each format's reader turns its log (generated from the format's public description) into the same steps, and
the registry sniffs each file as its own format."""

from __future__ import annotations

from pathlib import Path

import pytest
import traj_logs as logs

from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory import formats
from agenticvbench.trajectory.locate import candidates, read_log

CALLS = [
    logs.shell("ffprobe -v error /workspace/materials/film.mp4", "duration=12.0"),
    logs.Call("read", "/workspace/materials/notes.txt", "hello"),
    logs.Call("search", "film recap techniques", "results"),
]


def _read(tmp_path: Path, fmt: str):
    logs.write(tmp_path / "run" / "1", fmt, CALLS)
    with JobDir(tmp_path / "run") as job:
        found = candidates(job, "1")
        assert len(found) == 1, found
        return read_log(job, found[0])


@pytest.mark.parametrize("fmt", logs.FORMATS)
def test_each_format_is_sniffed_and_read_into_steps(tmp_path: Path, fmt: str) -> None:
    """The log is recognised as its format and every call becomes a tool step with its arguments, the file
    or URL it names, and (where the log pairs them) its result."""
    traj = _read(tmp_path, fmt)
    assert traj.format == fmt and not traj.notes, traj.notes
    calls = [s for s in traj.steps if s.tool is not None]
    assert len(calls) == 3
    assert "ffprobe -v error /workspace/materials/film.mp4" in calls[0].arguments
    assert "/workspace/materials/film.mp4" in calls[0].paths
    assert [s.index for s in traj.steps] == list(range(len(traj.steps)))
    if fmt != "codex":  # codex runs reads as shell commands and reports web searches without results
        assert "/workspace/materials/notes.txt" in calls[1].paths
    assert "film recap techniques" in calls[2].arguments
    assert calls[0].result.startswith("duration=12.0")


@pytest.mark.parametrize("fmt", ["atif", "claude-code", "openclaw"])
def test_tokens_are_kept_where_the_log_records_them(tmp_path: Path, fmt: str) -> None:
    """Per-message usage (input + output) is kept once, on the message's first step: the steps sum to the log's
    usage (three messages)."""
    traj = _read(tmp_path, fmt)
    per_message = {"atif": 110, "claude-code": 55, "openclaw": 12}[fmt]
    assert sum(s.tokens or 0 for s in traj.steps) == 3 * per_message
    assert sum(1 for s in traj.steps if s.tokens) == 3


def test_the_working_folder_is_kept_where_logged(tmp_path: Path) -> None:
    """The init line (Claude Code), the session header (OpenClaw) and the assistant message's `path.cwd`
    (OpenCode) give the folder relative paths are in."""
    for fmt in ("claude-code", "openclaw", "opencode"):
        logs.write(tmp_path / fmt / "1", fmt, CALLS, cwd="/work/run/1")
        with JobDir(tmp_path / fmt) as job:
            assert read_log(job, candidates(job, "1")[0]).cwd == "/work/run/1"


def test_codex_item_updates_replace_the_started_item(tmp_path: Path) -> None:
    """An item seen started then completed is one step, with the completed item's output and exit code."""
    traj = _read(tmp_path, "codex")
    shells = [s for s in traj.steps if s.tool == "command_execution"]
    assert len(shells) == 2 and shells[0].result == "duration=12.0" and shells[0].error is None
    assert traj.steps[-1].tokens == 12


def test_sniffing_tells_the_formats_apart() -> None:
    """Each generated head is sniffed as its own format; text that is none of them is not claimed."""
    heads = {
        "atif": (logs.atif(CALLS).encode(), "trajectory.json"),
        "claude-code": (logs.claude_code(CALLS).encode(), "claude-code.txt"),
        "codex": (logs.codex(CALLS).encode(), "codex.txt"),
        "openclaw": (logs.openclaw(CALLS).encode(), "s1.jsonl"),
        "opencode": (b"SQLite format 3\x00" + b"\x00" * 100, "opencode.db"),
    }
    for name, (head, file) in heads.items():
        found = formats.sniff(head, file)
        assert found is not None and found.name == name
    assert formats.sniff(b'{"segments": []}\n', "x.jsonl") is None
    assert formats.sniff(b"hello\n", "notes.jsonl") is None


def test_a_log_no_reader_knows_is_a_note(tmp_path: Path) -> None:
    """A `.jsonl` in the task folder that is not a trajectory is named in one note and not read."""
    (tmp_path / "run" / "1").mkdir(parents=True)
    (tmp_path / "run" / "1" / "events.jsonl").write_text('{"segments": []}\n')
    with JobDir(tmp_path / "run") as job:
        traj = read_log(job, ("1", "events.jsonl"))
    assert traj.format == "unknown" and traj.notes == [
        "1/events.jsonl: not a trajectory format this audit reads"
    ]


def test_opencode_roles_come_from_the_message_table(tmp_path: Path) -> None:
    """The prompt's text part is the user's; a store without `message_id` (older) is read from `part` alone."""
    traj = _read(tmp_path / "new", "opencode")
    assert [s.role for s in traj.steps[:2]] == ["user", "agent"] and traj.steps[0].arguments == logs.PROMPT
    (tmp_path / "old" / "1" / "agent").mkdir(parents=True)
    logs.opencode_db(tmp_path / "old" / "1" / "agent" / "opencode.db", CALLS, old=True)
    with JobDir(tmp_path / "old") as job:
        old = read_log(job, ("1", "agent", "opencode.db"))
    assert old.format == "opencode" and len([s for s in old.steps if s.tool]) == 3 and old.cwd is None
