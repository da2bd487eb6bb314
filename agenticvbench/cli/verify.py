"""`avb verify RUN_DIR...`: score whole runs in parallel, resumably, and print the per-family summary."""

from __future__ import annotations

import argparse
import sys

from agenticvbench.cli.common import add_dataset_args, add_judge_args, judge_from_args, print_json
from agenticvbench.tasks import FAMILIES


def task_id_list(text: str) -> list[int]:
    """argparse type for `--tasks 37,38,83`."""
    try:
        ids = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated task ids like 37,38, got {text!r}") from None
    if not ids:
        raise argparse.ArgumentTypeError("no task id given")
    return ids


def positive_int(text: str) -> int:
    """argparse type for `--jobs N` (N >= 1)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def _verify(args: argparse.Namespace) -> int:
    from agenticvbench.engine import verify_run

    task_ids = args.tasks
    summary = verify_run(args.run_dirs, dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir,
                         family=args.family, task_ids=task_ids, out=args.out, jobs=args.jobs, force=args.force,
                         executor=args.executor, scheduler=args.scheduler, judge=judge_from_args(args),
                         progress=not args.json and sys.stderr.isatty() or args.progress,
                         max_media_bytes=args.max_media_mb * 1024 * 1024 if args.max_media_mb else None)
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
    p.add_argument("--tasks", type=task_id_list, help="comma-separated task ids")
    p.add_argument("--out", help="results folder (default RUN_DIR/avb-results; with several runs OUT/<run name>)")
    p.add_argument("--jobs", type=positive_int, default=None, help="parallel workers (default: number of cores)")
    p.add_argument("--force", action="store_true", help="rescore tasks even if a matching result exists")
    p.add_argument("--executor", choices=("process", "dask"), default="process")
    p.add_argument("--scheduler", help="Dask scheduler address for --executor dask")
    p.add_argument("--progress", action="store_true", help="show the progress bar even when not on a terminal")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--max-media-mb", type=positive_int, default=None,
                   help="largest submitted media file read, in MiB (default $AVB_MAX_MEDIA_MB, else 4096)")
    add_judge_args(p)
    p.set_defaults(func=_verify)
