"""StudioBench task files: validation against the protocol's task format, and what the model may see.

The contract is the protocol text (`protocol.md` §1, see docs/interop.md); where it is silent we read it strictly:
unknown fields are errors, `id` must be usable as a directory name (runs live in `runs/<batch>/<task>/<model>/`),
list items and `wish`/`given_audio` must be non-blank strings, `audio_profile` may not repeat a value.
Every error names the field as a JSON pointer and says what was expected.
"""

from __future__ import annotations

import copy
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DOMAINS: tuple[str, ...] = (
    "narrative",
    "commercial",
    "product",
    "education",
    "music",
    "documentary",
    "creator",
    "dialogue",
)
TASK_KINDS: tuple[str, ...] = ("open", "constraint", "assets", "reference", "audio-led")
AUDIO_PROFILES: tuple[str, ...] = ("speech", "music", "sfx", "dialogue")
DURATION_BOUNDS: tuple[float, float] = (60.0, 180.0)
REQUIRED_FIELDS: tuple[str, ...] = ("id", "domain", "task", "wish", "duration_sec", "aspect")
LIST_FIELDS: tuple[str, ...] = (
    "must",
    "forbid",
    "constraints",
    "plot_beats",
    "facts",
    "assets",
    "references",
)
OPTIONAL_FIELDS: tuple[str, ...] = ("audio_profile", *LIST_FIELDS, "given_audio")
KNOWN_FIELDS: frozenset[str] = frozenset(REQUIRED_FIELDS + OPTIONAL_FIELDS)
#: The fields the model sees (protocol §1); everything else stays on the judge side.
MODEL_VISIBLE_FIELDS: tuple[str, ...] = (
    "wish",
    "assets",
    "references",
    "given_audio",
    "duration_sec",
    "aspect",
)
#: Judge-only checklists: never shown to the model.
JUDGE_ONLY_FIELDS: tuple[str, ...] = ("must", "forbid", "constraints", "plot_beats", "facts")

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$")
_ASPECT_RE = re.compile(r"^([1-9][0-9]{0,4}):([1-9][0-9]{0,4})$")


def json_pointer(*parts: str | int) -> str:
    """An RFC 6901 JSON pointer for a path of keys and indices (`~` and `/` escaped)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


@dataclass(frozen=True)
class Issue:
    """One problem in a document: where (JSON pointer, "" for the whole document) and what was expected."""

    path: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """`{"path", "message"}`, the shape every validator in this package reports."""
        return {"path": self.path, "message": self.message}


@dataclass
class TaskValidation:
    """The outcome of validating one task: errors make it invalid, warnings do not."""

    source: str
    task_id: str | None
    errors: list[Issue] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when there is no error."""
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form for `--json` output."""
        return {
            "source": self.source,
            "task_id": self.task_id,
            "valid": self.valid,
            "errors": [e.to_dict() for e in self.errors],
            "warnings": [w.to_dict() for w in self.warnings],
        }


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _nonblank(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip())


def _check_duration(value: Any, errors: list[Issue]) -> None:
    lo_b, hi_b = DURATION_BOUNDS
    p = json_pointer("duration_sec")
    if not isinstance(value, list) or len(value) != 2:
        errors.append(Issue(p, f"expected [min, max]: a list of two numbers in seconds, got {value!r}"))
        return
    wrong = [(i, v) for i, v in enumerate(value) if not _is_number(v)]
    for i, v in wrong:
        errors.append(
            Issue(json_pointer("duration_sec", i), f"expected a finite number of seconds, got {v!r}")
        )
    if wrong:
        return
    lo, hi = value
    if lo < lo_b:
        errors.append(Issue(json_pointer("duration_sec", 0), f"expected min >= {lo_b:g} s, got {lo!r}"))
    if hi > hi_b:
        errors.append(Issue(json_pointer("duration_sec", 1), f"expected max <= {hi_b:g} s, got {hi!r}"))
    if lo > hi:
        errors.append(Issue(p, f"expected min <= max, got [{lo!r}, {hi!r}]"))


def _check_audio_profile(value: Any, errors: list[Issue]) -> None:
    p, options = json_pointer("audio_profile"), ", ".join(AUDIO_PROFILES)
    if not isinstance(value, list) or not value:
        errors.append(Issue(p, f"expected a non-empty list drawn from {options}, got {value!r}"))
        return
    seen: set[str] = set()
    for i, v in enumerate(value):
        if v not in AUDIO_PROFILES:
            errors.append(Issue(json_pointer("audio_profile", i), f"expected one of {options}, got {v!r}"))
        elif v in seen:
            errors.append(Issue(json_pointer("audio_profile", i), f"expected a set, {v!r} is repeated"))
        else:
            seen.add(v)


def _check_list(name: str, value: Any, errors: list[Issue]) -> None:
    if not isinstance(value, list):
        errors.append(
            Issue(json_pointer(name), f"expected a list of non-empty strings, got {type(value).__name__}")
        )
        return
    for i, v in enumerate(value):
        if not _nonblank(v):
            errors.append(Issue(json_pointer(name, i), f"expected a non-empty string, got {v!r}"))


def validate_task(task: Any, source: str = "<task>") -> TaskValidation:
    """Check a parsed task object against every rule of the StudioBench task format."""
    result = TaskValidation(source=source, task_id=None)
    errors = result.errors
    if not isinstance(task, dict):
        errors.append(Issue("", f"expected a JSON object (the task), got {type(task).__name__}"))
        return result

    def bad(name: str, message: str) -> None:
        errors.append(Issue(json_pointer(name), message))

    if isinstance(task.get("id"), str):
        result.task_id = task["id"]
    for name in sorted(set(task) - KNOWN_FIELDS):
        bad(name, f"unknown field; expected only {', '.join(sorted(KNOWN_FIELDS))}")
    for name in REQUIRED_FIELDS:
        if name not in task:
            bad(name, "required field is missing")
    if "audio_profile" not in task:
        message = f"recommended field is missing (a non-empty subset of {', '.join(AUDIO_PROFILES)})"
        result.warnings.append(Issue(json_pointer("audio_profile"), message))
    if "id" in task and not (isinstance(task["id"], str) and _ID_RE.match(task["id"])):
        bad(
            "id",
            "expected a non-empty id of letters, digits, '.', '_' or '-' "
            f"(at most 120, usable as a directory name), got {task['id']!r}",
        )
    for name, options in (("domain", DOMAINS), ("task", TASK_KINDS)):
        if name in task and task[name] not in options:
            bad(name, f"expected one of {', '.join(options)}, got {task[name]!r}")
    for name, what in (("wish", "the brief"), ("given_audio", "the audio track's path")):
        if name in task and not _nonblank(task[name]):
            bad(name, f"expected a non-empty string ({what}), got {task[name]!r}")
    if "duration_sec" in task:
        _check_duration(task["duration_sec"], errors)
    if "aspect" in task and not (isinstance(task["aspect"], str) and _ASPECT_RE.match(task["aspect"])):
        bad("aspect", f"expected W:H with positive integers such as 16:9, got {task['aspect']!r}")
    if "audio_profile" in task:
        _check_audio_profile(task["audio_profile"], errors)
    for name in LIST_FIELDS:
        if name in task:
            _check_list(name, task[name], errors)
    kind = task.get("task")
    for needed_kind, name in (("assets", "assets"), ("reference", "references")):
        if kind == needed_kind and isinstance(task.get(name, []), list) and not task.get(name):
            bad(name, f"expected a non-empty list when task is {needed_kind!r}")
    if kind == "audio-led" and "given_audio" not in task:
        bad("given_audio", "required when task is 'audio-led'")
    errors.sort(key=lambda e: e.path)
    return result


def validate_task_file(path: str | Path) -> TaskValidation:
    """Read and validate one task file; an unreadable file or invalid JSON is an error at path ""."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return TaskValidation(
            str(p), None, [Issue("", f"cannot read the file ({exc.__class__.__name__}: {exc})")]
        )
    except json.JSONDecodeError as exc:
        return TaskValidation(str(p), None, [Issue("", f"expected JSON: {exc}")])
    return validate_task(data, str(p))


def model_view(task: dict[str, Any]) -> dict[str, Any]:
    """What the evaluated model may see of `task`: wish, assets, references, given audio, duration range, aspect.

    The judge-only checklists (`must`, `forbid`, `constraints`, `plot_beats`, `facts`) and everything else are
    dropped. Values are deep-copied so the caller cannot alias the judge's copy. Does not validate.
    """
    if not isinstance(task, dict):
        raise TypeError(f"a task is a JSON object, got {type(task).__name__}")
    return {k: copy.deepcopy(task[k]) for k in MODEL_VISIBLE_FIELDS if k in task}


def duration_range(task: dict[str, Any]) -> tuple[float, float] | None:
    """The task's `[min, max]` duration in seconds, or None when the field is not two finite numbers."""
    value = task.get("duration_sec") if isinstance(task, dict) else None
    if isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value):
        return float(value[0]), float(value[1])
    return None
