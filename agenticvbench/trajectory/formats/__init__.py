"""The registry of trajectory formats: one strict reader per format, each with a `sniff` that tells its files
apart by their first bytes (an Inspect `.eval` by its name). `FORMATS` is in sniffing order (the first match
wins: Inspect's JSON logs before ATIF, whose sniffer their plan's `steps` would match); the format's name is
recorded on every `Trajectory` it reads.

| name | what | module |
|---|---|---|
| `inspect` | Inspect AI's eval logs (`.eval`, and `.json` logs), read with inspect_ai | `trajectory.formats.inspect_log` |
| `atif` | Harbor's ATIF `trajectory.json` | `trajectory.formats.atif` |
| `claude-code` | Claude Code `--output-format stream-json` JSONL (and its session files) | `trajectory.formats.claude_code` |
| `codex` | `codex exec --json` JSONL events | `trajectory.formats.codex` |
| `opencode` | OpenCode's `opencode.db` (SQLite) | `trajectory.formats.opencode` |
| `openclaw` | OpenClaw session JSONL | `trajectory.formats.openclaw` |
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory.formats import atif, claude_code, codex, inspect_log, openclaw, opencode
from agenticvbench.trajectory.model import Trajectory


@dataclass(frozen=True)
class Format:
    """One trajectory format: its name, a one-line description, its sniffer and its reader."""

    name: str
    description: str
    sniff: Callable[[bytes, str], bool]
    read: Callable[[JobDir, tuple[str, ...], Trajectory], None]


FORMATS: tuple[Format, ...] = tuple(
    Format(m.NAME, m.DESCRIPTION, m.sniff, m.read)
    for m in (opencode, inspect_log, atif, codex, openclaw, claude_code)
)
BY_NAME = {f.name: f for f in FORMATS}


def sniff(head: bytes, name: str) -> Format | None:
    """The format of a file from its first bytes and its name, or None when no reader knows it."""
    return next((f for f in FORMATS if f.sniff(head, name)), None)
