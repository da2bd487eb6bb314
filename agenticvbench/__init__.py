"""agenticvbench: load AgenticVBench tasks and score agent runs offline, matching the official scorer.

The public API is what this module exports; everything else is internal.
"""

from agenticvbench.errors import ArchiveError, AVBError, DatasetError, MediaError, TaskError
from agenticvbench.loader import DEFAULT_DATASET, DEFAULT_REVISION, load_hf_dataset, load_tasks
from agenticvbench.results import Result, load_results
from agenticvbench.tasks import AssemblyTask, RecapTask, RepairTask, SequencingTask, Task
from agenticvbench.version import __version__


def verify_run(*args, **kwargs):  # noqa: D401 - thin lazy re-export
    """Score one or more run directories; see `agenticvbench.engine.verify_run`."""
    from agenticvbench.engine import verify_run as _verify_run

    return _verify_run(*args, **kwargs)


__all__ = [
    "AVBError", "ArchiveError", "AssemblyTask", "DEFAULT_DATASET", "DEFAULT_REVISION", "DatasetError",
    "MediaError", "RecapTask", "RepairTask", "Result", "SequencingTask", "Task", "TaskError", "__version__",
    "load_hf_dataset", "load_results", "load_tasks", "verify_run",
]
