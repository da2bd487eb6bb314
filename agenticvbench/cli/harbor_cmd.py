"""`avb harbor reward`: turn an `avb score` result into Harbor's `reward.json` and its details sidecar.

Exported Harbor tasks call it from `tests/test.sh`; see `docs/harbor.md`.
"""

from __future__ import annotations

import argparse
import sys

from agenticvbench.dataset.tasks import FAMILIES


def _reward(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.reward import write_reward

    reward = write_reward(args.family, args.result, args.out, args.details)
    if not args.quiet:
        print(f"reward {reward['reward']:.6f} written to {args.out}", file=sys.stderr)
    return 0


def _metric(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.metric import job_metrics, to_text

    groups, skipped = job_metrics(args.job_dirs, tasks_dir=args.tasks_dir, infra_policy=args.infra_policy)
    from agenticvbench.sanitize import one_line

    for s in skipped:
        print(f"skipped: {one_line(s)}", file=sys.stderr)
    print(to_text(groups, args.format))
    return 0


def _check_job(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.checkjob import check_jobs

    checks = check_jobs(args.job_dirs, tasks_dir=args.tasks_dir, trials=args.trials)
    for c in checks:
        print(c.to_text())
    return 0 if all(c.comparable for c in checks) else 1


def register(sub: argparse._SubParsersAction) -> None:
    """Add `harbor export|import|gold|reward|metric|check-job` (`avb export harbor`, `avb import harbor` and
    `avb gold` stay as older spellings of the first three, for one release)."""
    from agenticvbench.cli.export import HARBOR_EXPORT_HELP, add_harbor_export_args
    from agenticvbench.cli.gold import GOLD_HELP, add_gold_args
    from agenticvbench.cli.import_cmd import HARBOR_IMPORT_HELP, add_harbor_import_args

    p = sub.add_parser(
        "harbor", help="everything Harbor: export tasks, import jobs, gold outputs, rewards, metrics"
    )
    inner = p.add_subparsers(dest="harbor_command", metavar="COMMAND", required=True)
    add_harbor_export_args(inner.add_parser("export", help=HARBOR_EXPORT_HELP))
    add_harbor_import_args(inner.add_parser("import", help=HARBOR_IMPORT_HELP))
    add_gold_args(inner.add_parser("gold", help=GOLD_HELP))
    r = inner.add_parser(
        "reward",
        help='write Harbor\'s reward.json ({"reward": headline}) and reward-details.json '
        "from an `avb score` result",
    )
    r.add_argument("--family", required=True, choices=FAMILIES)
    r.add_argument("--result", required=True, help="the JSON printed by `avb score <family>`")
    r.add_argument("--out", required=True, help="reward.json to write")
    r.add_argument("--details", help="details sidecar to write (default: reward-details.json beside --out)")
    r.set_defaults(func=_reward)
    m = inner.add_parser(
        "metric",
        help="per-family headlines, macro and micro of Harbor jobs, as `avb "
        "leaderboard` defines them, from the rewards Harbor recorded",
    )
    m.add_argument("job_dirs", nargs="+", metavar="JOB_DIR")
    m.add_argument(
        "--tasks-dir",
        default=None,
        help="the `avb export harbor` folder: every exported task counts (default: tasks with a trial)",
    )
    m.add_argument(
        "--infra-policy",
        choices=("zero", "exclude"),
        default="zero",
        help="infrastructure failures count 0 (default) or are left out of the means",
    )
    m.add_argument(
        "--format", choices=("tsv", "md", "json"), default="tsv", help="output format (default: %(default)s)"
    )
    m.set_defaults(func=_metric)
    c = inner.add_parser(
        "check-job",
        help="say whether Harbor jobs are comparable on a leaderboard (no timeout "
        "multiplier or resource override, the exported tasks, enough trials)",
    )
    c.add_argument("job_dirs", nargs="+", metavar="JOB_DIR")
    c.add_argument("--tasks-dir", default=None, help="the `avb export harbor` folder the jobs must have run")
    c.add_argument(
        "--trials",
        type=int,
        default=1,
        help="usable trials each task needs per (agent, model) (default 1; e.g. 3 for -k 3)",
    )
    c.set_defaults(func=_check_job)
