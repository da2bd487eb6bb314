"""StudioBench interop: the public entry points (task validation, model view, run validation) and discovery.

Task rules live in `studiobench_task`, run rules in `studiobench_run` (call logs: `studiobench_calls`); this module
re-exports them and adds the helpers the CLI needs to turn command-line paths into tasks and run directories.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.interop.studiobench_calls import STUDIOBENCH_SERVER, ToolCall, parse_calls
from agenticvbench.interop.studiobench_run import (
    ARTIFACTS,
    CALL_LIMIT,
    EXPORT_TOOL,
    RuleResult,
    RunValidation,
    validate_run,
    wall_clock_limit_s,
)
from agenticvbench.interop.studiobench_task import (
    AUDIO_PROFILES,
    DOMAINS,
    JUDGE_ONLY_FIELDS,
    MODEL_VISIBLE_FIELDS,
    TASK_KINDS,
    Issue,
    TaskValidation,
    model_view,
    validate_task,
    validate_task_file,
)

__all__ = [
    "ARTIFACTS",
    "AUDIO_PROFILES",
    "CALL_LIMIT",
    "DOMAINS",
    "EXPORT_TOOL",
    "JUDGE_ONLY_FIELDS",
    "MODEL_VISIBLE_FIELDS",
    "STUDIOBENCH_SERVER",
    "TASK_KINDS",
    "Issue",
    "RuleResult",
    "RunValidation",
    "TaskValidation",
    "ToolCall",
    "discover_runs",
    "load_task_index",
    "model_view",
    "parse_calls",
    "validate_run",
    "validate_task",
    "validate_task_file",
    "wall_clock_limit_s",
]


def _is_run_dir(p: Path) -> bool:
    return any((p / a).exists() for a in ARTIFACTS)


def discover_runs(path: str | Path) -> list[Path]:
    """Run directories under `path`: `path` itself when it holds any artifact, else the run folders up to three
    levels below it (`runs/` -> `<batch>/<task>/<model>/`, a batch, or a task folder); `path` itself when nothing
    is found, so the caller reports its missing artifacts instead of silently skipping it."""
    p = Path(path)
    if not p.is_dir():
        raise SubmissionError(f"{path}: no such run directory")
    if _is_run_dir(p):
        return [p]
    found = {q for pattern in ("*", "*/*", "*/*/*") for q in p.glob(pattern) if q.is_dir() and _is_run_dir(q)}
    return sorted(found) or [p]


def load_task_index(paths: list[str | Path]) -> dict[str, dict[str, Any]]:
    """Task objects by `id` from task files and folders of `*.json` task files (unreadable files are skipped:
    `validate-task` is the command that reports them)."""
    index: dict[str, dict[str, Any]] = {}
    files = [f for p in map(Path, paths) for f in (sorted(p.glob("*.json")) if p.is_dir() else [p])]
    for f in files:
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            index.setdefault(data["id"], data)
    return index
