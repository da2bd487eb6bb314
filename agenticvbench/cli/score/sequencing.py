"""`avb score sequencing`: the official `avb-score-sequencing` CLI, same arguments, same JSON, same exit codes."""

from __future__ import annotations

import argparse
from typing import Any

from agenticvbench.cli.score.manifest_cli import add_manifest_command
from agenticvbench.dataset.tasks import SequencingTask, Task


def _golden(task: Task) -> list[str]:
    assert isinstance(task, SequencingTask)
    return task.correct_order


def _official(read: Any, correct: list[str], task_id: int) -> dict[str, Any]:
    from agenticvbench.verifiers.sequencing import official_result

    return official_result(read, correct, task_id)


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score sequencing`."""
    add_manifest_command(
        sub,
        "sequencing",
        id_range="37..64",
        golden_flag="--correct-order",
        golden_help='golden order as "6,12,3,..."',
        golden_of=_golden,
        official_result=_official,
    )
