"""`avb audit RUN_DIR...`: read each task's agent trajectory and flag how the agent worked (read-only).

Rules: `answer_access` (the dataset's table or verifier-only references, any results folder, the scorer's
cache), `web_access` (web search or fetch tools, grounding, downloads from outside the task's input hosts),
`foreign_task` (another task's inputs, folder or outputs). Each flag names the log, the step and the call, on
one line. A run without any trajectory is reported "not audited", never clean. Formats, where logs are looked
for and what the audit cannot see: docs/guide/audit.md.

Exit codes: 0 nothing flagged (runs without trajectories are listed as not audited); 1 at least one flag; 2 usage
error; 3 dataset or run-directory error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agenticvbench.cli.common import add_command, add_dataset_args, add_format_args, print_json, write_output
from agenticvbench.errors import SubmissionError


def _audit(args: argparse.Namespace) -> int:
    from agenticvbench.dataset.loader import load_tasks
    from agenticvbench.trajectory import AuditContext, audit_run
    from agenticvbench.trajectory.render import to_json, to_markdown

    runs = [Path(p) for p in args.runs]
    for run in runs:
        if not run.is_dir():
            raise SubmissionError(f"{run}: no such run directory")
    tasks = load_tasks(dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir)
    ctx = AuditContext.build(tasks, runs=runs, cache_dir=args.cache_dir, dataset=args.dataset)
    ids = set(args.tasks) if args.tasks else None
    audits = [audit_run(run, ctx, task_ids=ids) for run in runs]
    if args.format == "json":
        print_json(to_json(audits))
    else:
        write_output(to_markdown(audits), None)
    return 1 if any(a.findings for a in audits) else 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `audit`."""
    from agenticvbench.cli.common import task_ids_arg

    p = add_command(
        sub, "audit", "flag answer access, web access and other tasks' files in agent trajectories", __doc__
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories (RUN/<task_id>/ with logs)")
    add_dataset_args(p)
    p.add_argument(
        "--tasks", type=task_ids_arg, default=None, metavar="IDS", help="only these task ids, e.g. 37-40,83"
    )
    add_format_args(p, formats=("md", "json"), default="md")
    p.set_defaults(func=_audit)
