"""The one shape every trajectory format is read into: a `Trajectory` of typed `Step`s.

A step is one thing the agent did or saw: a message, a tool call with its arguments and (when the log pairs them)
its result. What the rules read, the call's text (`Step.text`), is capped at `MAX_SCAN_CHARS`, so a long script
written by one call is read to its end; what is shown (`Step.arguments`, `Step.result`) is cut shorter
(`MAX_ARG_CHARS`, `MAX_RESULT_CHARS`). The files and URLs a call names are extracted once when the step is made
(`trajectory.extract`; `MAX_TOUCHED` of each kept for display, the rules read them all from the text). Every string here came from a log
the agent's harness wrote, so nothing is trusted: shown strings go through `sanitize.one_line` where they are
printed.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from agenticvbench.trajectory.extract import touched

MAX_ARG_CHARS = 4000  # a call's arguments as shown
MAX_SCAN_CHARS = 256 * 1024  # a call's arguments as the rules read them (`Step.text`)
MAX_RESULT_CHARS = 2000
MAX_STEPS = 50_000
MAX_NOTES = 20
MAX_TEXT_ITEMS = 200  # strings gathered from one nested argument value


@dataclass(frozen=True, kw_only=True)
class Step:
    """One step of a trajectory, whatever format it was read from."""

    index: int  # 0-based position in the trajectory, as read
    time: str | None  # as the log wrote it (ISO 8601 or epoch milliseconds as text)
    role: str  # "agent", "user", "tool" or "system"
    tool: str | None  # the tool's name, as the log spells it
    arguments: str  # the call's arguments (or the message), capped text, as shown (`MAX_ARG_CHARS`)
    result: str  # the call's result, capped text ('' when the log has none)
    paths: tuple[str, ...] = ()  # files the arguments name (as written, then normalised by the rules)
    urls: tuple[str, ...] = ()  # URLs the arguments name
    tokens: int | None = None  # tokens the log recorded for this step (input + output), when it did
    error: str | None = None  # the tool's error, when the log marks the call as failed
    grounded: bool = False  # the model's answer carried a provider's web grounding metadata
    text: str = ""  # the call's arguments as the rules read them (`MAX_SCAN_CHARS`); `arguments` is its start

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the shown fields: `text` is left out)."""
        out = asdict(self)
        del out["text"]
        return out


@dataclass(kw_only=True)
class Trajectory:
    """One log read into steps; `notes` say what was skipped or cut, one line each."""

    format: str  # the registry name of the format (`trajectory.formats.FORMATS`)
    path: str  # where it was found, relative to the run directory
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cwd: str | None = None  # the agent's working folder, when the log records it
    task_id: int | None = (
        None  # the task it is read for: a log of many tasks (Inspect's) gives that task's part
    )
    of_task: bool = (
        True  # False: the log holds nothing of `task_id` (a run's log of other tasks), not its log
    )

    def note(self, line: str) -> None:
        """Add a note (at most `MAX_NOTES`; the last one says more were dropped)."""
        if len(self.notes) < MAX_NOTES:
            self.notes.append(line)
        elif len(self.notes) == MAX_NOTES:
            self.notes.append("more notes dropped")

    def to_dict(self) -> dict[str, Any]:
        """JSON form (steps included)."""
        return {
            "format": self.format,
            "path": self.path,
            "cwd": self.cwd,
            "steps": [s.to_dict() for s in self.steps],
            "notes": list(self.notes),
        }


_EPOCH = re.compile(r"[0-9]{9,16}(?:\.[0-9]{1,9})?")


def parse_time(text: Any) -> float | None:
    """A log's time as seconds since the epoch: ISO 8601 (`Z` read as UTC; without a zone, local time), or an
    epoch number as text (milliseconds when over 10^11, else seconds); None for anything else."""
    if not isinstance(text, str):
        return None
    if _EPOCH.fullmatch(text):
        value = float(text)
        return value / 1000 if value > 1e11 else value
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def cap(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_text(value: Any, limit: int = MAX_ARG_CHARS) -> str:
    """A parsed JSON value as capped text: a string as is; the string values of a nested value joined with
    spaces (keys `key=value`, a list's key before its first item only, not repeated per item), visited
    iteratively (no recursion) and at most `MAX_TEXT_ITEMS` strings."""
    if value is None:
        return ""
    if isinstance(value, str):
        return cap(value, limit)
    out: list[str] = []
    stack: list[tuple[str, Any]] = [("", value)]
    size = 0
    while stack and len(out) < MAX_TEXT_ITEMS and size < limit:
        key, v = stack.pop()
        if isinstance(v, dict):
            stack.extend(reversed([(str(k), x) for k, x in list(v.items())[:100]]))
        elif isinstance(v, list):
            stack.extend(reversed([(key if i == 0 else "", x) for i, x in enumerate(v[:100])]))
        elif v is not None and not isinstance(v, bool):
            piece = f"{key}={v}" if key else str(v)
            out.append(piece)
            size += len(piece) + 1
    return cap(" ".join(out), limit)


def make_step(
    index: int,
    *,
    role: str,
    tool: str | None = None,
    arguments: Any = None,
    result: Any = None,
    time: Any = None,
    tokens: int | None = None,
    error: Any = None,
    grounded: bool = False,
) -> Step:
    """A `Step` with capped text and the files and URLs its arguments name (the one constructor readers use)."""
    text = as_text(arguments, MAX_SCAN_CHARS)
    args = cap(text, MAX_ARG_CHARS)
    paths, urls = touched(text)
    return Step(
        index=index,
        time=None if time is None or isinstance(time, (dict, list)) else cap(str(time), 40),
        role=role,
        tool=None if tool is None else cap(str(tool), 120),
        arguments=args,
        result=as_text(result, MAX_RESULT_CHARS),
        paths=paths,
        urls=urls,
        tokens=tokens,
        error=None if error in (None, False, "") else cap(as_text(error, 300) or "error", 300),
        grounded=grounded,
        text=text,
    )


def token_sum(*values: Any) -> int | None:
    """The sum of the values that are non-negative integers (bools excluded); None when none is."""
    ok = [v for v in values if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10**15]
    return sum(ok) if ok else None


def with_result(step: Step, result: Any, error: Any = None) -> Step:
    """`step` with its result (capped) and, when given, its error: for logs that write a call's result later."""
    text = as_text(result, MAX_RESULT_CHARS)
    merged = cap(f"{step.result} {text}".strip(), MAX_RESULT_CHARS) if step.result else text
    err = step.error if error in (None, False, "") else cap(as_text(error, 300) or "error", 300)
    return replace(step, result=merged, error=err)
