"""`avb leaderboard`: rank (harness, model) pairs over their runs, with bootstrap confidence intervals.

Runs are grouped by harness and model (verify's --harness/--model, else run.json, else the folder name).
Formats: md (default), csv, latex (booktabs), html, json; each shows coverage (cells with a result / cells
counted) and marks cells that are not comparable. Runs without results are named, not fatal. Exit codes: 0 ok; 1 some result has status `error` (the table is still printed); 2 usage error;
3 a path holds no results or the dataset cannot be read.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agenticvbench.cli.common import LOG, add_command, add_json_alias, report_errors, write_output
from agenticvbench.cli.report import (
    add_aggregation_args,
    aggregation_from_args,
    aggregation_kwargs,
    floor_kwargs,
    load_for_report,
    select_results,
)

if TYPE_CHECKING:
    from agenticvbench.report.leaderboard import Leaderboard


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `leaderboard` command."""
    p = add_command(sub, "leaderboard", "leaderboard of (harness, model) pairs over scored runs", __doc__)
    p.add_argument(
        "paths", nargs="+", metavar="RUN_DIR", help="run directories (or their avb-results folders)"
    )
    p.add_argument(
        "--format",
        choices=("md", "csv", "latex", "html", "json"),
        default="md",
        help="output format (default: %(default)s)",
    )
    add_json_alias(p)
    p.add_argument("--out", type=Path, default=None, help="write to this file instead of the terminal")
    p.add_argument(
        "--compare-to",
        default=None,
        metavar="ROW",
        help="add a paired comparison (macro, row minus ROW, on shared tasks) against this "
        "harness/model row; see `avb compare`",
    )
    p.add_argument(
        "--prices",
        type=Path,
        default=None,
        help="price table for the agent-cost columns (default: the shipped list prices); cost columns "
        "appear when some run has agent usage (avb import harbor)",
    )
    add_aggregation_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build and print (or write) the leaderboard."""
    from agenticvbench.report.leaderboard import build_leaderboard
    from agenticvbench.results.model import announce_invalid_results

    results, skipped, key, notes = load_for_report(args)
    kw = aggregation_kwargs(args)
    chosen = select_results(args, results, kw)
    board = build_leaderboard(
        chosen,
        skipped=skipped,
        key=key,
        aggregation=aggregation_from_args(args, chosen, kw),
        **kw,
        **floor_kwargs(args, chosen, kw),
    )
    board.notes += notes
    add_columns(board, board.aggregation.cells(chosen), args)  # --compare-to leaves flagged cells out too
    for line in [*skipped, *board.notes]:
        LOG.warning(line)
    # -q in Markdown: the table alone, without caption and notes (machine formats keep everything)
    text = board.markdown_table() + "\n" if args.quiet and args.format == "md" else board.render(args.format)
    write_output(text, args.out)
    errors = report_errors("avb leaderboard", sum(g.n_errors for g in board.groups))
    return 1 if announce_invalid_results(args.paths, "avb leaderboard") or errors else 0


def add_columns(board: Leaderboard, results: list, args: argparse.Namespace) -> None:
    """The optional columns: agent cost (when some run has usage) and `--compare-to ROW`."""
    from agenticvbench.analysis.compare import paired_columns
    from agenticvbench.cost import columns as cost_columns
    from agenticvbench.cost.pricing import load_prices

    costs = cost_columns.group_costs(board.groups, load_prices(args.prices))
    if cost_columns.any_usage(costs):
        board.extra_columns.update(cost_columns.leaderboard_columns(costs))
        board.extra_captions.append(cost_columns.CAPTION)
    if args.compare_to:
        found = board.aggregation.clustering  # the board's clusters: one resolution per command
        board.extra_columns.update(
            paired_columns(
                board.groups,
                results,
                args.compare_to,
                clusters=found.clusters,
                unclustered_reason=found.reason,
            )
        )
        board.extra_captions.append(
            f"vs {args.compare_to}: paired macro difference (row - {args.compare_to}) in points on the tasks both "
            "rows have, 95% interval clustered as `avb compare` does, sign-flip p-value (as `avb compare`)."
        )
