"""`avb score recap`: score one final.mp4 against a recap rubric, printing the public recap CLI's JSON.

    avb score recap --final-mp4 F (--task-id N [--dataset D ...] | --rubric RUBRIC.json)
                    [--judge cache|replay|off] [--judge-model M] [--judge-base-url URL]
                    [--judge-frames N] [--judge-fps R]

Prints {task_id, n_items, items[{item_id, dispatch, weight, pillar, passed, score, reason}], pillar_breakdown,
final_score, error} plus `unscored` (count), `status` and `warnings`. Exit 1 when `error` is non-empty (missing
or unreadable final.mp4, malformed rubric), else 0. `--rubric` takes a JSON list of items, or an object holding
one under `rubric_items`, `items` or `rubric`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agenticvbench.cli.common import add_dataset_args, add_judge_args, judge_from_args, print_json
from agenticvbench.errors import TaskError


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score recap`."""
    p = sub.add_parser("recap", help="score a recap final.mp4 against its rubric (python checks + LLM judge)")
    p.add_argument("--final-mp4", required=True, type=Path, help="the agent's final.mp4")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--task-id", type=int, help="recap task id (1-36) whose rubric to use")
    src.add_argument(
        "--rubric", type=Path, help="a rubric JSON file (list of items) instead of a dataset task"
    )
    add_dataset_args(p)
    add_judge_args(p)
    p.set_defaults(func=run)


def _read_rubric(path: Path) -> Any:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TaskError(None, "rubric", f"{path}: cannot read ({exc.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TaskError(None, "rubric", f"{path}: invalid JSON ({exc})") from None
    if isinstance(data, dict):
        for key in ("rubric_items", "items", "rubric"):
            if key in data:
                return data[key]
    return data


def run(args: argparse.Namespace) -> int:
    """Score and print; exit 1 when the official `error` field is non-empty."""
    from agenticvbench.dataset.loader import default_cache_dir, load_tasks
    from agenticvbench.verifiers.recap import score_recap

    cache_dir = Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    if args.rubric is not None:
        items, task_id = _read_rubric(args.rubric), None
    else:
        task = load_tasks(
            "recap",
            task_ids=[args.task_id],
            dataset=args.dataset,
            revision=args.revision,
            cache_dir=args.cache_dir,
        )[0]
        items, task_id = getattr(task, "items", []), task.task_id
    settings = judge_from_args(args)
    outcome = score_recap(
        args.final_mp4, items, judge_settings=settings, cache_dir=cache_dir, task_id=task_id
    )
    out = {
        **outcome.official,
        "unscored": int(outcome.components.get("unscored", 0)),
        "status": outcome.status,
        "warnings": outcome.warnings,
        "judge": outcome.extra.get("judge", {}),
    }
    print_json(out)
    return 1 if out.get("error") else 0
