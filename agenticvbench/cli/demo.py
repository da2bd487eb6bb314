"""`avb demo`: build the embedded demo benchmark, score its three runs, print the headline and status counts (the
full report goes to DEST/report.md) and the next commands to try. Needs no network.

Progress goes to stderr: a line before the build and before scoring, every build step and a scoring bar on a
terminal, and outside one a heartbeat line at least every 8 s (so the first run is never silent for long); `-q`
prints only the summary. Exit codes: 0 ok; 1 some result has status `error`; 2 usage error; 3 the demo folder
cannot be written (e.g. it holds something that is not a demo build).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from agenticvbench.cli.common import (
    add_command,
    add_judge_args,
    judge_from_args,
    notice,
    positive_int,
)
from agenticvbench.cli.progress import Progress, progress_factory, progress_mode


def step_printer(args: argparse.Namespace) -> tuple[Callable[[str], None] | None, Progress | None]:
    """The build's step callback and the display to close after the build: on a terminal (or with --progress)
    every step line; outside one a heartbeat line at least every `HEARTBEAT_S` s naming the last finished step
    (`cli.progress`); nothing with `-q`."""
    mode = progress_mode(args)
    if mode == "off":
        return None, None
    if mode == "bar":
        return (lambda line: print(line, file=sys.stderr, flush=True)), None
    display = Progress("lines", "building the demo")
    return (lambda line: display.set_postfix_str(line)), display


def _demo(args: argparse.Namespace) -> int:
    from agenticvbench.demo import build_demo, default_demo_dir
    from agenticvbench.demo.build import is_complete
    from agenticvbench.demo.sizes import get_size
    from agenticvbench.scoring.engine import verify_run

    size = get_size(args.size)
    if args.first:
        size = size.first(args.first)
    dest = Path(args.dest) if args.dest else default_demo_dir(size)
    small = size.name == "small"
    if args.rebuild or not is_complete(dest.absolute(), size):
        how_long = "about 10 s to a minute on 2 cores" if small else "minutes to hours, see --help"
        notice(args, f"building the {size.name} demo benchmark in {dest} (first time only; {how_long})")
    printer, display = step_printer(args)
    try:
        demo = build_demo(dest, force=args.rebuild, size=size, progress=printer)
    finally:
        if display is not None:
            display.close()
    if not args.quiet or args.no_score:
        print(f"demo benchmark: {demo.mirror}")
        if not small:
            files = [p for p in demo.root.rglob("*") if p.is_file()]
            print(f"  {len(files)} files, {sum(p.stat().st_size for p in files) / 1e9:.2f} GB")
        for name, path in demo.runs.items():
            print(f"  run {name}: {path}")
    if args.no_score:
        return 0
    notice(
        args,
        f"scoring the demo's {len(demo.runs)} runs (results are reused when nothing changed; "
        f"{dest / 'cache'} holds the cache)",
    )
    summary = verify_run(
        list(demo.runs.values()),
        dataset=demo.mirror,
        cache_dir=dest / "cache",
        jobs=args.jobs,
        force=args.force,
        judge=judge_from_args(args),
        progress=progress_factory(args),
    )
    from agenticvbench.dataset.loader import load_tasks
    from agenticvbench.fsutil import atomic_write_text
    from agenticvbench.report import build_report, render_markdown
    from agenticvbench.report.markdown import render_summary

    report = build_report(
        summary.results, tasks=load_tasks(dataset=demo.mirror), dataset_label=f"demo ({demo.mirror})"
    )
    full = render_markdown(report)
    report_path = dest / "report.md"
    atomic_write_text(report_path, full)
    print(full if args.full_report else render_summary(report))
    if args.quiet:
        return 1 if summary.n_errors else 0
    print(f"\nfull report (per task, why tasks lost points, provenance): {report_path}")
    print(
        f"{len(summary.results)} result(s), {summary.n_resumed} reused; "
        f"{summary.unscored_items} judge item(s) unscored (no judge configured: see docs/guide/score-and-resume.md)"
    )
    print(next_commands(demo.mirror, demo.runs))
    return 1 if summary.n_errors else 0


def next_commands(mirror: Path, runs: dict[str, Path]) -> str:
    """What to try next, with the demo's own paths filled in (every line is a real command)."""
    partial = runs.get("partial") or next(iter(runs.values()))
    all_runs = " ".join(shlex.quote(str(p)) for p in runs.values())
    m, r = shlex.quote(str(mirror)), shlex.quote(str(partial))
    lines = [
        "next commands to try (offline, on the demo):",
        f"  avb tasks --dataset {m}",
        f"  avb explain {r} 65  # why repair task 65 lost points",
        f"  avb verify {r} --dataset {m} -v --tasks 37-38,83",
        f"  avb leaderboard {all_runs} --format md",
        f"  avb report {all_runs} --format all --out avb-demo-report",
        f"  export AVB_DATASET={m}  # then --dataset can be left out",
    ]
    return "\n".join(lines)


def register(sub: argparse._SubParsersAction) -> None:
    """Add `demo`."""
    p = add_command(
        sub, "demo", "build the demo benchmark, score its runs and print the report (offline)", __doc__
    )
    p.add_argument("--dest", help="where to build (default: the user cache)")
    p.add_argument(
        "--size",
        choices=["small", "medium", "full"],
        default="small",
        help="small: 2-3 tasks per family, seconds of 320x180 (default); medium: the real 100 tasks "
        "with short 360p-480p media; full: the real 100 tasks at real length and 720p-1080p "
        "(several GB, hours on 2 cores)",
    )
    p.add_argument(
        "--first",
        type=positive_int,
        default=None,
        metavar="N",
        help="only the first N tasks of each family (to sample a large size)",
    )
    p.add_argument("--rebuild", action="store_true", help="rebuild the demo even if it exists")
    p.add_argument("--force", action="store_true", help="rescore even if results exist")
    p.add_argument("--no-score", action="store_true", help="only build and list")
    p.add_argument(
        "--jobs", type=positive_int, default=None, help="parallel workers (default: number of cores)"
    )
    p.add_argument(
        "--progress",
        action="store_true",
        help="every build step and the scoring bar even when stderr is not a terminal",
    )
    p.add_argument(
        "--full-report",
        action="store_true",
        help="print the whole report (it is always written to DEST/report.md)",
    )
    add_judge_args(p)
    p.set_defaults(func=_demo)
