"""Codex CLI's `codex exec --json` event stream (Harbor keeps it as `agent/codex.txt`), one JSON object per line:

- `{"type": "thread.started", "thread_id"}`, `{"type": "turn.started"}`;
- `{"type": "item.started" | "item.updated" | "item.completed", "item": {"id", "type", ...}}`, where the item's
  `type` (`item_type` in early releases) is `agent_message` {`text`}, `reasoning` {`text`}, `command_execution`
  {`command`, `aggregated_output`, `exit_code`, `status`}, `file_change` {`changes`: [{`path`, `kind`}]},
  `mcp_tool_call` {`server`, `tool`, `arguments`, `result`, `error`, `status`}, `web_search` {`query`},
  `todo_list` or `error` {`message`};
- `{"type": "turn.completed", "usage": {"input_tokens", "cached_input_tokens", "output_tokens"}}`,
  `{"type": "turn.failed", "error": {"message"}}`, `{"type": "error", "message"}`.

Each item becomes one step at its first appearance, updated by its later events (the completed item wins);
reasoning and to-do lists are skipped; a turn's tokens (input + output) go on its last step.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory import source
from agenticvbench.trajectory.formats.common import get, head_objects
from agenticvbench.trajectory.model import MAX_STEPS, Step, Trajectory, make_step, token_sum

NAME = "codex"
DESCRIPTION = "codex exec --json events (JSONL)"
_EVENTS = ("thread.", "turn.", "item.")
_SKIPPED = frozenset({"reasoning", "todo_list"})


def sniff(head: bytes, name: str) -> bool:
    """A JSON line whose `type` is a thread, turn or item event."""
    return any(
        isinstance(obj.get("type"), str) and obj["type"].startswith(_EVENTS) for obj in head_objects(head)
    )


def _step(index: int, item: dict[str, Any], time: Any) -> Step | None:
    kind = item.get("type") or item.get("item_type")
    if kind in _SKIPPED or not isinstance(kind, str):
        return None
    if kind == "command_execution":
        code = item.get("exit_code")
        failed = item.get("status") == "failed" or (
            isinstance(code, int) and not isinstance(code, bool) and code
        )
        return make_step(
            index,
            role="agent",
            tool="command_execution",
            arguments=item.get("command"),
            result=item.get("aggregated_output"),
            time=time,
            error=f"exit code {code}" if failed and code is not None else ("failed" if failed else None),
        )
    if kind == "file_change":
        changes = item.get("changes")
        text = (
            [f"{get(c, 'kind')} {get(c, 'path')}" for c in changes[:200] if isinstance(c, dict)]
            if isinstance(changes, list)
            else []
        )
        return make_step(index, role="agent", tool="file_change", arguments=" ".join(text), time=time)
    if kind == "mcp_tool_call":
        tool = f"{item.get('server')}.{item.get('tool')}"
        return make_step(
            index,
            role="agent",
            tool=tool,
            arguments=item.get("arguments"),
            result=item.get("result"),
            error=item.get("error"),
            time=time,
        )
    if kind == "web_search":
        return make_step(index, role="agent", tool="web_search", arguments=item.get("query"), time=time)
    if kind == "error":
        return make_step(index, role="system", error=item.get("message") or "error", time=time)
    return make_step(index, role="agent", arguments=item.get("text"), time=time)


def read(job: JobDir, parts: tuple[str, ...], traj: Trajectory) -> None:
    """Fill `traj` from the `codex exec --json` log at `parts`."""
    steps: list[Step] = []
    by_id: dict[str, int] = {}
    for _, obj in source.json_lines(job, parts, traj):
        kind = obj.get("type")
        time = obj.get("timestamp")
        item = obj.get("item")
        if isinstance(kind, str) and kind.startswith("item.") and isinstance(item, dict):
            iid = item.get("id") if isinstance(item.get("id"), str) else None
            at = by_id.get(iid) if iid else None
            step = _step(len(steps) if at is None else at, item, time)
            if step is None:
                continue
            if at is not None:
                steps[at] = step if step.time else replace(step, time=steps[at].time)
            elif len(steps) < MAX_STEPS:
                if iid:
                    by_id[iid] = len(steps)
                steps.append(step)
        elif kind == "turn.completed" and steps:
            usage = obj.get("usage")
            steps[-1] = replace(
                steps[-1], tokens=token_sum(get(usage, "input_tokens"), get(usage, "output_tokens"))
            )
        elif kind in ("turn.failed", "error") and len(steps) < MAX_STEPS:
            message = get(obj, "error", "message") or obj.get("message") or kind
            steps.append(make_step(len(steps), role="system", error=message, time=time))
    if len(steps) >= MAX_STEPS:
        traj.note(f"{traj.path}: {MAX_STEPS} steps or more; the rest not read")
    traj.steps = steps
