"""`avb power`: how many tasks or repetitions detect a difference of X points at 80% power.

From results (RUN...: one stack, or two - pick them with --a/--b when more are given) the variance of a per-task
paired difference is split into a part repetitions average away and a part they do not (see
`agenticvbench.analysis.power`); or give it directly with `--sd POINTS` (the standard deviation of one task's paired
difference). Points are score x 100. Exit codes: 0 ok; 2 usage error; 3 a path holds no results.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from agenticvbench.cli.common import add_verbosity_args
from agenticvbench.dataset.tasks import FAMILIES
from agenticvbench.tables import md_table


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `power` command."""
    p = sub.add_parser(
        "power",
        help="tasks / repetitions needed to detect a difference (80%% power)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="*", metavar="RUN", help="runs to estimate the variance from")
    p.add_argument("--a", default=None, metavar="ROW", help="stack A among RUN... (harness/model)")
    p.add_argument("--b", default=None, metavar="ROW", help="stack B among RUN... (harness/model)")
    p.add_argument(
        "--sd",
        type=float,
        default=None,
        metavar="POINTS",
        help="standard deviation of one task's paired difference, in points (instead of RUN...)",
    )
    p.add_argument(
        "--delta",
        type=float,
        nargs="+",
        default=[2.0, 5.0, 10.0],
        metavar="POINTS",
        help="differences to detect, in points (default: 2 5 10)",
    )
    p.add_argument("--tasks", type=int, default=100, help="tasks in the planned comparison (default: 100)")
    p.add_argument("--reps", type=int, nargs="+", default=[1, 2, 3, 5], help="repetitions to tabulate")
    p.add_argument("--family", choices=FAMILIES, default=None, help="only this family's tasks")
    p.add_argument("--power", type=float, default=0.8, help="power (default: %(default)s)")
    p.add_argument("--format", choices=("md", "json"), default="md")
    add_verbosity_args(p)
    p.set_defaults(func=run)


def _matrix(results: list, tasks: list[tuple[str, int]]) -> np.ndarray:
    from agenticvbench.analysis.aggregate import run_ref, score_matrices
    from agenticvbench.analysis.task_universe import TaskUniverse

    by_fam: dict[str, list[int]] = {}
    for f, t in tasks:
        by_fam.setdefault(f, []).append(t)
    universe = TaskUniverse({f: tuple(v) for f, v in by_fam.items()}, "observed")
    mats = score_matrices(results, sorted({run_ref(r) for r in results}), universe)
    return np.concatenate([mats[f][0] for f in universe.families], axis=1)


def components(args: argparse.Namespace):  # noqa: ANN201 - returns stats.power.Components
    """The variance components from --sd or from the runs."""
    from agenticvbench.analysis.aggregate import run_ref
    from agenticvbench.analysis.power import Components, one_stack, two_stacks
    from agenticvbench.errors import ConfigError
    from agenticvbench.report.summary import load_comparison
    from agenticvbench.results.model import INVALID_STATUS

    if args.sd is not None:
        if args.sd <= 0:
            raise ConfigError("--sd must be positive")
        return Components((args.sd / 100) ** 2, 0.0, 0, (), "given --sd (repetition noise not separated)")
    if not args.paths:
        raise ConfigError("give runs to estimate the variance from, or --sd POINTS")
    results = [r for r in load_comparison(args.paths) if args.family in (None, r.family)]
    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault("/".join(run_ref(r).group), []).append(r)
    names = [args.a, args.b] if args.a and args.b else sorted(groups)
    if len(names) > 2 or any(n not in groups for n in names):
        raise ConfigError(f"name two stacks with --a/--b (rows: {', '.join(sorted(groups))})")
    have = [{(r.family, int(r.task_id)) for r in groups[n] if r.status != INVALID_STATUS} for n in names]
    shared = sorted(set.intersection(*have))
    if len(shared) < 2:
        raise ConfigError("fewer than 2 tasks with results to estimate a variance from")
    mats = [_matrix(groups[n], shared) for n in names]
    return one_stack(mats[0]) if len(mats) == 1 else two_stacks(*mats)


def run(args: argparse.Namespace) -> int:
    """Print the power table."""
    from agenticvbench.analysis.power import mdd, reps_needed, tasks_needed

    if args.tasks < 2 or min(args.reps) < 1 or min(args.delta) <= 0 or not 0 < args.power < 1:
        print("avb power: need --tasks >= 2, --reps >= 1, --delta > 0 and 0 < --power < 1", file=sys.stderr)
        return 2
    comp = components(args)
    kw = {"power": args.power}
    rows = []
    for r in args.reps:
        sd = comp.sd(r)
        rows.append(
            {
                "reps": r,
                "sd_points": 100 * sd,
                "mdd_points": {
                    n: 100 * mdd(sd, n, **kw) for n in sorted({args.tasks, comp.n_tasks}) if n >= 2
                },
                "tasks_needed": {d: tasks_needed(sd, d / 100, **kw) for d in args.delta},
            }
        )
    reps_at = {d: reps_needed(comp, args.tasks, d / 100, **kw) for d in args.delta}
    head = (
        f"Variance of one task's paired difference: {comp.basis}"
        + (
            f", estimated over {comp.n_tasks} tasks with {'/'.join(map(str, comp.reps))} repetition(s)"
            if comp.n_tasks
            else ""
        )
        + f"; between = {1e4 * comp.between:.1f} pts^2 (not reduced by repetitions), within = "
        f"{1e4 * comp.within:.1f} pts^2 (divided by repetitions). Two-sided paired t test at 5%, "
        f"power {args.power:.0%}; points = score x 100."
    )
    if args.format == "json":
        print(
            json.dumps(
                {
                    "basis": comp.basis,
                    "between": comp.between,
                    "within": comp.within,
                    "n_tasks": comp.n_tasks,
                    "reps_observed": list(comp.reps),
                    "rows": rows,
                    "reps_needed": {str(d): v for d, v in reps_at.items()},
                    "tasks": args.tasks,
                    "caption": head,
                },
                indent=2,
            )
        )
        return 0
    ns = sorted({args.tasks, comp.n_tasks} - {0, 1})
    headers = [
        "reps",
        "sd of a task's difference",
        *[f"MDD at {n} tasks" for n in ns],
        *[f"tasks for {d:g} pts" for d in args.delta],
    ]
    table = [
        [
            str(r["reps"]),
            f"{r['sd_points']:.1f}",
            *[f"{r['mdd_points'][n]:.1f}" for n in ns],
            *[str(v) for v in r["tasks_needed"].values()],
        ]
        for r in rows
    ]
    print(md_table(headers, table, "r" * len(headers)))
    print()
    print(head)
    if comp.n_tasks and min(comp.reps) < 2:
        print(
            "- with one repetition per stack the repetition noise cannot be separated from the between-task "
            "part, so every reps row is the same; run a stack twice to see what repetitions buy"
        )
    for d, v in reps_at.items():
        print(
            f"- {d:g} points with {args.tasks} tasks: "
            + (
                f"{v} repetition(s) per stack"
                if v
                else "not reachable by repetitions alone (<= 20): the between-task part dominates; add tasks"
            )
        )
    return 0
