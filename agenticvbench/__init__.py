"""agenticvbench: load AgenticVBench tasks and score agent runs offline, matching the official scorer.

The public API is what this module exports; everything else is internal. `verify_run` (the engine, with its
media stack) loads on first use through the package's one lazy-export mechanism (`agenticvbench.lazy`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agenticvbench.dataset.loader import DEFAULT_DATASET, DEFAULT_REVISION, load_hf_dataset, load_tasks
from agenticvbench.dataset.tasks import AssemblyTask, RecapTask, RepairTask, SequencingTask, Task
from agenticvbench.errors import ArchiveError, AVBError, DatasetError, MediaError, TaskError
from agenticvbench.lazy import lazy_exports
from agenticvbench.results.model import Result, load_results
from agenticvbench.version import __version__

if TYPE_CHECKING:
    from agenticvbench.scoring.engine import verify_run

_LAZY = {"verify_run": "agenticvbench.scoring.engine"}

__all__ = [
    "AVBError",
    "ArchiveError",
    "AssemblyTask",
    "DEFAULT_DATASET",
    "DEFAULT_REVISION",
    "DatasetError",
    "MediaError",
    "RecapTask",
    "RepairTask",
    "Result",
    "SequencingTask",
    "Task",
    "TaskError",
    "__version__",
    "load_hf_dataset",
    "load_results",
    "load_tasks",
    "verify_run",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
