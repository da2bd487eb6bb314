"""`avb score assembly`: the official `avb-score-assembly` CLI, same arguments, same JSON, same exit codes."""

from __future__ import annotations

import argparse
from typing import Any

from agenticvbench.cli.score.manifest_cli import add_manifest_command
from agenticvbench.dataset.tasks import AssemblyTask, Task


def _golden(task: Task) -> list[str]:
    assert isinstance(task, AssemblyTask)
    return task.correct_assembly_in_slot_order


def _official(read: Any, correct: list[str], task_id: int) -> dict[str, Any]:
    from agenticvbench.verifiers.assembly import official_result

    return official_result(read, correct, task_id)


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score assembly`."""
    add_manifest_command(
        sub,
        "assembly",
        id_range="83..100",
        golden_flag="--correct-assembly",
        golden_help='golden clips in slot order as "3.mp4,7.mp4,..."',
        golden_of=_golden,
        official_result=_official,
    )
