"""`avb score repair`: the official repair scorer CLI, same inputs, same JSON fields, same exit codes.

The cell comes from `--task-id N` (its `rubric_json.cell`, from the dataset), `--cell vN/sM` (the shipped ground
truth) or `--profile PROFILE.json` (any profile; the variant is `injection.variant`, or `_combined` when it has an
`injections` list). Prints the official JSON (`task_id`, `cell`, `variant`, normalised `*_score` with their
`*_max`, `final_score`, `detail{format, localization, edit}`, `error`); exits 1 when `error` is non-empty.
Warnings (upstream quirks that applied) go to stderr so stdout stays the official JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agenticvbench.cli.common import add_dataset_args, print_json
from agenticvbench.dataset.loader import default_cache_dir, load_tasks
from agenticvbench.dataset.tasks import resolve_cell
from agenticvbench.errors import ConfigError, TaskError


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score repair`."""
    p = sub.add_parser(
        "repair",
        help="score one repair task (official repair scorer)",
        description="Score fixed.mp4 + report.md against the cell's source video and profile.",
    )
    p.add_argument("--fixed-mp4", required=True, help="the agent's repaired video")
    p.add_argument("--report-md", required=True, help="the agent's localization report")
    p.add_argument(
        "--source-mp4",
        default=None,
        help="the cell's original source video (with --task-id it is fetched when omitted)",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--task-id", type=int, help="dataset task id (65..82); the cell comes from rubric_json"
    )
    which.add_argument("--cell", help="ground-truth cell, e.g. v4/s1")
    which.add_argument("--profile", help="a profile.json to score against (variant from injection.variant)")
    p.add_argument("--workers", type=int, default=2, help="edit worker processes (default: %(default)s)")
    p.add_argument("--no-cache", action="store_true", help="do not use the edit feature cache")
    add_dataset_args(p)
    p.set_defaults(func=run)


def _load_profile(path: str) -> tuple[str, dict[str, Any]]:
    """(variant, profile) from a profile file; ValueError/OSError with a message naming the problem."""
    from agenticvbench.verifiers.repair.profiles import variant_of_profile

    with open(path, encoding="utf-8") as fh:
        profile = json.load(fh)
    if not isinstance(profile, dict):
        raise ValueError("top level is not a JSON object")
    return variant_of_profile(profile), profile


def run(args: argparse.Namespace) -> int:
    """Score and print the official JSON; 1 when `error` is non-empty (or the task's cell cannot be resolved)."""
    from agenticvbench.verifiers.repair import failed_outcome, score_repair, source_of

    task_id: Any = args.task_id
    source = Path(args.source_mp4) if args.source_mp4 else None
    if args.task_id is not None:
        try:
            (task,) = load_tasks(
                "repair",
                task_ids=[args.task_id],
                dataset=args.dataset,
                revision=args.revision,
                cache_dir=args.cache_dir,
            )
        except TaskError as exc:
            print_json({"error": f"could not resolve cell for task {args.task_id}: {exc}"})
            return 1
        cell, variant, profile = task.cell, task.variant, task.profile  # type: ignore[attr-defined]
        source = source or source_of(task)
    else:
        cell = args.cell or args.profile
        what = f"the profile of cell {cell!r}" if args.cell is not None else f"profile {cell}"
        try:
            variant, profile = resolve_cell(cell) if args.cell is not None else _load_profile(cell)
        except (KeyError, OSError, ValueError) as exc:  # a KeyError's message is its argument, unquoted
            msg = exc.args[0] if isinstance(exc, KeyError) else str(exc)
            print_json(failed_outcome(task_id, cell, "", f"could not load {what}: {msg}").official)
            return 1
    if source is None:
        raise ConfigError("--source-mp4 is required with --cell or --profile")
    for flag, given in (("--fixed-mp4", args.fixed_mp4), ("--report-md", args.report_md)):
        if not Path(given).is_file():  # the official scorer scores this 0 with exit 0: say why on stderr
            print(
                f"avb: warning: {flag} {given}: not found; its part scores 0 (official exit code kept)",
                file=sys.stderr,
            )
    cache = None if args.no_cache else Path(args.cache_dir or default_cache_dir()) / "repair-edit"
    outcome = score_repair(
        Path(args.fixed_mp4),
        Path(args.report_md),
        source,
        profile=profile,
        variant=variant,
        task_id=task_id,
        cell=cell,
        cache_dir=cache,
        workers=max(1, args.workers),
    )
    for w in outcome.warnings:
        print(f"avb: warning: {w}", file=sys.stderr)
    print_json(outcome.official)
    return 1 if outcome.official.get("error") else 0
