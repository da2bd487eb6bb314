"""The package's typed exceptions: one base class, one subclass per kind of failure."""

from __future__ import annotations


class AVBError(Exception):
    """Base class of every error this package raises on purpose."""


class TaskError(AVBError):
    """A dataset row is malformed; the message names the task id and the field."""

    def __init__(self, task_id: object, field: str, problem: str) -> None:
        self.task_id = task_id
        self.field = field
        self.problem = problem
        super().__init__(f"task {task_id}: field {field!r}: {problem}")


class DatasetError(AVBError):
    """The dataset (Hub repo, mirror directory or parquet file) cannot be read."""


class ArchiveError(AVBError):
    """A materials zip is unsafe (path escape, symlink, absurd size) or unreadable."""


class MediaError(AVBError):
    """A media file cannot be probed or decoded."""


class ToolError(AVBError):
    """An external tool the scorer relies on failed (the ffmpeg binary missing, killed or crashed).

    Never the submission's fault and never a score: the task ends as an `error` (not reused), and verifiers that
    turn other exceptions into failed checks re-raise this one."""


class SubmissionError(AVBError):
    """A run directory cannot be read at all (not a per-task problem)."""


class ConfigError(AVBError):
    """An option or setting is invalid (e.g. `--executor dask` without a scheduler, a bad judge mode)."""


class InstallError(AVBError):
    """The installed packages cannot work on this machine (an OpenCV build that needs libGL, say)."""
