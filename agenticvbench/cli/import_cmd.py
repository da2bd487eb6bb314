"""`avb import harbor JOB_DIR... --out RUNS`: Harbor job directories -> run directories for `avb verify`."""

from __future__ import annotations

import argparse
import sys

from agenticvbench.cli.common import folder_arg


def _harbor(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.importer import import_jobs

    summary = import_jobs(args.job_dirs, args.out, force=args.force, infra_policy=args.infra_policy)
    print(summary.to_text(), file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `import harbor`."""
    p = sub.add_parser("import", help="import agent runs made with another tool")
    inner = p.add_subparsers(dest="import_command", metavar="FORMAT", required=True)
    add_harbor_import_args(
        inner.add_parser("harbor", help="older spelling of `avb harbor import` (kept for one release)")
    )


HARBOR_IMPORT_HELP = "Harbor job directories -> one run directory per (agent, model, attempt)"


def add_harbor_import_args(hb: argparse.ArgumentParser) -> None:
    """The options of `avb harbor import` (also spelled `avb import harbor`)."""
    hb.add_argument("job_dirs", nargs="+", metavar="JOB_DIR")
    hb.add_argument(
        "--out",
        type=folder_arg,
        required=True,
        metavar="DIR",
        help="folder to write the run directories into",
    )
    hb.add_argument("--force", action="store_true", help="replace run directories that already exist")
    hb.add_argument(
        "--infra-policy",
        choices=("zero", "exclude"),
        default="zero",
        help="trials that failed in the sandbox, not the agent (environment start/build, verifier "
        "environment, a crash before the agent ran): count 0 like a missing output (default, as "
        "the official aggregation) or leave the task out of the run; both are listed for rerun",
    )
    hb.set_defaults(func=_harbor)
