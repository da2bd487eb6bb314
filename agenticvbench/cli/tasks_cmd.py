"""`avb tasks` (table or JSON of the dataset's tasks) and `avb tasks show ID`."""

from __future__ import annotations

import argparse

from agenticvbench.cli.common import add_dataset_args, print_json
from agenticvbench.loader import load_tasks
from agenticvbench.tasks import FAMILIES


def _list(args: argparse.Namespace) -> int:
    tasks = load_tasks(args.family, dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir)
    if args.json:
        print_json([{"task_id": t.task_id, "task_family": t.family, "prompt": t.prompt,
                     "n_materials": len(t.reference_file_urls)} for t in tasks])
        return 0
    print(f"{'id':>4}  {'family':<11} {'files':>5}  prompt")
    for t in tasks:
        prompt = " ".join(t.prompt.split())
        print(f"{t.task_id:>4}  {t.family:<11} {len(t.reference_file_urls):>5}  "
              f"{prompt[:70] + ('...' if len(prompt) > 70 else '')}")
    print(f"{len(tasks)} task(s)")
    return 0


def _show(args: argparse.Namespace) -> int:
    (task,) = load_tasks(task_ids=[args.task_id], dataset=args.dataset, revision=args.revision,
                         cache_dir=args.cache_dir)
    print_json(task.summary())
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `tasks` and `tasks show`."""
    p = sub.add_parser("tasks", help="list the benchmark's tasks (or show one)")
    add_dataset_args(p)
    p.add_argument("--family", choices=FAMILIES, help="only this family")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_list)
    inner = p.add_subparsers(dest="tasks_command", metavar="SUBCOMMAND")
    show = inner.add_parser("show", help="show one task (prompt, files, parsed rubric)")
    show.add_argument("task_id", type=int)
    add_dataset_args(show)
    show.set_defaults(func=_show)
