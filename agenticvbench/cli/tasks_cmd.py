"""`avb tasks` (table or JSON of the dataset's tasks) and `avb tasks show ID` (answers hidden unless asked)."""

from __future__ import annotations

import argparse
import csv
import sys
from typing import Any

from agenticvbench.cli.common import (
    add_dataset_args,
    add_format_args,
    add_selection_args,
    load_selected,
    print_json,
)
from agenticvbench.dataset.loader import DatasetSource, load_tasks, repo_relative

#: The columns of the task list (its JSON keys).
COLUMNS = ("task_id", "task_family", "prompt", "n_materials")
#: Rubric keys that are not answers (shown by `tasks show` without --with-answers); everything else is hidden.
PUBLIC_RUBRIC_KEYS = ("n_slots", "film", "duration_sec")


def _list(args: argparse.Namespace) -> int:
    tasks = load_selected(args)
    rows = [[t.task_id, t.family, t.prompt, len(t.reference_file_urls)] for t in tasks]
    if args.format == "json":
        print_json([dict(zip(COLUMNS, r, strict=True)) for r in rows])
        return 0
    if args.format == "md":
        from agenticvbench.tables import md_table

        print(md_table(list(COLUMNS), [list(map(str, r)) for r in rows], "llll"))
        return 0
    if args.format == "csv":
        csv.writer(sys.stdout, lineterminator="\n").writerows([COLUMNS, *rows])
        return 0
    print(f"{'id':>4}  {'family':<11} {'urls':>5}  prompt")  # dataset URLs (a zip counts once), not clips
    for t in tasks:
        prompt = " ".join(t.prompt.split())
        print(
            f"{t.task_id:>4}  {t.family:<11} {len(t.reference_file_urls):>5}  "
            f"{prompt[:70] + ('...' if len(prompt) > 70 else '')}"
        )
    print(f"{len(tasks)} task(s)")
    return 0


def hide_answers(summary: dict[str, Any]) -> dict[str, Any]:
    """A task summary without what the verifier compares against (correct order, slots, repair cell/window,
    recap checks): only non-answer rubric keys stay, the rest are named under `hidden`."""
    rubric = summary.get("rubric")
    out = {k: v for k, v in summary.items() if k != "rubric"}
    if isinstance(rubric, dict):
        out["rubric"] = {k: v for k, v in rubric.items() if k in PUBLIC_RUBRIC_KEYS}
        out["hidden"] = sorted(k for k in rubric if k not in PUBLIC_RUBRIC_KEYS)
    elif isinstance(rubric, list):
        out["rubric"] = {"n_items": len(rubric)}
        out["hidden"] = ["rubric items"]
    if out.get("hidden"):
        out["note"] = (
            "answers hidden (verifier-only; never give them to an agent); "
            "`avb tasks show ID --with-answers` prints them"
        )
    return out


def show_answers(summary: dict[str, Any]) -> dict[str, Any]:
    """The whole task summary (the full rubric, as before) plus `answers`: exactly the rubric keys `hide_answers`
    names under `hidden` (the recap checks as `items`), so `--with-answers` visibly prints what the plain view
    leaves out."""
    rubric = summary.get("rubric")
    hidden = hide_answers(summary).get("hidden", [])
    out = dict(summary)
    if isinstance(rubric, dict):
        out["answers"] = {k: rubric[k] for k in hidden}
    elif isinstance(rubric, list):
        out["answers"] = {"items": rubric}
    if out.get("answers"):
        out["note"] = (
            f"answers shown under `answers` ({', '.join(out['answers'])}): verifier-only, never give them to an "
            "agent"
        )
    return out


def _show(args: argparse.Namespace) -> int:
    (task,) = load_tasks(
        task_ids=[args.task_id], dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir
    )
    summary = task.summary()
    src = task.source
    if isinstance(src, DatasetSource) and src.kind != "hub" and src.root is not None:
        # where the files are on disk
        summary["local_files"] = [str(src.root / repo_relative(u)) for u in task.reference_file_urls]
    print_json(show_answers(summary) if args.with_answers else hide_answers(summary))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `tasks` and `tasks show`."""
    p = sub.add_parser("tasks", help="list the benchmark's tasks (or show one)")
    add_dataset_args(p)
    add_selection_args(p)
    add_format_args(p, ("text", "md", "csv", "json"))
    p.set_defaults(func=_list)
    inner = p.add_subparsers(dest="tasks_command", metavar="SUBCOMMAND")
    show = inner.add_parser("show", help="show one task (prompt, files; answers only with --with-answers)")
    show.add_argument("task_id", type=int, metavar="TASK_ID", help="the task to show (e.g. 37)")
    show.add_argument(
        "--with-answers",
        action="store_true",
        help="also print the rubric's answers (correct order, repair cell and window, recap checks)",
    )
    add_dataset_args(show, suppress=True)  # `avb tasks --dataset M show 37` keeps M
    show.set_defaults(func=_show)
