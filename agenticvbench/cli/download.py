"""`avb download`: fetch (and cache) task materials, optionally the verifier-only references too."""

from __future__ import annotations

import argparse

from agenticvbench.cli.common import add_dataset_args, print_json
from agenticvbench.loader import load_tasks
from agenticvbench.tasks import FAMILIES


def _download(args: argparse.Namespace) -> int:
    tasks = load_tasks(args.family, task_ids=args.task or None, dataset=args.dataset, revision=args.revision,
                       cache_dir=args.cache_dir)
    from tqdm import tqdm

    fetched: dict[int, list[str]] = {}
    for task in tqdm(tasks, unit="task", desc="downloading", disable=args.json):
        paths = task.materials()
        if args.with_verifier_references:
            paths += task.verifier_references()
        fetched[task.task_id] = [str(p) for p in paths]
    if args.json:
        print_json(fetched)
    else:
        n = sum(len(v) for v in fetched.values())
        print(f"{n} file(s) for {len(fetched)} task(s) are cached and ready")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `download`."""
    p = sub.add_parser("download", help="download task materials into the cache")
    add_dataset_args(p)
    p.add_argument("--family", choices=FAMILIES)
    p.add_argument("--task", type=int, action="append", help="task id (repeatable)")
    p.add_argument("--with-verifier-references", action="store_true",
                   help="also fetch verifier-only references (repair sources); never give them to an agent")
    p.add_argument("--json", action="store_true", help="print the local paths as JSON")
    p.set_defaults(func=_download)
