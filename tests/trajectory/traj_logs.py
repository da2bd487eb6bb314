"""Trajectory logs generated in code, one writer per format, each following the format's public description
(Harbor's ATIF RFC, Claude Code's stream-json, `codex exec --json` events, OpenCode's `part` rows, OpenClaw's
session lines). A log is a list of `Call`s: a shell command, a file read, a web search or a fetch, with its
result."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

#: The official dataset repository, and its page on the Hub.
REPO = "Anonymous47621123/AgenticVBench_100"
HUB = f"https://huggingface.co/datasets/{REPO}"
FORMATS = ("atif", "claude-code", "codex", "opencode", "openclaw")


@dataclass(frozen=True)
class Call:
    """One tool call: `kind` is shell | read | search | fetch; `text` its command, path, query or URL."""

    kind: str
    text: str
    result: str = "ok"


def shell(cmd: str, result: str = "ok") -> Call:
    """A shell command."""
    return Call("shell", cmd, result)


#: Each format's tool name and argument key per call kind.
_TOOLS = {
    "atif": {
        "shell": ("Bash", "command"),
        "read": ("Read", "file_path"),
        "search": ("WebSearch", "query"),
        "fetch": ("WebFetch", "url"),
    },
    "claude-code": {
        "shell": ("Bash", "command"),
        "read": ("Read", "file_path"),
        "search": ("WebSearch", "query"),
        "fetch": ("WebFetch", "url"),
    },
    "openclaw": {
        "shell": ("exec", "command"),
        "read": ("read", "path"),
        "search": ("web_search", "query"),
        "fetch": ("web_fetch", "url"),
    },
    "opencode": {
        "shell": ("bash", "command"),
        "read": ("read", "filePath"),
        "search": ("websearch", "query"),
        "fetch": ("webfetch", "url"),
    },
}
PROMPT = "Recut the film into a recap."


def atif(calls: list[Call]) -> str:
    """An ATIF-v1.4 document: a user step, then one agent step per call with its observation and metrics."""
    steps = [{"step_id": 1, "timestamp": "2026-01-01T00:00:00Z", "source": "user", "message": PROMPT}]
    for i, c in enumerate(calls):
        name, key = _TOOLS["atif"][c.kind]
        cid = f"call_{i}"
        steps.append(
            {
                "step_id": i + 2,
                "timestamp": f"2026-01-01T00:00:{i + 1:02d}Z",
                "source": "agent",
                "model_name": "m",
                "message": "working",
                "tool_calls": [{"tool_call_id": cid, "function_name": name, "arguments": {key: c.text}}],
                "observation": {"results": [{"source_call_id": cid, "content": c.result}]},
                "metrics": {"prompt_tokens": 100, "completion_tokens": 10, "cached_tokens": 0},
            }
        )
    doc = {
        "schema_version": "ATIF-v1.4",
        "session_id": "s1",
        "agent": {"name": "a", "version": "1", "model_name": "m"},
        "steps": steps,
        "final_metrics": {"total_prompt_tokens": 100 * len(calls)},
    }
    return json.dumps(doc, indent=2)


def claude_code(calls: list[Call], cwd: str = "/workspace") -> str:
    """stream-json lines: init, then per call an assistant tool_use and a user tool_result, then the result."""
    lines = [
        {
            "type": "system",
            "subtype": "init",
            "cwd": cwd,
            "session_id": "s1",
            "tools": ["Bash"],
            "model": "claude",
        }
    ]
    for i, c in enumerate(calls):
        name, key = _TOOLS["claude-code"][c.kind]
        tid = f"toolu_{i}"
        lines.append(
            {
                "type": "assistant",
                "session_id": "s1",
                "message": {
                    "id": f"msg_{i}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude",
                    "content": [
                        {"type": "text", "text": "Next step."},
                        {"type": "tool_use", "id": tid, "name": name, "input": {key: c.text}},
                    ],
                    "usage": {"input_tokens": 50, "output_tokens": 5},
                },
            }
        )
        lines.append(
            {
                "type": "user",
                "session_id": "s1",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": tid, "content": c.result, "is_error": False}
                    ],
                },
            }
        )
    lines.append(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": "done",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    return "\n".join(json.dumps(x) for x in lines) + "\n"


def codex(calls: list[Call]) -> str:
    """`codex exec --json` events: thread and turn events, item.started/item.completed per call."""
    lines: list[dict] = [{"type": "thread.started", "thread_id": "t1"}, {"type": "turn.started"}]
    for i, c in enumerate(calls):
        iid = f"item_{i}"
        if c.kind == "search":
            item = {"id": iid, "type": "web_search", "query": c.text}
            lines.append({"type": "item.completed", "item": item})
            continue
        cmd = c.text if c.kind == "shell" else (f"cat {c.text}" if c.kind == "read" else f"curl -sL {c.text}")
        lines.append(
            {
                "type": "item.started",
                "item": {
                    "id": iid,
                    "type": "command_execution",
                    "command": f"bash -lc '{cmd}'",
                    "aggregated_output": "",
                    "status": "in_progress",
                },
            }
        )
        lines.append(
            {
                "type": "item.completed",
                "item": {
                    "id": iid,
                    "type": "command_execution",
                    "command": f"bash -lc '{cmd}'",
                    "aggregated_output": c.result,
                    "exit_code": 0,
                    "status": "completed",
                },
            }
        )
    lines.append(
        {"type": "item.completed", "item": {"id": "item_z", "type": "agent_message", "text": "done"}}
    )
    lines.append(
        {
            "type": "turn.completed",
            "usage": {"input_tokens": 10, "cached_input_tokens": 0, "output_tokens": 2},
        }
    )
    return "\n".join(json.dumps(x) for x in lines) + "\n"


def openclaw(calls: list[Call], cwd: str = "/workspace") -> str:
    """A session file: the header, the user prompt, then per call an assistant toolCall and its toolResult."""
    lines: list[dict] = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": cwd},
        {
            "type": "message",
            "id": "m0",
            "message": {"role": "user", "content": [{"type": "text", "text": PROMPT}]},
        },
    ]
    for i, c in enumerate(calls):
        name, key = _TOOLS["openclaw"][c.kind]
        lines.append(
            {
                "type": "message",
                "id": f"a{i}",
                "timestamp": "2026-01-01T00:00:01Z",
                "message": {
                    "role": "assistant",
                    "provider": "p",
                    "model": "m",
                    "content": [
                        {"type": "toolCall", "id": f"c{i}", "name": name, "arguments": {key: c.text}}
                    ],
                    "usage": {
                        "input": 10,
                        "output": 2,
                        "cacheRead": 0,
                        "cacheWrite": 0,
                        "cost": {"total": 0.0},
                    },
                },
            }
        )
        lines.append(
            {
                "type": "message",
                "id": f"r{i}",
                "message": {
                    "role": "toolResult",
                    "toolCallId": f"c{i}",
                    "toolName": name,
                    "content": [{"type": "text", "text": c.result}],
                    "isError": False,
                },
            }
        )
    return "\n".join(json.dumps(x) for x in lines) + "\n"


def opencode_db(path: Path, calls: list[Call], cwd: str = "/workspace", *, old: bool = False) -> Path:
    """An `opencode.db` with OpenCode's `message` and `part` tables: the user's prompt, then an assistant message
    (with its working folder) holding a text part and one tool part per call. `old`: a `part` table without
    `message_id` and no `message` table."""
    conn = sqlite3.connect(path)
    if old:
        conn.execute("CREATE TABLE part (id TEXT PRIMARY KEY, data TEXT)")
        rows = []
    else:
        conn.execute(
            "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, "
            "time_updated INTEGER, data TEXT)"
        )
        conn.execute(
            "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, "
            "time_created INTEGER, time_updated INTEGER, data TEXT)"
        )
        for mid, data in (
            ("msg_0", {"role": "user", "time": {"created": 1767225600000}}),
            (
                "msg_1",
                {
                    "role": "assistant",
                    "path": {"cwd": cwd, "root": cwd},
                    "modelID": "m",
                    "providerID": "p",
                    "tokens": {"input": 10, "output": 2},
                },
            ),
        ):
            conn.execute("INSERT INTO message VALUES (?, 'ses_1', 0, 0, ?)", (mid, json.dumps(data)))
        rows = [("prt_000", "msg_0", {"type": "text", "text": PROMPT})]
    rows.append(("prt_001", "msg_1", {"type": "text", "text": "Looking at the inputs."}))
    for i, c in enumerate(calls):
        name, key = _TOOLS["opencode"][c.kind]
        rows.append(
            (
                f"prt_{i + 2:03d}",
                "msg_1",
                {
                    "type": "tool",
                    "tool": name,
                    "callID": f"call_{i}",
                    "state": {
                        "status": "completed",
                        "input": {key: c.text},
                        "output": c.result,
                        "title": name,
                        "time": {"start": 1767225600000 + i, "end": 1767225600100 + i},
                    },
                },
            )
        )
    for pid, mid, data in rows:
        if old:
            conn.execute("INSERT INTO part VALUES (?, ?)", (pid, json.dumps(data)))
        else:
            conn.execute("INSERT INTO part VALUES (?, ?, 'ses_1', 0, 0, ?)", (pid, mid, json.dumps(data)))
    conn.commit()
    conn.close()
    return path


def write(task_dir: Path, fmt: str, calls: list[Call], **kw: str) -> Path:
    """Write a log of `fmt` where `avb audit` looks for it in task folder `task_dir`; returns its path."""
    agent = task_dir / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    if fmt == "atif":
        path = agent / "trajectory.json"
        path.write_text(atif(calls))
    elif fmt == "claude-code":
        path = agent / "claude-code.txt"
        path.write_text(claude_code(calls, **kw))
    elif fmt == "codex":
        path = agent / "codex.txt"
        path.write_text(codex(calls))
    elif fmt == "openclaw":
        sessions = agent / "agents" / "main" / "sessions"
        sessions.mkdir(parents=True, exist_ok=True)
        path = sessions / "s1.jsonl"
        path.write_text(openclaw(calls, **kw))
    elif fmt == "opencode":
        path = opencode_db(agent / "opencode.db", calls, **kw)
    else:
        raise ValueError(fmt)
    return path
