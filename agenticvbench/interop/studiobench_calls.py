"""StudioBench call logs (`.calls.jsonl`): the record format, the StudioBench server's name, and the parser.

The protocol does not fix the layout of a `.calls.jsonl` record, so this module reads the fields documented in
docs/interop.md ("What a run must record"): one JSON object per line with `name` (non-empty string) and `ok`
(bool); optional `server`, `arguments` (object), `backend`, `output`, `duration` (seconds), `error`. A tool belongs
to the StudioBench server when its name is `mcp__studiobench__<tool>` (Claude Code's MCP naming) or the record says
`"server": "studiobench"`; anything else is a foreign tool. The run rules that read the calls are
`studiobench_run`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from agenticvbench.fsutil import TooLargeError, parse_json_bounded, read_capped

STUDIOBENCH_SERVER = "studiobench"
#: Cap on the agent-written call log.
CALLS_MAX_BYTES = 64 * 1024 * 1024


@dataclass(kw_only=True, frozen=True)
class ToolCall:
    """One parsed `.calls.jsonl` record."""

    line: int
    name: str
    server: str | None
    tool: str
    ok: bool
    backend: str | None = None
    duration_s: float | None = None

    @property
    def studiobench(self) -> bool:
        """True when the call went to the StudioBench MCP server."""
        return self.server == STUDIOBENCH_SERVER


def split_tool_name(name: str, server: str | None = None) -> tuple[str | None, str]:
    """(server, tool) for a call name: `mcp__<server>__<tool>`, else the record's own `server` field."""
    if name.startswith("mcp__"):
        srv, sep, tool = name[5:].partition("__")
        if sep and srv and tool:
            return srv, tool
    return server, name


def parse_calls(path: Path) -> tuple[list[ToolCall], list[str]]:
    """Parse `.calls.jsonl`; returns the calls and one problem string per bad line (blank lines are skipped)."""
    calls: list[ToolCall] = []
    problems: list[str] = []
    try:
        lines = read_capped(path, CALLS_MAX_BYTES).splitlines()
    except TooLargeError:
        return [], [f"{path.name}: over the {CALLS_MAX_BYTES} byte limit"]
    except OSError as exc:
        return [], [f"{path.name}: cannot read ({exc.__class__.__name__})"]
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = parse_json_bounded(line, f"{path.name} line {n}")
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if not isinstance(rec, dict):
            problems.append(f"{path.name} line {n}: expected an object, got {type(rec).__name__}")
            continue
        name, ok, srv = rec.get("name"), rec.get("ok"), rec.get("server")
        bad = []
        if not isinstance(name, str) or not name.strip():
            bad.append("'name' must be a non-empty string")
        if not isinstance(ok, bool):
            bad.append("'ok' must be true or false")
        if srv is not None and not isinstance(srv, str):
            bad.append("'server' must be a string")
        if "arguments" in rec and not isinstance(rec["arguments"], dict):
            bad.append("'arguments' must be an object")
        dur = rec.get("duration")
        if dur is not None and (
            isinstance(dur, bool) or not isinstance(dur, (int, float)) or not math.isfinite(dur) or dur < 0
        ):
            bad.append("'duration' must be a non-negative number of seconds")
        if bad:
            problems.append(f"{path.name} line {n}: " + "; ".join(bad))
            continue
        server, tool = split_tool_name(str(name), srv)
        backend = rec.get("backend") if isinstance(rec.get("backend"), str) else None
        calls.append(
            ToolCall(
                line=n,
                name=str(name),
                server=server,
                tool=tool,
                ok=bool(ok),
                backend=backend,
                duration_s=float(dur) if dur is not None else None,
            )
        )
    return calls, problems
