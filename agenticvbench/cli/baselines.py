"""`avb baselines`: score trivial strategies (do nothing, copy the input, degenerate media, the given order, ...)
on the selected tasks and print their mean score per family, with the floor (the best trivial strategy per family).

Each strategy's outputs are written into an ordinary run folder (default: <cache>/baselines/<dataset key>/, or
--out DIR) and scored by the same engine as `avb verify`; results are cached, so a rerun is instant.
See docs/baselines.md. Exit codes: 0 ok; 1 some result has status `error`; 2 usage error; 3 dataset error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agenticvbench.cli.common import (
    add_command,
    add_dataset_args,
    add_json_alias,
    add_judge_args,
    add_selection_args,
    folder_arg,
    judge_from_args,
    load_selected,
    positive_int,
    report_errors,
)
from agenticvbench.cli.progress import progress_factory
from agenticvbench.fsutil import atomic_write_text


def _strategy_list(text: str) -> list[str]:
    from agenticvbench.baselines import get_strategy

    names = [n.strip() for n in text.split(",") if n.strip()]
    try:
        for n in names:
            get_strategy(n)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return names


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `baselines` command."""
    p = add_command(
        sub, "baselines", "score trivial strategies per family: the floor of every leaderboard", __doc__
    )
    add_dataset_args(p)
    add_selection_args(p)
    p.add_argument(
        "--strategies",
        type=_strategy_list,
        default=None,
        metavar="NAMES",
        help="only these strategies, comma-separated (default: all; see docs/baselines.md)",
    )
    p.add_argument(
        "--out",
        type=folder_arg,
        default=None,
        metavar="DIR",
        help="baselines root holding one run folder per strategy (default: <cache>/baselines/<key>); the table "
        "goes to --write FILE",
    )
    p.add_argument(
        "--format", choices=("md", "json", "csv"), default="md", help="output format (default: md)"
    )
    add_json_alias(p)
    p.add_argument("--per-task", action="store_true", help="also list every strategy x task")
    p.add_argument("--write", type=Path, default=None, metavar="FILE", help="write the table to FILE")
    p.add_argument(
        "--jobs", type=positive_int, default=None, help="parallel workers (default: number of cores)"
    )
    p.add_argument("--force", action="store_true", help="rewrite every output and rescore")
    p.add_argument(
        "--progress",
        action="store_true",
        help="draw the scoring bar even when stderr is not a terminal (on a terminal it is drawn unless -q)",
    )
    add_judge_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write, score and print the baselines."""
    from agenticvbench.baselines import baselines
    from agenticvbench.dataset.loader import default_dataset

    table = baselines(
        tasks=load_selected(args),
        dataset=args.dataset or default_dataset(),
        cache_dir=args.cache_dir,
        out=args.out,
        strategies=args.strategies,
        jobs=args.jobs,
        force=args.force,
        judge=judge_from_args(args),
        progress=progress_factory(args),
    )
    text = table.render(args.format, per_task=args.per_task, quiet=args.quiet)
    if args.write is not None:
        atomic_write_text(args.write, text)
        print(f"wrote {args.write}")
    else:
        sys.stdout.write(text)
    return report_errors(
        "avb baselines", sum(r.status == "error" for r in table.results), f"; see {table.root}"
    )
