"""`avb power`: how many tasks or repetitions detect a difference of X points at 80% power.

From results (RUN...: one stack, or two - pick them with --a/--b when more are given) the variance of a per-task
paired difference is split into a part repetitions average away and a part they do not (see
`agenticvbench.analysis.power`); or give it directly with `--sd POINTS` (the standard deviation of one task's paired
difference). The estimate planned is `avb compare`'s macro (stratified by family, clustered by source material
when it is known; `--no-cluster` turns that off), so the same design prints the same MDD in both. Points are
score x 100. An MDD at another number of tasks (`--tasks`, default 100) assumes the observed family mix, scaled
(the caption says so). `-q` prints the table alone. Exit codes: 0 ok; 2 usage error (an option out of range, a run given twice); 3 a path holds no
results.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from pathlib import Path

from agenticvbench.cli.common import (
    add_command,
    add_results_dataset_args,
    add_trust_args,
    check_trust,
    warn_lines,
    write_output,
)
from agenticvbench.dataset.tasks import FAMILIES
from agenticvbench.errors import ConfigError
from agenticvbench.sanitize import md_cell, one_line
from agenticvbench.tables import md_table


def out_of_range(args: argparse.Namespace) -> str:
    """The first option outside its sane range, as one line ('' when all are fine): --sd and every --delta in
    (0, 100] points (a difference of scores in [0, 1]), --power in (0, 1), --tasks in [2, 100000], --reps in
    [1, 1000]; nan and infinity are never in range."""
    from agenticvbench.analysis.power import MAX_TASKS

    def bad(x: float, lo: float, hi: float, *, hi_open: bool = False) -> bool:
        return not math.isfinite(x) or x <= lo or x > hi or (hi_open and x >= hi)

    if args.sd is not None and bad(args.sd, 0.0, 100.0):
        return f"--sd {args.sd}: must be a number in (0, 100] points"
    for d in args.delta:
        if bad(d, 0.0, 100.0):
            return f"--delta {d}: must be a number in (0, 100] points"
    if bad(args.power, 0.0, 1.0, hi_open=True):
        return f"--power {args.power}: must be a number in (0, 1)"
    if not 2 <= args.tasks <= MAX_TASKS:
        return f"--tasks {args.tasks}: must be between 2 and {MAX_TASKS}"
    if not all(1 <= r <= 1000 for r in args.reps):
        return "--reps: every value must be between 1 and 1000"
    return ""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `power` command."""
    p = add_command(sub, "power", "tasks / repetitions needed to detect a difference (80%% power)", __doc__)
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
    p.add_argument(
        "--format", choices=("md", "json"), default="md", help="output format (default: %(default)s)"
    )
    p.add_argument("--out", type=Path, default=None, help="write to this file instead of the terminal")
    add_results_dataset_args(p)
    add_trust_args(p)
    p.set_defaults(func=run)


def components(args: argparse.Namespace):  # noqa: ANN201 - returns (power.Components, notes)
    """The variance components from --sd or from the runs, with the caption's notes (clustering, spread)."""
    from agenticvbench.analysis.aggregate import run_ref
    from agenticvbench.analysis.clusters import resolve_clustering
    from agenticvbench.analysis.compare import paired_tasks, stack_matrix
    from agenticvbench.analysis.power import (
        Components,
        Design,
        design_one_stack,
        design_two_stacks,
        rep_spread,
    )
    from agenticvbench.cli.compare import refuse_repeated_runs
    from agenticvbench.report.summary import load_comparison
    from agenticvbench.results.signatures import reader_key

    if args.sd is not None:
        return Components(
            between=(args.sd / 100) ** 2,
            within=0.0,
            n_tasks=0,
            reps=(),
            basis="given --sd (repetition noise not separated)",
        ), ["degrees of freedom: tasks - 1 (every task its own cluster)"]
    if not args.paths:
        raise ConfigError("give runs to estimate the variance from, or --sd POINTS")
    key, _ = reader_key(args.key_file)
    loaded = load_comparison(args.paths, key, find_key=False)
    refuse_repeated_runs(list(args.paths), loaded)
    args.untrusted = check_trust(loaded, key, args)  # printed once the table is made
    results = [r for r in loaded if args.family in (None, r.family)]
    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault("/".join(run_ref(r).group), []).append(r)
    names = [args.a, args.b] if args.a and args.b else sorted(groups)
    if len(names) > 2 or any(n not in groups for n in names):
        raise ConfigError(f"name two stacks with --a/--b (rows: {', '.join(sorted(groups))})")
    stacks = [groups[n] for n in names]
    tasks = paired_tasks(stacks)  # compare's tasks and exclusion rule
    shared = [(f, t) for f in tasks.kept.families for t in tasks.kept.tasks[f]]
    if len(shared) < 2:
        raise ConfigError("fewer than 2 tasks with results to estimate a variance from")
    mats = [stack_matrix(res, tasks.kept) for res in stacks]
    found = resolve_clustering(
        results, dataset=args.dataset, revision=args.revision, enabled=not args.no_cluster
    )
    cl = [(found.clusters or {}).get(k, f"task:{k[0]}-{k[1]}") for k in shared]
    design = Design.macro([f for f, _ in shared], cl)
    notes = [
        f"estimate: macro difference (families weigh the same), as `avb compare`; clustered by "
        f"{found.label(shared)}"
    ]
    notes += [s.sentence() for n, m in zip(names, mats, strict=True) if (s := rep_spread(n, m, design))]
    notes.append(mix_note([f for f, _ in shared], args.tasks))
    comp = (
        design_one_stack(mats[0], design) if len(mats) == 1 else design_two_stacks(mats[0], mats[1], design)
    )
    return (replace(comp, holm_m=len(FAMILIES)) if args.family else comp), notes


def mix_note(families: list[str], n_tasks: int) -> str:
    """Which family mix an MDD at another number of tasks assumes: the observed one, scaled (`Design.macro`)."""
    from agenticvbench.dataset.tasks import FAMILY_ID_RANGES

    seen = ", ".join(f"{f} {families.count(f)}" for f in FAMILIES if f in families)
    full = ", ".join(f"{f} {len(FAMILY_ID_RANGES[f])}" for f in FAMILIES)
    return (
        f"MDD at {n_tasks} tasks assumes the observed family mix ({seen}) scaled up; the full benchmark's mix "
        f"({full}) weighs the families' variances differently, so its MDD differs somewhat"
    )


def run(args: argparse.Namespace) -> int:
    """Print the power table."""
    from agenticvbench.analysis.power import reps_needed, tasks_needed

    problem = out_of_range(args)
    if problem:
        raise ConfigError(problem)
    comp, notes = components(args)
    warn_lines(getattr(args, "untrusted", []), "avb power")
    clean = md_cell if args.format == "md" else one_line  # stack names are agent-chosen strings
    kw = {"power": args.power}
    ns = sorted(n for n in {args.tasks, comp.n_tasks} if n >= 2)  # the task counts tabulated
    rows = []
    for r in args.reps:
        sd = comp.sd(r)
        rows.append(
            {
                "reps": r,
                "sd_points": 100 * sd,
                "mdd_points": {n: 100 * comp.mdd(r, n, **kw) for n in ns},
                "tasks_needed": {d: tasks_needed(sd, d / 100, df=comp.df, **kw) for d in args.delta},
                "reachable": {n: comp.reachable(n) for n in ns},
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
        f"{1e4 * comp.within:.1f} pts^2 (divided by repetitions), per task. Two-sided paired t test at 5% on "
        f"Bell-McCaffrey degrees of freedom ({comp.df(args.tasks):.1f} at {args.tasks} tasks), "
        f"power {args.power:.0%}; points = score x 100. "
        + "".join(
            f"No verdict possible at {n} tasks ({comp.clusters(n)} clusters): the sign-flip p cannot go below "
            f"0.05{' after Holm across the families' if comp.holm_m > 1 else ''}, whatever the difference. "
            for n in ns
            if not comp.reachable(n)
        )
        + " ".join(f"{clean(n)}." for n in notes)
    )
    if args.format == "json":
        write_output(
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
                    "notes": notes,
                    "df_at_tasks": comp.df(args.tasks),
                },
                indent=2,
                allow_nan=False,
            )
            + "\n",
            args.out,
        )
        return 0
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
            *[
                f"{r['mdd_points'][n]:.1f}"
                if r["reachable"][n]
                else f"no verdict possible ({comp.clusters(n)} clusters)"
                for n in ns
            ],
            *[str(v) for v in r["tasks_needed"].values()],
        ]
        for r in rows
    ]
    lines = [md_table(headers, table, "r" * len(headers))]
    if not args.quiet:  # -q: only the table, no caption, no notes
        lines += ["", head]
        if comp.n_tasks and min(comp.reps) < 2:
            lines.append(
                "- with one repetition per stack the repetition noise cannot be separated from the between-task "
                "part, so every reps row is the same; run a stack twice to see what repetitions buy"
            )
        for d, v in reps_at.items():
            lines.append(
                f"- {d:g} points with {args.tasks} tasks: "
                + (
                    f"{v} repetition(s) per stack"
                    if v
                    else "not reachable by repetitions alone (<= 20): the between-task part dominates; add tasks"
                )
            )
    write_output("\n".join(lines) + "\n", args.out)
    return 0
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
