"""`avb score FAMILY ...`: per-task scoring compatible with the official CLIs (same arguments, same JSON, same exit
codes); `repair` and `recap` have a module each.

`avb score sequencing` and `avb score assembly` are the official `avb-score-<family>` manifest-scoring CLIs: they
print exactly the official JSON (`json.dumps(result, indent=2)`) and exit 1 when `error` is non-empty, else 0.
Where the official CLI crashes (D-S1 shapes) we print the same JSON with a non-empty `error` and exit 1.
"""

from __future__ import annotations

import argparse
import importlib

from agenticvbench.cli.common import add_dataset_args, print_json
from agenticvbench.dataset.loader import load_tasks

#: family -> (its task ids, the flag giving the answer instead of the dataset, that flag's help, the task's answer)
MANIFEST_COMMANDS = {
    "sequencing": ("37..64", "--correct-order", 'golden order as "6,12,3,..."', "correct_order"),
    "assembly": (
        "83..100",
        "--correct-assembly",
        'golden clips in slot order as "3.mp4,7.mp4,..."',
        "correct_assembly_in_slot_order",
    ),
}


def split_ids(text: str) -> list[str]:
    """Split a `--correct-order` / `--correct-assembly` value on commas, stripping each part (official rule)."""
    return [part.strip() for part in text.split(",")]


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score` with one subcommand per family."""
    p = sub.add_parser("score", help="score one task's output like the official per-task CLIs")
    fam = p.add_subparsers(dest="family", metavar="FAMILY")
    add_manifest_commands(fam)
    for name in ("repair", "recap"):
        importlib.import_module(f"agenticvbench.cli.score.{name}").register(fam)


def add_manifest_commands(sub: argparse._SubParsersAction) -> None:
    """Add `score sequencing` and `score assembly` with the official arguments; the answer flag skips the dataset."""
    for family, (id_range, golden_flag, golden_help, _) in MANIFEST_COMMANDS.items():
        p = sub.add_parser(family, help=f"score one {family} task (official avb-score-{family})")
        p.add_argument("--solution-json", required=True, help="path to the agent's solution.json")
        p.add_argument("--task-id", required=True, type=int, help=f"dataset task id ({id_range})")
        p.add_argument(
            golden_flag, dest="golden", default=None, help=f"{golden_help} (skips loading the dataset)"
        )
        add_dataset_args(p)
        p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Score one solution.json and print the official JSON; 1 when its `error` is non-empty."""
    from agenticvbench.verifiers import assembly, sequencing
    from agenticvbench.verifiers.manifest import read_manifest

    family = args.family  # the `score` subcommand chosen
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
        correct = getattr(task, MANIFEST_COMMANDS[family][3])
    official = {"sequencing": sequencing, "assembly": assembly}[family].official_result
    result = official(read_manifest(args.solution_json), correct, args.task_id)
    print_json(result)
    return 1 if result["error"] else 0
