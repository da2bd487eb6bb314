"""`avb download`: fetch (and cache) task materials, optionally the verifier-only references too.

`--json` prints, per task, `materials` (what an agent may see) and, with `--with-verifier-references`,
`verifier_references` (repair sources) under a separate key, so the two never end up in one list.
"""

from __future__ import annotations

import argparse

from agenticvbench.cli.common import (
    add_command,
    add_dataset_args,
    add_format_args,
    add_selection_args,
    load_selected,
    print_json,
)
from agenticvbench.cli.progress import Progress, progress_mode


def _download(args: argparse.Namespace) -> int:
    ids = args.tasks
    if args.task:  # the older repeatable --task ID
        ids = [*(ids or []), *(i for i in args.task if i not in (ids or []))]
    tasks = load_selected(args, ids)
    fetched: dict[int, dict[str, list[str]]] = {}
    with Progress(progress_mode(args), "downloading", total=len(tasks)) as shown:
        for task in tasks:
            entry = {"materials": [str(p) for p in task.materials()]}
            if args.with_verifier_references:
                entry["verifier_references"] = [str(p) for p in task.verifier_references()]
            fetched[task.task_id] = entry
            shown.set_postfix_str(f"task {task.task_id}")
            shown.update(1)
    if args.json:
        print_json(fetched)
    else:
        n = sum(len(e["materials"]) for e in fetched.values())
        refs = sum(len(e.get("verifier_references", [])) for e in fetched.values())
        print(
            f"{n} material file(s) for {len(fetched)} task(s) are cached and ready"
            + (f"; {refs} verifier-only reference(s) too (never give them to an agent)" if refs else "")
        )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `download`."""
    p = add_command(sub, "download", "download task materials into the cache", __doc__)
    add_dataset_args(p)
    add_selection_args(p)
    p.add_argument("--task", type=int, action="append", help=argparse.SUPPRESS)  # older spelling of --tasks
    p.add_argument(
        "--with-verifier-references",
        action="store_true",
        help="also fetch verifier-only references (repair sources); never give them to an agent",
    )
    add_format_args(p)  # json: the local paths, materials and verifier_references per task
    p.add_argument(
        "--progress", action="store_true", help="draw the progress bar even when stderr is not a terminal"
    )
    p.set_defaults(func=_download)
