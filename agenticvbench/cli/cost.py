"""`avb cost RUN...`: agent tokens and dollars per (harness, model) and family, priced from a list-price table.

RUN is a run directory made by `avb import harbor` (usage from its run.json) or a Harbor job directory.
Prices: the paper's Table 7 by default (`--prices paper`), the vendors' list prices for other models
(`--prices vendors`), or `--prices FILE` of the same shape (a model not in the table is unpriced, never $0).
When no trial has usage the output says why (for example runs not imported from Harbor) instead of rows of
zeros, once (on stderr as well when the output goes to `--out FILE`, and with `--format csv`, whose output is then
the header row alone). The recap judge's calls, tokens and cost
per modality follow in a second table (md, latex; `judge_by_modality` in json), read from the runs' results
(`agenticvbench.cost.judge`). Exit codes: 0 ok (also for an empty table); 2 bad price file; 3 a path is not a run or job directory.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agenticvbench.cli.common import LOG, add_command, write_output


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `cost` command."""
    p = add_command(sub, "cost", "agent token usage and cost per (harness, model) and family", __doc__)
    p.add_argument(
        "paths", nargs="+", metavar="RUN", help="imported run directories or Harbor job directories"
    )
    p.add_argument(
        "--prices",
        default=None,
        metavar="NAME|FILE",
        help="price table: 'paper' (default: the paper's Table 7), 'vendors', or a JSON file of that shape",
    )
    p.add_argument(
        "--format",
        choices=("md", "csv", "json", "latex"),
        default="md",
        help="output format (default: %(default)s)",
    )
    p.add_argument(
        "--paper",
        action="store_true",
        help="lay the table out as the paper's Table 8: Repurpose (recap) and the other three families",
    )
    p.add_argument("--out", type=Path, default=None, help="write to this file instead of the terminal")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build and print (or write) the cost table."""
    from agenticvbench.cost.pricing import load_prices
    from agenticvbench.cost.table import build_cost_table, empty_sentence, unpriced_hint
    from agenticvbench.harbor.trials import job_trial_costs

    table = build_cost_table(args.paths, load_prices(args.prices), read_job=job_trial_costs)
    table.notes += unpriced_hint(table)
    for note in table.notes:
        LOG.warning(note)
    if table.empty_reason:
        if args.out is not None or args.format in ("csv", "json"):  # not a sentence on stdout: said here too
            LOG.warning(empty_sentence(table.empty_reason))
        text = table.render(args.format)
    elif args.paper:
        from agenticvbench.cost.paper_table import build_paper_table

        text = build_paper_table(table.trials, table.prices, table.notes).render(args.format)
    else:
        text = table.render(args.format)
    from agenticvbench.cost.judge import attach, judge_rows

    judge_notes: list[str] = []
    text = attach(text, args.format, judge_rows(args.paths, judge_notes))
    for note in judge_notes:
        LOG.warning(note)
    write_output(text, args.out)
    return 0
