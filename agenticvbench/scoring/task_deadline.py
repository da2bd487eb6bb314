"""The per-task deadline every executor enforces (`executors`, `dask_executor`): its setting and its exception."""

from __future__ import annotations

import os

from agenticvbench.errors import ConfigError

DEFAULT_TASK_TIMEOUT_S = 7200.0
TASK_TIMEOUT_ENV = "AVB_TASK_TIMEOUT_S"


class TaskDeadline(BaseException):  # noqa: N818 - like KeyboardInterrupt: never caught by `except Exception`
    """A task ran past its deadline."""


def task_deadline(value: float | None = None) -> float:
    """The per-task deadline in seconds: `value`, else `$AVB_TASK_TIMEOUT_S`, else 7200."""
    if value is None:
        env = os.environ.get(TASK_TIMEOUT_ENV, "").strip()
        if not env:
            return DEFAULT_TASK_TIMEOUT_S
        try:
            value = float(env)
        except ValueError:
            raise ConfigError(f"${TASK_TIMEOUT_ENV}={env!r}: expected a number of seconds") from None
    if not value > 0 or value != value:
        raise ConfigError(f"the per-task deadline must be a positive number of seconds, got {value}")
    return float(value)
