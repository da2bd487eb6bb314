"""`avb verify RUN_DIR...`: score whole runs in parallel, resumably, and print the per-family summary."""

from __future__ import annotations

import argparse
import sys

from agenticvbench.cli.common import add_dataset_args, print_json
from agenticvbench.tasks import FAMILIES


def add_judge_args(p: argparse.ArgumentParser) -> None:
    """Judge options shared by `verify` and `demo`."""
    p.add_argument("--judge", choices=("cache", "replay", "off"), default=None,
                   help="LLM judge mode for recap items (default: $AVB_JUDGE_MODE, else cache when an API key or "
                   "endpoint is configured, else off)")
    p.add_argument("--judge-model", default=None, help="judge model name")
    p.add_argument("--judge-base-url", default=None, help="OpenAI-compatible endpoint (default: the SDK's)")


def judge_from_args(args: argparse.Namespace):
    """Build `JudgeSettings` from CLI options (None when the recap judge is not available)."""
    from agenticvbench.judge import JudgeSettings

    mode = args.judge or JudgeSettings.auto_mode(args.judge_base_url)  # off when no endpoint is configured
    return JudgeSettings.from_env(mode=mode, model=args.judge_model, base_url=args.judge_base_url)


def _verify(args: argparse.Namespace) -> int:
    from agenticvbench.engine import verify_run

    task_ids = [int(x) for x in args.tasks.split(",")] if args.tasks else None
    summary = verify_run(args.run_dirs, dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir,
                         family=args.family, task_ids=task_ids, out=args.out, jobs=args.jobs, force=args.force,
                         executor=args.executor, scheduler=args.scheduler, judge=judge_from_args(args),
                         progress=not args.json and sys.stderr.isatty() or args.progress)
    if args.json:
        print_json(summary.to_dict())
    else:
        print(summary.to_text())
    return 1 if summary.n_errors else 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `verify`."""
    p = sub.add_parser("verify", help="score run directories (resumable, parallel)")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    add_dataset_args(p)
    p.add_argument("--family", choices=FAMILIES)
    p.add_argument("--tasks", help="comma-separated task ids")
    p.add_argument("--out", help="results folder (default RUN_DIR/avb-results; with several runs OUT/<run name>)")
    p.add_argument("--jobs", type=int, default=None, help="parallel workers (default: number of cores)")
    p.add_argument("--force", action="store_true", help="rescore tasks even if a matching result exists")
    p.add_argument("--executor", choices=("process", "dask"), default="process")
    p.add_argument("--scheduler", help="Dask scheduler address for --executor dask")
    p.add_argument("--progress", action="store_true", help="show the progress bar even when not on a terminal")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_judge_args(p)
    p.set_defaults(func=_verify)
