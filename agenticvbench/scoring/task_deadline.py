"""The per-task deadline every executor enforces (`executors`, `dask_executor`): its setting and its exception.

A deadline is a positive, finite number of seconds of at most `MAX_TASK_TIMEOUT_S` (one week): the process
executors arm it with `setitimer`, which overflows the platform's time_t far below 1e12 s (already at 1e10 on
Linux x86-64), and no honest task needs more than a week. Anything else (`inf`, `nan`, `1e12`, `0`, `-5`) is a
`ConfigError`, which the CLI prints as one line and exit 2 before anything is scored.
"""

from __future__ import annotations

import os
from typing import Any

from agenticvbench.errors import ConfigError
from agenticvbench.results.model import Result, lost_result

DEFAULT_TASK_TIMEOUT_S = 7200.0
TASK_TIMEOUT_ENV = "AVB_TASK_TIMEOUT_S"
MAX_TASK_TIMEOUT_S = 7 * 24 * 3600.0


class TaskDeadline(BaseException):  # noqa: N818 - like KeyboardInterrupt: never caught by `except Exception`
    """A task ran past its deadline."""


def _in_range(value: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= MAX_TASK_TIMEOUT_S


def task_deadline(value: float | None = None) -> float:
    """The per-task deadline in seconds: `value`, else `$AVB_TASK_TIMEOUT_S`, else 7200; `ConfigError` (one line)
    unless it is in (0, `MAX_TASK_TIMEOUT_S`]."""
    expected = f"expected a number of seconds above 0 and at most {MAX_TASK_TIMEOUT_S:g} (one week)"
    if value is None:
        env = os.environ.get(TASK_TIMEOUT_ENV, "").strip()
        if not env:
            return DEFAULT_TASK_TIMEOUT_S
        try:
            parsed = float(env)
        except ValueError:
            parsed = float("nan")
        if not _in_range(parsed):
            raise ConfigError(f"${TASK_TIMEOUT_ENV}={env[:40]!r}: {expected}")
        return parsed
    if not _in_range(value):
        raise ConfigError(f"the per-task deadline {value!r} is out of range: {expected}")
    return float(value)


def deadline_result(job: Any, seconds: float) -> Result:
    """The `error` result (not written) of a job that ran past its deadline of `seconds`."""
    return lost_result(job, TaskDeadline(f"the task ran past its {seconds:g} s deadline (--task-timeout)"))
