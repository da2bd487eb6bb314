"""Harbor's Agent Trajectory Interchange Format (ATIF, `agent/trajectory.json`, written by Harbor's agent
adapters; RFC 0001 of laude-institute/harbor, schema versions `ATIF-v1.x`).

One JSON document: `schema_version`, `session_id`, `agent` {`name`, `version`, `model_name`}, `steps`, and
`final_metrics`. Each step has `step_id`, `timestamp` (ISO 8601), `source` (`system`, `user` or `agent`),
`message`, and for agent steps optionally `tool_calls` [{`tool_call_id`, `function_name`, `arguments`}],
`observation` {`results`: [{`source_call_id`, `content`}]} and `metrics` {`prompt_tokens`, `completion_tokens`,
`cached_tokens`, `cost_usd`}. Each tool call becomes one step with the observation result of the same call id;
a step without calls becomes one message step.
"""

from __future__ import annotations

from typing import Any

from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory import source
from agenticvbench.trajectory.formats.common import get, has_grounding, text_of
from agenticvbench.trajectory.model import MAX_STEPS, Step, Trajectory, make_step, token_sum

NAME = "atif"
DESCRIPTION = "Harbor ATIF trajectory.json"
_ROLES = {"agent": "agent", "user": "user", "system": "system"}


def sniff(head: bytes, name: str) -> bool:
    """A JSON document naming an ATIF schema version, or an object with `steps`."""
    start = head.lstrip()[:1]
    return start == b"{" and (b'"ATIF-v' in head or b'"steps"' in head) and not name.endswith(".jsonl")


def _results(step: dict[str, Any]) -> tuple[dict[str, str], str]:
    """(call id -> result text, text of results tied to no call) of a step's observation."""
    by_id: dict[str, str] = {}
    loose: list[str] = []
    results = get(step, "observation", "results")
    for r in results[:1000] if isinstance(results, list) else ():
        if not isinstance(r, dict):
            continue
        content = r.get("content")
        text = content if isinstance(content, str) else text_of(content)
        sid = r.get("source_call_id")
        if isinstance(sid, str) and sid:
            by_id[sid] = by_id.get(sid, "") + text
        else:
            loose.append(text)
    return by_id, " ".join(loose)


def steps_of(doc: Any, traj: Trajectory) -> list[Step]:
    """The steps of a parsed ATIF document (`traj` gets a note for what is not ATIF)."""
    raw = doc.get("steps") if isinstance(doc, dict) else None
    if not isinstance(raw, list):
        traj.note(f"{traj.path}: no `steps` list; not an ATIF trajectory")
        return []
    out: list[Step] = []
    for step in raw:
        if len(out) >= MAX_STEPS:
            traj.note(f"{traj.path}: more than {MAX_STEPS} steps; the rest not read")
            break
        if not isinstance(step, dict):
            continue
        role = _ROLES.get(str(step.get("source")), "agent")
        metrics = step.get("metrics")
        tokens = token_sum(get(metrics, "prompt_tokens"), get(metrics, "completion_tokens"))
        grounded = has_grounding(step.get("extra")) or has_grounding(metrics)
        by_id, loose = _results(step)
        raw_calls = step.get("tool_calls")
        calls = [c for c in raw_calls[:1000] if isinstance(c, dict)] if isinstance(raw_calls, list) else []
        common: dict[str, Any] = {"time": step.get("timestamp"), "grounded": grounded}
        if not calls:
            out.append(
                make_step(
                    len(out),
                    role=role,
                    arguments=text_of(step.get("message")),
                    result=loose,
                    tokens=tokens,
                    **common,
                )
            )
            continue
        for i, call in enumerate(calls):
            cid = call.get("tool_call_id")
            result = by_id.get(cid, "") if isinstance(cid, str) else ""
            out.append(
                make_step(
                    len(out),
                    role="agent",
                    tool=call.get("function_name")
                    if isinstance(call.get("function_name"), str)
                    else "unnamed",
                    arguments=call.get("arguments"),
                    result=result or (loose if i == 0 else ""),
                    tokens=tokens if i == 0 else None,
                    **common,
                )
            )
    return out


def read(job: JobDir, parts: tuple[str, ...], traj: Trajectory) -> None:
    """Fill `traj` from the ATIF document at `parts`."""
    doc = source.document(job, parts, traj)
    if doc is not None:
        traj.steps = steps_of(doc, traj)
