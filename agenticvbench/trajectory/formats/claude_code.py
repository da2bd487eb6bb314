"""Claude Code's `--output-format stream-json` (`claude -p ... --output-format stream-json --verbose`; Harbor keeps
it as `agent/claude-code.txt`), one JSON object per line. Claude Code's own session files
(`~/.claude/projects/<project>/<session>.jsonl`) use the same message lines and are read the same way.

- `{"type": "system", "subtype": "init", "cwd", "session_id", "tools", "model"}`: the agent's working folder;
- `{"type": "assistant", "message": {"content": [...], "usage": {...}}}`: content blocks `text`, `tool_use`
  {`id`, `name`, `input`} and the server tools' `server_tool_use` {`id`, `name` (`web_search`, `web_fetch`),
  `input`} with their `web_search_tool_result` / `web_fetch_tool_result` blocks;
- `{"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id", "content", "is_error"}]}}`:
  the result of a call, paired with it by id;
- `{"type": "result", ...}`: the final totals (read for usage by `cost.usage`, not here).

Each `tool_use` becomes one step (the message's input + output tokens on its first step); text blocks become
message steps; a tool result with no call before it is kept as a `tool` step.
"""

from __future__ import annotations

from typing import Any

from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory import source
from agenticvbench.trajectory.formats.common import StepBuilder, get, has_grounding, head_objects, text_of
from agenticvbench.trajectory.model import MAX_STEPS, Trajectory, token_sum

NAME = "claude-code"
DESCRIPTION = "Claude Code stream-json (JSONL)"
_TYPES = frozenset({"system", "assistant", "user", "result"})
_CALLS = frozenset({"tool_use", "server_tool_use"})
_RESULTS = frozenset({"tool_result", "web_search_tool_result", "web_fetch_tool_result"})


def sniff(head: bytes, name: str) -> bool:
    """A JSON line of type system/assistant/user/result carrying `session_id` or a `message` with content."""
    return any(
        obj.get("type") in _TYPES
        and (obj.get("subtype") == "init" or isinstance(get(obj, "message", "content"), (list, str)))
        for obj in head_objects(head)
    )


def _assistant(b: StepBuilder, obj: dict[str, Any]) -> None:
    msg = obj.get("message")
    content = get(msg, "content")
    usage = get(msg, "usage")
    tokens = token_sum(get(usage, "input_tokens"), get(usage, "output_tokens"))
    time, grounded = obj.get("timestamp"), has_grounding(content)
    blocks = content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]
    for block in blocks[:1000]:
        if not isinstance(block, dict):
            continue
        if block.get("type") in _RESULTS:
            b.result(
                block.get("tool_use_id"), block.get("content"), get(block, "content", "error_code"), time
            )
        elif not b.add_block(block, _CALLS, "input", time, tokens, grounded):
            continue
        tokens = None


def read(job: JobDir, parts: tuple[str, ...], traj: Trajectory) -> None:
    """Fill `traj` from the stream-json log at `parts`."""
    b = StepBuilder()
    for _, obj in source.json_lines(job, parts, traj):
        kind = obj.get("type")
        if kind == "system" and isinstance(obj.get("cwd"), str):
            traj.cwd = traj.cwd or obj["cwd"][:1000]
        elif kind == "assistant":
            _assistant(b, obj)
        elif kind == "user":
            content = get(obj, "message", "content")
            for block in content[:1000] if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    err = "tool error" if block.get("is_error") is True else None
                    b.result(block.get("tool_use_id"), block.get("content"), err, obj.get("timestamp"))
            if isinstance(content, str) and content.strip():
                b.add(None, role="user", arguments=content, time=obj.get("timestamp"))
        if traj.cwd is None and isinstance(obj.get("cwd"), str):  # session files carry cwd on every line
            traj.cwd = obj["cwd"][:1000]
    if len(b.steps) >= MAX_STEPS:
        traj.note(f"{traj.path}: more than {MAX_STEPS} steps; the rest not read")
    traj.steps = b.steps
