"""The shared body of `avb score sequencing` and `avb score assembly`: the official manifest-scoring CLIs.

Both print exactly the official JSON (`json.dumps(result, indent=2)`) and exit 1 when `error` is non-empty, else 0.
Where the official CLI crashes (D-S1 shapes) we print the same JSON with a non-empty `error` and exit 1.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from agenticvbench.cli.common import add_dataset_args, print_json
from agenticvbench.dataset.loader import load_tasks
from agenticvbench.dataset.tasks import Task


def split_ids(text: str) -> list[str]:
    """Split a `--correct-order` / `--correct-assembly` value on commas, stripping each part (official rule)."""
    return [part.strip() for part in text.split(",")]


def add_manifest_command(
    sub: argparse._SubParsersAction,
    family: str,
    *,
    id_range: str,
    golden_flag: str,
    golden_help: str,
    golden_of: Callable[[Task], list[str]],
    official_result: Callable[[Any, list[str], int], dict[str, Any]],
) -> None:
    """Register `score <family>` with the official arguments; `golden_flag` bypasses the dataset."""
    p = sub.add_parser(family, help=f"score one {family} task (official avb-score-{family})")
    p.add_argument("--solution-json", required=True, help="path to the agent's solution.json")
    p.add_argument("--task-id", required=True, type=int, help=f"dataset task id ({id_range})")
    p.add_argument(
        golden_flag, dest="golden", default=None, help=f"{golden_help} (skips loading the dataset)"
    )
    add_dataset_args(p)

    def run(args: argparse.Namespace) -> int:
        from agenticvbench.verifiers.manifest import read_manifest

        if args.golden is not None:
            correct = split_ids(args.golden)
        else:
            (task,) = load_tasks(
                family,
                task_ids=[args.task_id],
                dataset=args.dataset,
                revision=args.revision,
                cache_dir=args.cache_dir,
            )
            correct = golden_of(task)
        result = official_result(read_manifest(args.solution_json), correct, args.task_id)
        print_json(result)
        return 1 if result["error"] else 0

    p.set_defaults(func=run)
