"""`avb gold --out RUN`: write oracle submissions (gold outputs) for every task where one can be derived.

`avb verify RUN` on the result scores 1.0 on each of them: a check that the install, the dataset revision and
the scorer agree. Recap tasks have no gold output and are listed as such.
"""

from __future__ import annotations

import argparse
import sys

from agenticvbench.cli.common import add_dataset_args, add_selection_args, folder_arg, load_selected


def _gold(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.gold import write_gold

    tasks = load_selected(args)
    summary = write_gold(tasks, args.out)
    print(f"wrote {args.out}: " + summary.to_text(), file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `gold`."""
    add_gold_args(sub.add_parser("gold", help=GOLD_HELP))


GOLD_HELP = "write gold (oracle) outputs as a run directory, to check the scorer"


def add_gold_args(p: argparse.ArgumentParser) -> None:
    """The options of `avb gold` (also spelled `avb harbor gold`: the oracle outputs Harbor's solutions hold)."""
    p.add_argument(
        "--out",
        type=folder_arg,
        required=True,
        metavar="DIR",
        help="run directory to write (one folder per task)",
    )
    add_dataset_args(p)
    add_selection_args(p)
    p.set_defaults(func=_gold)
