"""`avb score assembly`: the official `avb-score-assembly` CLI, same arguments, same JSON, same exit codes.

Prints exactly the official JSON (`json.dumps(result, indent=2)`); exits 1 when `error` is non-empty, else 0.
Where the official CLI crashes (D-S1 shapes) we print the same JSON with a non-empty `error` and exit 1.
"""

from __future__ import annotations

import argparse

from agenticvbench.cli.common import add_dataset_args, print_json
from agenticvbench.cli.score.sequencing import split_ids
from agenticvbench.loader import load_tasks
from agenticvbench.tasks import AssemblyTask


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score assembly`."""
    p = sub.add_parser("assembly", help="score one assembly task (official avb-score-assembly)")
    p.add_argument("--solution-json", required=True, help="path to the agent's solution.json")
    p.add_argument("--task-id", required=True, type=int, help="dataset task id (83..100)")
    p.add_argument("--correct-assembly", default=None,
                   help='golden clips in slot order as "3.mp4,7.mp4,..." (skips loading the dataset)')
    add_dataset_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Score and print the official JSON; 1 when `error` is non-empty."""
    from verifiers.assembly import official_result
    from verifiers.manifest import read_manifest

    if args.correct_assembly is not None:
        correct = split_ids(args.correct_assembly)
    else:
        (task,) = load_tasks("assembly", task_ids=[args.task_id], dataset=args.dataset,
                             revision=args.revision, cache_dir=args.cache_dir)
        assert isinstance(task, AssemblyTask)
        correct = task.correct_assembly_in_slot_order
    result = official_result(read_manifest(args.solution_json), correct, args.task_id)
    print_json(result)
    return 1 if result["error"] else 0
