"""`avb report`: aggregate the results of one or more runs into a Markdown, HTML or JSON report.

Markdown goes to the terminal by default; `--out DIR` writes `report.md`, `report.html`, `report.json`.
Exit codes: 0 ok; 1 some result has status `error` (the report is still written); 2 usage error;
3 a path holds no results or the dataset cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agenticvbench.analysis.aggregate import DEFAULT_RESAMPLES, DEFAULT_SEED
from agenticvbench.cli.common import (
    LOG,
    add_command,
    add_json_alias,
    add_results_dataset_args,
    add_selection_args,
    add_trust_args,
    add_verbosity_args,
    check_trust,
    folder_arg,
    notice,
    report_errors,
)
from agenticvbench.cli.progress import progress_factory
from agenticvbench.dataset.loader import default_cache_dir, load_tasks
from agenticvbench.dataset.selection import select_ids
from agenticvbench.dataset.tasks import FAMILY_ID_RANGES
from agenticvbench.errors import ConfigError, SubmissionError
from agenticvbench.fsutil import atomic_write_text
from agenticvbench.results.model import Result

REPORT_FORMATS = ("md", "html", "json", "all")


def add_aggregation_args(p: argparse.ArgumentParser) -> None:
    """Options choosing the task universe and the bootstrap (shared with `avb leaderboard`)."""
    g = p.add_argument_group("which tasks count (a task without a result counts 0)")
    add_results_dataset_args(g, counts_tasks=True)  # without it: the tasks with a result in any run count
    g.add_argument(
        "--cache-dir",
        default=None,
        help="cache folder: the dataset's (with --dataset), where the judge calibration records "
        "(calibration/) are read and, for `avb report`, the human verdicts (grades/) and the judge cache "
        "(judge/) (default: the package cache)",
    )
    g.add_argument(
        "--full-benchmark",
        action="store_true",
        help="count the full benchmark: ids 1-100 by the published family ranges",
    )
    add_selection_args(g)
    f = p.add_argument_group("the floor (best trivial strategy per family, see docs/baselines.md)")
    f.add_argument(
        "--baselines",
        type=Path,
        default=None,
        metavar="DIR",
        help="read the floor from `avb baselines --out DIR` (default: score the baselines of --dataset, "
        "or of the local dataset the results name, cached)",
    )
    f.add_argument("--no-floor", action="store_true", help="no floor row")
    add_verbosity_args(p)
    add_trust_args(p)
    b = p.add_argument_group("bootstrap confidence intervals")
    b.add_argument(
        "--resamples",
        type=int,
        default=DEFAULT_RESAMPLES,
        help="bootstrap resamples, 0 = no intervals (default: %(default)s)",
    )
    b.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed (default: %(default)s)")
    add_exclude_flagged_args(p)


def add_exclude_flagged_args(p: argparse.ArgumentParser) -> None:
    """`--exclude-flagged` and `--exclude-flags` (shared by `avb leaderboard`, `avb report`, `avb compare`)."""
    from agenticvbench.analysis.settings import FLAGGED_DEFAULT

    g = p.add_argument_group("integrity flags (docs/guide/audit.md, in avb verify and the tables)")
    g.add_argument(
        "--exclude-flagged",
        action="store_true",
        help="leave cells whose result carries an integrity flag out of the means, as excluded cells are "
        f"(default flags: the trajectory audit's, {','.join(FLAGGED_DEFAULT)}); the caption and JSON say how many",
    )
    g.add_argument(
        "--exclude-flags",
        type=flags_arg,
        default=None,
        metavar="FLAGS",
        help="which integrity flags --exclude-flagged leaves out, comma-separated, or 'all' (implies "
        "--exclude-flagged)",
    )


def flags_arg(text: str) -> tuple[str, ...]:
    """argparse type of `--exclude-flags`: integrity flag names (`integrity.screen.FLAGS`), comma-separated, or
    `all`."""
    from agenticvbench.integrity.screen import FLAGS

    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return tuple(FLAGS)
    unknown = [n for n in names if n not in FLAGS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown integrity flag(s) {', '.join(unknown) or '(none given)'}; known: all, {', '.join(FLAGS)}"
        )
    return tuple(dict.fromkeys(names))


def exclude_flags_from_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The integrity flags whose cells the command leaves out (() when neither option is given)."""
    from agenticvbench.analysis.settings import FLAGGED_DEFAULT

    if getattr(args, "exclude_flags", None):
        return tuple(args.exclude_flags)
    return FLAGGED_DEFAULT if getattr(args, "exclude_flagged", False) else ()


def aggregation_from_args(args: argparse.Namespace, results: list[Result], kw: dict[str, Any]) -> Any:
    """The command's one `Aggregation` (resamples, seed, clustering) from the parsed options, for the results
    and the tasks `kw` chose (`aggregation_kwargs`, `select_results`); every number the command prints uses it."""
    from agenticvbench.analysis.settings import Aggregation

    if args.resamples < 0:
        raise ConfigError(f"--resamples must be >= 0, got {args.resamples}")
    return Aggregation.resolve(
        results,
        tasks=kw.get("tasks"),
        cluster=not args.no_cluster,
        resamples=args.resamples,
        seed=args.seed,
        exclude_flags=exclude_flags_from_args(args),
        cache_dir=Path(args.cache_dir).expanduser()
        if getattr(args, "cache_dir", None)
        else default_cache_dir(),
    )


def aggregation_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The task universe's keyword arguments for `build_report` / `build_leaderboard` from the parsed options
    (the bootstrap's come from `aggregation_from_args`)."""
    kw: dict[str, Any] = {"full_benchmark": args.full_benchmark}
    if args.dataset:
        kw["tasks"] = load_tasks(dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir)
        kw["dataset_label"] = str(args.dataset) + (f"@{args.revision}" if args.revision else "")
    return kw


def load_for_report(args: argparse.Namespace) -> tuple[list[Result], list[str], Any, list[str]]:
    """(results, paths without results, the key signatures were checked with, notes about the key and the
    results folders) for `avb report` / `avb leaderboard`."""
    from agenticvbench.report.summary import load_available
    from agenticvbench.results.folder import record_notes
    from agenticvbench.results.model import results_dir_for
    from agenticvbench.results.signatures import reader_key

    key, key_notes = reader_key(args.key_file)
    results, skipped = load_available(args.paths, key)
    if args.require_signed:  # otherwise the table's `signed` column says how many verify
        check_trust(results, key, args)
    return results, skipped, key, key_notes + record_notes([results_dir_for(p) for p in args.paths], key)


def floor_kwargs(args: argparse.Namespace, results: list[Result], kw: dict[str, Any]) -> dict[str, Any]:
    """`floor` and `floor_note` for `build_report` / `build_leaderboard`, for the task universe `kw` chooses."""
    if args.no_floor:
        return {}
    from agenticvbench.analysis.task_universe import task_universe
    from agenticvbench.baselines.floor import floor_for

    universe = task_universe(
        results,
        tasks=kw.get("tasks"),
        full_benchmark=kw.get("full_benchmark", False),
        source=kw.get("dataset_label", ""),
    )
    quiet = getattr(args, "quiet", False)
    floor, note = floor_for(
        universe,
        results=results,
        tasks=kw.get("tasks"),
        baselines_dir=args.baselines,
        cache_dir=args.cache_dir,
        notify=None if quiet else (lambda line: notice(args, line)),
        progress=progress_factory(args, "scoring the floor (baselines)"),
    )
    return {"floor": floor, "floor_note": note}


def select_results(args: argparse.Namespace, results: list[Result], kw: dict[str, Any]) -> list[Result]:
    """Apply `--family/--tasks/--limit` to the results and to the task universe in `kw` (changed in place)."""
    if args.family is None and args.tasks is None and args.limit is None:
        return results
    tasks = kw.get("tasks")
    if tasks is not None:
        pairs = [(t.family, int(t.task_id)) for t in tasks]
    else:
        pairs = [(r.family, int(r.task_id)) for r in results]
        if args.full_benchmark:
            pairs += [(f, i) for f, ids in FAMILY_ID_RANGES.items() for i in ids]
    keep = select_ids(pairs, family=args.family, task_ids=args.tasks, limit=args.limit)
    if not keep:
        raise SubmissionError("no task matches --family/--tasks/--limit in these results")
    if tasks is not None:
        kw["tasks"] = [t for t in tasks if (t.family, int(t.task_id)) in keep]
    elif args.full_benchmark:
        by_family: dict[str, list[int]] = {}
        for f, i in sorted(keep):
            by_family.setdefault(f, []).append(i)
        kw["tasks"], kw["dataset_label"] = by_family, "selected with --family/--tasks/--limit"
    return [r for r in results if (r.family, int(r.task_id)) in keep]


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `report` command."""
    p = add_command(sub, "report", "report on scored runs (Markdown, HTML with plots, JSON)", __doc__)
    p.add_argument(
        "paths",
        nargs="+",
        metavar="RESULTS_OR_RUN_DIR",
        help="run directories (containing avb-results/) or results folders",
    )
    p.add_argument(
        "--format",
        choices=REPORT_FORMATS,
        default="md",
        help="output format; 'all' needs --out (default: %(default)s)",
    )
    add_json_alias(p)
    p.add_argument(
        "--out",
        type=folder_arg,
        default=None,
        metavar="DIR",
        help="write report.<ext> files into this directory",
    )
    add_aggregation_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the report and print or write it."""
    from agenticvbench.report import build_report, render_html, render_markdown
    from agenticvbench.results.model import announce_invalid_results

    if args.format == "all" and args.out is None:
        raise ConfigError("--format all writes report.md, report.html and report.json: it needs --out DIR")
    results, skipped, key, notes = load_for_report(args)
    kw = aggregation_kwargs(args)
    cache = Path(args.cache_dir).expanduser() if args.cache_dir else default_cache_dir()
    chosen = select_results(args, results, kw)
    report = build_report(
        chosen,
        notes=[*skipped, *notes],
        cache_dir=cache,
        key=key,
        aggregation=aggregation_from_args(args, chosen, kw),
        **kw,
        **floor_kwargs(args, chosen, kw),
    )
    for line in skipped:
        LOG.warning(f"not in the report: {line}")
    render = {
        "md": lambda: render_markdown(report),
        "html": lambda: render_html(report),
        "json": lambda: json.dumps(with_costs(report.to_dict(), report), indent=2, default=str) + "\n",
    }
    formats = ["md", "html", "json"] if args.format == "all" else [args.format]
    if args.quiet and args.format == "md":  # -q: the headline table alone, as `avb demo` prints it
        from agenticvbench.report.markdown import render_summary

        render["md"] = lambda: render_summary(report)
    if args.out is None:
        out = render[args.format]()
        sys.stdout.write(out if args.format == "json" else out + "\n")
    else:
        for f in formats:
            path = args.out / f"report.{f}"
            atomic_write_text(path, render[f]())
            print(f"wrote {path}")
    errors = report_errors("avb report", report.n_errors, "; see the report")
    return 1 if announce_invalid_results(args.paths, "avb report") or errors else 0


def with_costs(doc: dict[str, Any], report: Any) -> dict[str, Any]:
    """The JSON report plus `agent_cost` (one entry per group) when some run has agent usage."""
    from agenticvbench.cost.columns import any_usage, group_costs, to_dicts

    costs = group_costs(report.groups)
    return {**doc, "agent_cost": to_dicts(costs)} if any_usage(costs) else doc
