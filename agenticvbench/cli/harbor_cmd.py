"""`avb harbor export|import|gold|reward|metric|check-job`: everything Harbor (see `docs/harbor.md`).

`avb harbor reward` turns an `avb score` result into Harbor's `reward.json` and its details sidecar (exported Harbor
tasks call it from `tests/test.sh`). `avb gold`, `avb import harbor` and `avb export harbor` are older spellings of
`avb harbor gold|import|export`, kept for one release.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agenticvbench.cli.common import (
    add_dataset_args,
    add_selection_args,
    folder_arg,
    load_selected,
    write_output,
)
from agenticvbench.cli.progress import long_step
from agenticvbench.dataset.loader import default_dataset
from agenticvbench.dataset.tasks import FAMILIES


def _gold(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.gold import write_gold

    summary = write_gold(load_selected(args), args.out)
    print(f"wrote {args.out}: " + summary.to_text(), file=sys.stderr)
    return 0


def _export(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.export import ExportOptions, export_harbor

    tasks = load_selected(args)
    source = tasks[0].source if tasks else None
    opts = ExportOptions(
        solutions=not args.no_solutions,
        dataset=str(args.dataset or default_dataset()),
        revision=source.resolved_revision if source else (args.revision or ""),
    )
    if args.base_image:
        opts.base_image = args.base_image
    if args.package_spec:
        opts.package_spec = args.package_spec
    if args.wheel:
        opts.wheel = Path(args.wheel)
    elif not opts.package_spec:  # the wheel of this checkout: built once per source (seconds to a minute)
        from agenticvbench.dataset.loader import default_cache_dir
        from agenticvbench.harbor.wheel import build_wheel

        with long_step(args, "building the agenticvbench wheel for the verifier image"):
            opts.wheel = build_wheel(default_cache_dir())
    summary = export_harbor(tasks, args.out, opts)
    if args.quiet:
        return 0
    print(
        f"wrote {len(summary.tasks)} Harbor tasks to {args.out}"
        + (f"; the oracle writes nothing for {len(summary.no_gold)} (recap)" if summary.no_gold else ""),
        file=sys.stderr,
    )
    if opts.package_spec:
        print(f"the verifier image pip-installs {opts.package_spec!r}", file=sys.stderr)
    elif opts.wheel is not None:
        print(
            f"the verifier image installs {opts.wheel.name}, baked into every task's tests/ (agenticvbench is not "
            "on PyPI yet)",
            file=sys.stderr,
        )
    return 0


def _import(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.importer import import_jobs

    summary = import_jobs(args.job_dirs, args.out, force=args.force, infra_policy=args.infra_policy)
    print(summary.to_text(), file=sys.stderr)
    return 0


def _reward(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.reward import write_reward

    reward = write_reward(args.family, args.result, args.out, args.details)
    if not args.quiet:
        print(f"reward {reward['reward']:.6f} written to {args.out}", file=sys.stderr)
    return 0


def _metric(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.metric import job_metrics, to_text
    from agenticvbench.sanitize import one_line

    groups, skipped = job_metrics(args.job_dirs, tasks_dir=args.tasks_dir, infra_policy=args.infra_policy)
    for s in skipped:
        print(f"skipped: {one_line(s)}", file=sys.stderr)
    text = to_text(groups, args.format)
    write_output(text if text.endswith("\n") else text + "\n", args.out)
    return 0


def _check_job(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.checkjob import check_jobs

    checks = check_jobs(args.job_dirs, tasks_dir=args.tasks_dir, trials=args.trials)
    for c in checks:
        print(c.to_text())
    return 0 if all(c.comparable for c in checks) else 1


def register(sub: argparse._SubParsersAction) -> None:
    """Add `gold`, `harbor export|import|gold|reward|metric|check-job` and `import harbor` (`avb export harbor`
    is added by `export`; `avb gold` and the two others stay as older spellings, for one release)."""
    add_gold_args(sub.add_parser("gold", help=GOLD_HELP))
    p = sub.add_parser(
        "harbor", help="everything Harbor: export tasks, import jobs, gold outputs, rewards, metrics"
    )
    inner = p.add_subparsers(dest="harbor_command", metavar="COMMAND", required=True)
    add_harbor_export_args(
        inner.add_parser("export", help="write one Harbor task directory per task (see docs/harbor.md)")
    )
    add_harbor_import_args(
        inner.add_parser(
            "import", help="Harbor job directories -> one run directory per (agent, model, attempt)"
        )
    )
    add_gold_args(inner.add_parser("gold", help=GOLD_HELP))
    r = inner.add_parser(
        "reward",
        help='write Harbor\'s reward.json ({"reward": headline}) and reward-details.json '
        "from an `avb score` result",
    )
    r.add_argument("--family", required=True, choices=FAMILIES, help="the family the result was scored as")
    r.add_argument("--result", required=True, help="the JSON printed by `avb score <family>`")
    r.add_argument("--out", required=True, help="reward.json to write")
    r.add_argument("--details", help="details sidecar to write (default: reward-details.json beside --out)")
    r.set_defaults(func=_reward)
    m = inner.add_parser(
        "metric",
        help="per-family headlines, macro and micro of Harbor jobs, as `avb "
        "leaderboard` defines them, from the rewards Harbor recorded",
    )
    m.add_argument("job_dirs", nargs="+", metavar="JOB_DIR", help="Harbor job directories")
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
    m.add_argument("--out", type=Path, default=None, help="write to this file instead of the terminal")
    m.set_defaults(func=_metric)
    c = inner.add_parser(
        "check-job",
        help="say whether Harbor jobs are comparable on a leaderboard (no timeout "
        "multiplier or resource override, the exported tasks, enough trials)",
    )
    c.add_argument("job_dirs", nargs="+", metavar="JOB_DIR", help="Harbor job directories to check")
    c.add_argument("--tasks-dir", default=None, help="the `avb export harbor` folder the jobs must have run")
    c.add_argument(
        "--trials",
        type=int,
        default=1,
        help="usable trials each task needs per (agent, model) (default 1; e.g. 3 for -k 3)",
    )
    c.set_defaults(func=_check_job)
    p = sub.add_parser("import", help="import agent runs made with another tool")
    inner = p.add_subparsers(dest="import_command", metavar="FORMAT", required=True)
    add_harbor_import_args(
        inner.add_parser("harbor", help="older spelling of `avb harbor import` (kept for one release)")
    )


GOLD_HELP = "write gold (oracle) outputs as a run directory, to check the scorer"


def add_gold_args(p: argparse.ArgumentParser) -> None:
    """The options of `avb gold` (also spelled `avb harbor gold`: the oracle outputs Harbor's solutions hold)."""
    p.add_argument(
        "--out",
        type=folder_arg,
        required=True,
        metavar="DIR",
        help="run directory to write (one folder per task)",
    )
    add_dataset_args(p)
    add_selection_args(p)
    p.set_defaults(func=_gold)


def add_harbor_import_args(hb: argparse.ArgumentParser) -> None:
    """The options of `avb harbor import` (also spelled `avb import harbor`)."""
    hb.add_argument("job_dirs", nargs="+", metavar="JOB_DIR", help="Harbor job directories to import")
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
    hb.set_defaults(func=_import)


def add_harbor_export_args(hb: argparse.ArgumentParser) -> None:
    """The options of `avb harbor export` (also spelled `avb export harbor`)."""
    add_dataset_args(hb)
    hb.add_argument(
        "--out",
        type=folder_arg,
        required=True,
        metavar="DIR",
        help="folder to write the task directories into",
    )
    add_selection_args(hb)
    hb.add_argument("--base-image", default=None, help="base image of both containers (pin it by digest)")
    hb.add_argument(
        "--package-spec",
        default=None,
        help="what the verifier image pip-installs instead of the baked wheel (e.g. "
        "'agenticvbench @ git+https://...@<commit>')",
    )
    hb.add_argument(
        "--wheel",
        default=None,
        help="the agenticvbench wheel to bake into the verifier image (default: built from this "
        "source checkout; required, or --package-spec, when running from an installed package)",
    )
    hb.add_argument("--no-solutions", action="store_true", help="omit solution/ (the oracle's gold outputs)")
    hb.set_defaults(func=_export)
