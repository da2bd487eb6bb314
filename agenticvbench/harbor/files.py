"""One strict reader per Harbor file: a trial's `result.json`, the job's `lock.json` and `config.json`.

Every file of a job directory was written by a harness on another machine, next to the agent being scored, so
every number in it is unproven. Each file is read through `JobDir` (no symlink, regular file, bounded size) and
then through one declared schema, with Harbor's own field names (Harbor 0.26's `TrialResult`, `JobLock`,
`JobConfig`):

- `clean_document` first walks the parsed JSON once: a NaN or Infinity anywhere is dropped with a note naming
  the file and the field (`json` parses them, and they would make every JSON written later invalid), a string
  longer than `MAX_FIELD_CHARS` is cut with a note (a 6 MB cost string must not reach `run.json`), at most
  `MAX_KEYS` keys per object and `MAX_ITEMS` items per list are kept;
- the dataclasses below then take the fields they need with explicit checks: names are one line
  (`sanitize.one_line`) and at most `MAX_NAME_CHARS` long; a reward is a finite number in [0, 1], anything else
  makes the trial invalid (`TrialResult.invalid` says why); a multiplier is a number, a string such as `"4.0"`
  is not comparable to 1.

No reader raises for bad content: a file that cannot be read at all is a `SubmissionError` naming it (the
caller skips the trial or the job), everything else is a note.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.sanitize import one_line

MAX_FIELD_CHARS = 4000
MAX_NAME_CHARS = 200
MAX_KEYS = 1000
MAX_ITEMS = 100_000
MAX_NOTES = 20  # notes per file; the rest are counted
_DROP = object()
MULTIPLIERS = (
    "timeout_multiplier",
    "agent_timeout_multiplier",
    "verifier_timeout_multiplier",
    "agent_setup_timeout_multiplier",
    "environment_build_timeout_multiplier",
)


def shown(value: Any, limit: int = 40) -> str:
    """A hostile value as it appears in a note: its repr, one line, at most `limit` characters."""
    text = one_line(repr(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def clean_document(data: Any, where: str, notes: list[str], *, max_chars: int = MAX_FIELD_CHARS) -> Any:
    """Parsed JSON `data` (changed in place: the caller's fresh parse) without non-finite numbers, with strings
    longer than `max_chars` cut and containers bounded; one note per change (at most `MAX_NOTES`, then a count),
    each naming `where` and the field. A non-finite top-level value becomes None."""
    found: list[str] = []
    path: list[str] = []

    def field_name(last: str) -> str:
        return ".".join([*path, last]).replace(".[", "[") or "(top)"

    def bad(value: Any, last: str) -> tuple[bool, Any]:
        """(drop it, replacement) for a scalar."""
        if type(value) is float and not math.isfinite(value):
            found.append(f"{where}: field {field_name(last)} is {value!r}, not a finite number; dropped")
            return True, None
        if type(value) is str and len(value) > max_chars:
            found.append(f"{where}: field {field_name(last)} is {len(value)} characters; cut to {max_chars}")
            return False, value[:max_chars]
        return False, value

    def visit(item: Any, last: str) -> tuple[bool, Any]:
        """(drop it, replacement) for one member `last` of a container, walking into containers."""
        if type(item) in (dict, list):
            path.append(last)
            walk(item)
            path.pop()
        elif type(item) in (float, str):
            return bad(item, last)
        return False, item

    def walk(value: Any) -> None:
        if type(value) is dict:
            if len(value) > MAX_KEYS:
                found.append(
                    f"{where}: field {field_name('')} has {len(value)} keys; the first {MAX_KEYS} kept"
                )
                for key in list(value)[MAX_KEYS:]:
                    del value[key]
            for key in list(value):
                item = value[key]
                drop, new = visit(item, one_line(key)[:60])
                if drop:
                    del value[key]
                elif new is not item:
                    value[key] = new
                if len(key) > MAX_NAME_CHARS and key in value:
                    value[key[:MAX_NAME_CHARS]] = value.pop(key)
        elif type(value) is list:
            if len(value) > MAX_ITEMS:
                found.append(
                    f"{where}: field {field_name('')} has {len(value)} items; the first {MAX_ITEMS} kept"
                )
                del value[MAX_ITEMS:]
            for i, item in enumerate(value):
                drop, new = visit(item, f"[{i}]")
                value[i] = _DROP if drop else new
            if any(v is _DROP for v in value):
                value[:] = [v for v in value if v is not _DROP]

    if type(data) in (dict, list):
        walk(data)
    else:
        drop, data = bad(data, "")
    notes += found[:MAX_NOTES]
    if len(found) > MAX_NOTES:
        notes.append(f"{where}: {len(found) - MAX_NOTES} more field(s) dropped or cut")
    return data


def value_at(obj: Any, *keys: str) -> Any:
    """The value at `obj[k1][k2]...`, None when a step is missing or not an object."""
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def name_at(obj: Any, *keys: str) -> str:
    """The string at `obj[k1][k2]...` as a shown name: one line, at most `MAX_NAME_CHARS`; '' when absent."""
    value = value_at(obj, *keys)
    return one_line(value)[:MAX_NAME_CHARS] if isinstance(value, str) and value.strip() else ""


def number(value: Any) -> float | None:
    """A finite JSON number (not a bool) as a float, else None."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok and math.isfinite(value) else None


def read_document(
    job: JobDir, parts: tuple[str, ...], notes: list[str], *, max_chars: int = MAX_FIELD_CHARS, **kw: Any
) -> Any:
    """A job file parsed (bounded, no symlink) and cleaned (`clean_document`, strings cut at `max_chars`);
    `SubmissionError` naming the file when it cannot be read or parsed."""
    data = job.read_json(*parts, **kw)
    return clean_document(data, "/".join(parts), notes, max_chars=max_chars)


@dataclass(kw_only=True)
class TrialResult:
    """A trial's `result.json` (Harbor's `TrialResult`), checked. `data` is the cleaned document, for the
    readers of its other parts (outcome, usage, timing)."""

    trial: str
    task_name: str
    trial_name: str
    started_at: str
    agent: str
    model: str
    reward: float | None
    invalid: str = ""  # why the trial's reward is not a reward ('' when it is one or there is none)
    data: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_json(cls, trial: str, data: Any) -> TrialResult:
        """Check a parsed `result.json`; `SubmissionError` when its top level is not an object."""
        where = f"{trial}/result.json"
        if not isinstance(data, dict):
            raise SubmissionError(f"{where}: top level is not an object")
        notes: list[str] = []
        data = clean_document(data, where, notes)
        reward, invalid = None, ""
        rewards = value_at(data, "verifier_result", "rewards")
        if isinstance(rewards, dict) and "reward" in rewards:
            raw = rewards["reward"]
            value = number(raw)
            if value is None and raw is not None:
                invalid = f"reward {shown(raw)} is not a number"
            elif value is not None and not 0.0 <= value <= 1.0:
                invalid = f"reward {shown(raw)} is outside [0, 1]"
            else:
                reward = value
            if invalid:
                notes.append(
                    f"{where}: field verifier_result.rewards.reward: {invalid}; the trial is invalid"
                )
        return cls(
            trial=trial,
            task_name=name_at(data, "task_name"),
            trial_name=name_at(data, "trial_name"),
            started_at=name_at(data, "started_at"),
            agent=name_at(data, "agent_info", "name")
            or name_at(data, "config", "agent", "name")
            or "unknown",
            model=(
                name_at(data, "config", "agent", "model_name")
                or name_at(data, "agent_info", "model_info", "name")
                or "none"
            ),
            reward=reward,
            invalid=invalid,
            data=data,
            notes=notes,
        )


def read_trial_result(job: JobDir, trial: str) -> TrialResult:
    """The checked `result.json` of trial folder `trial`; `SubmissionError` when it cannot be read at all."""
    data = job.read_json(trial, "result.json")
    try:
        return TrialResult.from_json(trial, data)
    except SubmissionError as exc:
        raise SubmissionError(f"{job.path}/{exc}") from None


@dataclass(frozen=True, kw_only=True)
class LockTrial:
    """One trial of `lock.json` (Harbor's resolved `TrialConfig`): the task it ran (its budget is checked by
    `harbor.checkjob`, on the numbers as written)."""

    task_name: str
    task_digest: str


def lock_trial(t: dict[str, Any]) -> LockTrial:
    """The task name and digest of one entry of `lock.json`'s `trials` (strings, bounded)."""
    task = t.get("task") if isinstance(t.get("task"), dict) else {}
    return LockTrial(task_name=name_at(task, "name"), task_digest=name_at(task, "digest")[:80])


def read_config(job: JobDir, notes: list[str]) -> str:
    """The job's name from its `config.json` (Harbor's `JobConfig.job_name`; one line, at most 80 characters),
    '' when the file is absent or unreadable (named in `notes`)."""
    if "config.json" not in job.listdir():
        return ""
    try:
        config = read_document(job, ("config.json",), notes)
    except SubmissionError as exc:
        notes.append(str(exc))
        return ""
    return name_at(config, "job_name")[:80]
