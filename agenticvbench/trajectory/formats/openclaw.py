"""OpenClaw's session transcripts (`agents/<agent>/sessions/<session>.jsonl`, the pi coding agent's session
format), one JSON object per line:

- `{"type": "session", "version", "id", "timestamp", "cwd"}`: the header, with the agent's working folder;
- `{"type": "message", "timestamp", "message": {"role": "assistant", "content": [...], "usage": {"input",
  "output", ...}}}`: content blocks `text`, `thinking` and `toolCall` {`id`, `name`, `arguments`};
- `{"type": "message", "message": {"role": "toolResult", "toolCallId", "toolName", "content", "isError"}}`: the
  result of a call, paired with it by id; `{"role": "user"}` messages are the prompts;
- other line types (`model_change`, `thinking_level_change`, `custom`) are skipped.

Each `toolCall` becomes one step (the message's input + output tokens on its first step); text blocks become
message steps.
"""

from __future__ import annotations

from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory import source
from agenticvbench.trajectory.formats.common import StepBuilder, get, has_grounding, head_objects, text_of
from agenticvbench.trajectory.model import MAX_STEPS, Trajectory, token_sum

NAME = "openclaw"
DESCRIPTION = "OpenClaw session JSONL"
_CALLS = frozenset({"toolCall"})


def sniff(head: bytes, name: str) -> bool:
    """A `session` header line, or a `message` line whose role is user, assistant or toolResult."""
    return any(
        (obj.get("type") == "session" and "cwd" in obj)
        or (
            obj.get("type") == "message"
            and get(obj, "message", "role") in ("user", "assistant", "toolResult")
        )
        for obj in head_objects(head)
    )


def read(job: JobDir, parts: tuple[str, ...], traj: Trajectory) -> None:
    """Fill `traj` from the OpenClaw session file at `parts`."""
    b = StepBuilder()
    for _, obj in source.json_lines(job, parts, traj):
        if obj.get("type") == "session" and isinstance(obj.get("cwd"), str):
            traj.cwd = traj.cwd or obj["cwd"][:1000]
            continue
        msg = obj.get("message")
        if obj.get("type") != "message" or not isinstance(msg, dict):
            continue
        time = obj.get("timestamp") or msg.get("timestamp")
        role = msg.get("role")
        content = msg.get("content")
        if role == "toolResult":
            err = "tool error" if msg.get("isError") is True else None
            b.result(msg.get("toolCallId"), content, err, time)
        elif role == "user":
            b.add(None, role="user", arguments=text_of(content), time=time)
        elif role == "assistant":
            tokens = token_sum(get(msg, "usage", "input"), get(msg, "usage", "output"))
            grounded = has_grounding(content)
            for block in content[:1000] if isinstance(content, list) else ():
                if isinstance(block, dict) and b.add_block(
                    block, _CALLS, "arguments", time, tokens, grounded
                ):
                    tokens = None
    if len(b.steps) >= MAX_STEPS:
        traj.note(f"{traj.path}: more than {MAX_STEPS} steps; the rest not read")
    traj.steps = b.steps
