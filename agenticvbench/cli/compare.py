"""`avb compare A B`: is stack A better than stack B? Paired by task, per family and overall.

A and B are each a run directory (or its avb-results folder), or, with `--runs RUN...`, a leaderboard row
`harness/model` naming every run of that stack among RUN... (so repetitions are averaged within each task).
Tasks cut from the same source material are clustered whenever it is known (`--dataset`, or the local dataset
the results' provenance names); `--no-cluster` turns that off. The caption says which was used; `-q` prints the
table and which stack is A and which B, without the caption.
Exit codes: 0 ok; 2 usage error; 3 the stacks share no task, mix dataset revisions or verifier versions, or a
path holds no results.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from agenticvbench.cli.common import (
    add_command,
    add_results_dataset_args,
    add_trust_args,
    check_trust,
    warn_lines,
    write_output,
)
from agenticvbench.cli.report import add_exclude_flagged_args, exclude_flags_from_args
from agenticvbench.errors import ConfigError, SubmissionError
from agenticvbench.results.model import Result
from agenticvbench.results.signing import ResultKey
from agenticvbench.sanitize import one_line


def stack_results(spec: str, runs: list[str] | None, key: ResultKey | None = None) -> list[Result]:
    """The results of one stack: a run path, or a `harness/model` row among `runs` (`SubmissionError` if none);
    signatures checked with `key`."""
    from agenticvbench.analysis.aggregate import run_ref
    from agenticvbench.report.summary import load_available

    if not runs or Path(spec).exists():
        results, skipped = load_available(Path(spec), key)
        if skipped:
            raise SubmissionError(skipped[0])
        return results
    pool, _ = load_available([Path(r) for r in runs], key)
    chosen = [r for r in pool if "/".join(run_ref(r).group) == spec]
    if not chosen:
        rows = sorted({"/".join(run_ref(r).group) for r in pool})
        raise SubmissionError(f"{spec}: not a path and no such row among --runs (rows: {', '.join(rows)})")
    return chosen


def refuse_repeated_runs(paths: list[str], results: list[Result]) -> None:
    """`ConfigError` (one line, exit 2) when a run is given twice: the same folder twice, or two folders that claim
    the same run (harness, model and rep), since averaging a run with itself narrows every interval."""
    from agenticvbench.analysis.aggregate import run_ref

    seen: dict[Path, str] = {}
    for p in paths:
        where = Path(p).resolve()
        if where in seen:
            raise ConfigError(f"{p}: the same run is given twice ({seen[where]} and {p})")
        seen[where] = p
    claims: dict[tuple[str, str, str], set[str]] = {}
    for r in results:
        ref = run_ref(r)
        if ref.rep not in ("", "None"):
            claims.setdefault((ref.harness, ref.model, ref.rep), set()).add(ref.path)
    for (h, m, rep), claimed in sorted(claims.items()):
        if len(claimed) > 1:
            first, second = sorted(claimed)[:2]
            raise ConfigError(
                f"{one_line(second)}: the same run as {one_line(first)} ({one_line(h)}/{one_line(m)} rep "
                f"{one_line(rep)}) is given twice; give each run once"
            )


def compare_stacks(
    results_a: list[Any], results_b: list[Any], clustering: Any, *, permutations: int = 10000, seed: int = 0
) -> Any:
    """The comparison `avb compare` prints (A minus B, `clustering` from `clusters.resolve_clustering`): the one
    call every surface that compares two stacks makes (`avb view --compare` too)."""
    from agenticvbench.analysis.compare import compare_runs

    return compare_runs(
        results_a,
        results_b,
        clusters=clustering.clusters,
        permutations=permutations,
        seed=seed,
        unclustered_reason=clustering.reason,
    )


def quiet_table(comparison: Any) -> str:
    """`-q`: the table and the one line that says which stack is A and which B (no caption, no notes)."""
    from agenticvbench.sanitize import md_cell
    from agenticvbench.tables import md_table

    headers, rows = comparison.table()
    a, b = (md_cell(x) for x in (comparison.label_a, comparison.label_b))
    n_a, n_b = len(comparison.runs_a), len(comparison.runs_b)
    return md_table(headers, rows, "lrrrrrrrrrrl") + f"\n\nA = {a} ({n_a} run(s)), B = {b} ({n_b} run(s)).\n"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `compare` command."""
    p = add_command(sub, "compare", "paired comparison of two stacks (interval, p-value, MDD)", __doc__)
    p.add_argument("a", metavar="A", help="stack A: a run directory, or a harness/model row of --runs")
    p.add_argument("b", metavar="B", help="stack B: a run directory, or a harness/model row of --runs")
    p.add_argument(
        "--runs", nargs="+", metavar="RUN", default=None, help="runs to pick harness/model rows from"
    )
    p.add_argument(
        "--cluster",
        action="store_true",
        help="cluster tasks by source material (film, repair source): the default whenever it is known",
    )
    add_results_dataset_args(p)
    add_trust_args(p)
    add_exclude_flagged_args(p)
    p.add_argument(
        "--format",
        choices=("md", "csv", "json", "latex"),
        default="md",
        help="output format (default: %(default)s)",
    )
    p.add_argument("--out", type=Path, default=None, help="write to this file instead of the terminal")
    p.add_argument(
        "--permutations",
        type=int,
        default=10000,
        help="random sign flips when there are too many clusters to enumerate (default: %(default)s)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random sign flips (default: %(default)s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compare the two stacks and print (or write) the table."""
    from agenticvbench.analysis.clusters import resolve_clustering
    from agenticvbench.analysis.settings import flagged_rule, leave_out_flagged
    from agenticvbench.results.signatures import reader_key

    if args.permutations < 1:
        raise ConfigError("--permutations must be >= 1")
    if args.cluster and args.no_cluster:
        raise ConfigError("--cluster and --no-cluster exclude each other")
    key, _ = reader_key(args.key_file)
    results_a, results_b = stack_results(args.a, args.runs, key), stack_results(args.b, args.runs, key)
    given = list(args.runs) if args.runs else []
    given += [x for x in (args.a, args.b) if not args.runs or Path(x).exists()]
    refuse_repeated_runs(given, [*results_a, *results_b])
    untrusted = check_trust([*results_a, *results_b], key, args)
    clustering = resolve_clustering(
        [*results_a, *results_b], dataset=args.dataset, revision=args.revision, enabled=not args.no_cluster
    )
    flags = exclude_flags_from_args(args)
    (results_a, n_a), (results_b, n_b) = (
        leave_out_flagged(results_a, flags),
        leave_out_flagged(results_b, flags),
    )
    comparison = compare_stacks(
        results_a, results_b, clustering, permutations=args.permutations, seed=args.seed
    )
    comparison.flagged_out, comparison.flagged_rule = n_a + n_b, flagged_rule(flags, n_a + n_b)
    text = quiet_table(comparison) if args.quiet and args.format == "md" else comparison.render(args.format)
    warn_lines(untrusted, "avb compare")
    write_output(text, args.out)
    return 0
