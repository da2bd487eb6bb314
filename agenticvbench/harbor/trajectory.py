"""Trajectory facts per trial, from what Harbor stores: the agent's ATIF trajectory
(`TRIAL/agent/trajectory.json`, written by Harbor's agent adapters) and the trial's timing.

Per task: turns (agent steps), tool calls by tool name, agent wall time (`agent_execution` start to finish), and
whether the agent inspected the media: `ffprobe` calls, and frame extractions (an `ffmpeg` call that writes
images or selects frames: `-frames:v`/`-vframes`, a `select=`/`thumbnail`/`fps=` filter, or an image output).

The trajectory is hostile input like every file of a job: read through `JobDir` (no symlink, regular file, at
most `MAX_TRAJECTORY_BYTES`) and its strict reader (`files.read_document`: no NaN, capped strings), wrong types read as absent, at most `MAX_TOOL_NAMES` distinct tool names kept
(the rest counted under `other`), and only the first `MAX_ARG_CHARS` characters of each call's arguments
searched.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.harbor.files import read_document
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.sanitize import one_line

TRAJECTORY_PARTS = ("agent", "trajectory.json")
MAX_TRAJECTORY_BYTES = 64 * 1024 * 1024
MAX_TOOL_NAMES = 40
MAX_ARG_CHARS = 4000
_FFPROBE = re.compile(r"\bffprobe\b")
_FFMPEG = re.compile(r"\bffmpeg\b")
_FRAMES = re.compile(
    r"-frames:v|-vframes|\bselect=|\bthumbnail\b|\bfps=|\.(?:png|jpe?g|bmp|webp)\b|%0?\dd", re.I
)


@dataclass(kw_only=True)
class TrajectoryFacts:
    """What one trial's agent did, as counts."""

    turns: int = 0
    tool_calls: dict[str, int] = field(default_factory=dict)
    agent_seconds: float | None = None
    ffprobe_calls: int = 0
    frame_extractions: int = 0
    has_trajectory: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON form (stored in `run.json` under `harbor.trajectories`)."""
        return asdict(self)


def _seconds(timing: Any) -> float | None:
    if not isinstance(timing, dict):
        return None
    try:
        a = datetime.fromisoformat(str(timing.get("started_at")).replace("Z", "+00:00"))
        b = datetime.fromisoformat(str(timing.get("finished_at")).replace("Z", "+00:00"))
        s = (b - a).total_seconds()
    except (ValueError, TypeError):  # not a timestamp, or one aware and one naive
        return None
    return round(s, 3) if s >= 0 else None


def _arg_text(args: Any, budget: int = MAX_ARG_CHARS) -> str:
    """The string values of a call's arguments (nested), joined, at most `budget` characters."""
    out: list[str] = []
    stack = [args]
    seen = 0
    while stack and seen < budget:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v[: budget - seen])
            seen += len(out[-1])
        elif isinstance(v, dict):
            stack.extend(list(v.values())[:50])
        elif isinstance(v, list):
            stack.extend(v[:50])
    return " ".join(out)


def facts_from(trajectory: Any, result: dict[str, Any]) -> TrajectoryFacts:
    """Facts from a parsed trajectory (None when there is none) and the trial's `result.json`."""
    facts = TrajectoryFacts(agent_seconds=_seconds(result.get("agent_execution")))
    steps = trajectory.get("steps") if isinstance(trajectory, dict) else None
    if not isinstance(steps, list):
        return facts
    facts.has_trajectory = True
    for step in steps:
        if not isinstance(step, dict) or step.get("source") != "agent":
            continue
        facts.turns += 1
        calls = step.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            if not isinstance(call, dict):
                continue
            raw = call.get("function_name")
            name = one_line(" ".join(raw.split()))[:60] if isinstance(raw, str) and raw.strip() else "unnamed"
            if name not in facts.tool_calls and len(facts.tool_calls) >= MAX_TOOL_NAMES:
                name = "other"
            facts.tool_calls[name] = facts.tool_calls.get(name, 0) + 1
            text = _arg_text(call.get("arguments"))
            if _FFPROBE.search(text):
                facts.ffprobe_calls += 1
            if _FFMPEG.search(text) and _FRAMES.search(text):
                facts.frame_extractions += 1
    return facts


def trial_facts(job: JobDir, trial: str, result: dict[str, Any], problems: list[str]) -> TrajectoryFacts:
    """Facts of one trial folder; an unreadable trajectory is named in `problems` and counted as absent."""
    trajectory = None
    if "trajectory.json" in job.listdir(trial, "agent"):
        try:
            parts = (trial, *TRAJECTORY_PARTS)
            trajectory = read_document(job, parts, problems, max_bytes=MAX_TRAJECTORY_BYTES)
        except SubmissionError as exc:
            problems.append(str(exc))
    return facts_from(trajectory, result)
