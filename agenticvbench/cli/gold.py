"""`avb gold --out RUN`: write oracle submissions (gold outputs) for every task where one can be derived.

`avb verify RUN` on the result scores 1.0 on each of them: a check that the install, the dataset revision and
the scorer agree. Recap tasks have no gold output and are listed as such.
"""

from __future__ import annotations

import argparse
import sys

from agenticvbench.cli.common import add_dataset_args
from agenticvbench.cli.verify import task_id_list
from agenticvbench.tasks import FAMILIES


def _gold(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.gold import write_gold
    from agenticvbench.loader import load_tasks

    tasks = load_tasks(args.family, task_ids=args.tasks, dataset=args.dataset, revision=args.revision,
                       cache_dir=args.cache_dir)
    summary = write_gold(tasks, args.out)
    print(f"wrote {args.out}: " + summary.to_text(), file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `gold`."""
    p = sub.add_parser("gold", help="write gold (oracle) outputs as a run directory, to check the scorer")
    p.add_argument("--out", required=True, help="run directory to write (one folder per task)")
    add_dataset_args(p)
    p.add_argument("--family", choices=FAMILIES)
    p.add_argument("--tasks", type=task_id_list, help="comma-separated task ids")
    p.set_defaults(func=_gold)
