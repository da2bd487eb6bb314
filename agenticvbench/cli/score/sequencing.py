"""`avb score sequencing`: the official `avb-score-sequencing` CLI, same arguments, same JSON, same exit codes.

Prints exactly the official JSON (`json.dumps(result, indent=2)`); exits 1 when `error` is non-empty, else 0.
Where the official CLI crashes (D-S1 shapes) we print the same JSON with a non-empty `error` and exit 1.
"""

from __future__ import annotations

import argparse

from agenticvbench.cli.common import add_dataset_args, print_json
from agenticvbench.loader import load_tasks
from agenticvbench.tasks import SequencingTask


def split_ids(text: str) -> list[str]:
    """Split a `--correct-order` / `--correct-assembly` value on commas, stripping each part (official rule)."""
    return [part.strip() for part in text.split(",")]


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score sequencing`."""
    p = sub.add_parser("sequencing", help="score one sequencing task (official avb-score-sequencing)")
    p.add_argument("--solution-json", required=True, help="path to the agent's solution.json")
    p.add_argument("--task-id", required=True, type=int, help="dataset task id (37..64)")
    p.add_argument("--correct-order", default=None,
                   help='golden order as "6,12,3,..." (skips loading the dataset)')
    add_dataset_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Score and print the official JSON; 1 when `error` is non-empty."""
    from verifiers.manifest import read_manifest
    from verifiers.sequencing import official_result

    if args.correct_order is not None:
        correct = split_ids(args.correct_order)
    else:
        (task,) = load_tasks("sequencing", task_ids=[args.task_id], dataset=args.dataset,
                             revision=args.revision, cache_dir=args.cache_dir)
        assert isinstance(task, SequencingTask)
        correct = task.correct_order
    result = official_result(read_manifest(args.solution_json), correct, args.task_id)
    print_json(result)
    return 1 if result["error"] else 0
