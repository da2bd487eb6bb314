"""`avb report`: aggregate the results of one or more runs into a Markdown, HTML or JSON report.

Markdown goes to the terminal by default; `--out DIR` writes `report.md`, `report.html`, `report.json`.
Exit codes: 0 ok; 1 some result has status `error` (the report is still written); 2 usage error;
3 a path holds no results or the dataset cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import atomic_write_text
from agenticvbench.report.aggregate import DEFAULT_RESAMPLES, DEFAULT_SEED

REPORT_FORMATS = ("md", "html", "json", "all")


def add_aggregation_args(p: argparse.ArgumentParser) -> None:
    """Options choosing the task universe and the bootstrap (shared with `avb leaderboard`)."""
    g = p.add_argument_group("which tasks count (a task without a result counts 0)")
    g.add_argument("--dataset", default=None,
                   help="count every task of this dataset (Hub id, local mirror or parquet); default: the tasks "
                        "that have a result in any of the given runs")
    g.add_argument("--revision", default=None, help="dataset revision (with --dataset)")
    g.add_argument("--cache-dir", default=None, help="cache folder (with --dataset)")
    g.add_argument("--full-benchmark", action="store_true",
                   help="count the full benchmark: ids 1-100 by the published family ranges")
    b = p.add_argument_group("bootstrap confidence intervals")
    b.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                   help="bootstrap resamples, 0 = no intervals (default: %(default)s)")
    b.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed (default: %(default)s)")


def aggregation_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for `build_report` / `build_leaderboard` from the parsed options."""
    kw: dict[str, Any] = {"full_benchmark": args.full_benchmark, "resamples": args.resamples, "seed": args.seed}
    if args.dataset:
        from agenticvbench.loader import load_tasks

        kw["tasks"] = load_tasks(dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir)
        kw["dataset_label"] = str(args.dataset) + (f"@{args.revision}" if args.revision else "")
    return kw


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `report` command."""
    p = sub.add_parser("report", help="report on scored runs (Markdown, HTML with plots, JSON)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="RESULTS_OR_RUN_DIR",
                   help="run directories (containing avb-results/) or results folders")
    p.add_argument("--format", choices=REPORT_FORMATS, default="md",
                   help="output format; 'all' needs --out (default: %(default)s)")
    p.add_argument("--out", type=Path, default=None, help="write report.<ext> files into this directory")
    add_aggregation_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the report and print or write it."""
    from agenticvbench.cli.common import print_json
    from agenticvbench.report import build_report, load_comparison, render_html, render_markdown
    from agenticvbench.results import announce_invalid_results

    if args.format == "all" and args.out is None:
        print("avb report: --format all needs --out DIR", file=sys.stderr)
        return 2
    if args.resamples < 0:
        print("avb report: --resamples must be >= 0", file=sys.stderr)
        return 2
    report = build_report(load_comparison(args.paths), **aggregation_kwargs(args))
    render = {"md": lambda: render_markdown(report), "html": lambda: render_html(report),
              "json": lambda: report.to_dict()}
    formats = ["md", "html", "json"] if args.format == "all" else [args.format]
    if args.out is None:
        out = render[args.format]()
        if args.format == "json":
            print_json(out)
        else:
            sys.stdout.write(str(out) + "\n")
    else:
        import json

        for f in formats:
            data = render[f]()
            text = json.dumps(data, indent=2, default=str) + "\n" if f == "json" else str(data)
            path = args.out / f"report.{f}"
            atomic_write_text(path, text)
            print(f"wrote {path}")
    if report.n_errors:
        print(f"avb report: {report.n_errors} result(s) have status ERROR (the verifier failed); see the report",
              file=sys.stderr)
    return 1 if announce_invalid_results(args.paths, "avb report") or report.n_errors else 0
