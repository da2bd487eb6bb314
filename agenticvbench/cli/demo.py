"""`avb demo`: build the embedded demo benchmark, score its three runs, print the headline and status counts (the
full report goes to DEST/report.md) and the next commands to try. Needs no network."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from agenticvbench.cli.common import add_judge_args, judge_from_args, positive_int


def _demo(args: argparse.Namespace) -> int:
    from agenticvbench.demo import build_demo, default_demo_dir
    from agenticvbench.demo.sizes import get_size
    from agenticvbench.scoring.engine import verify_run

    size = get_size(args.size)
    if args.first:
        size = size.first(args.first)
    dest = Path(args.dest) if args.dest else default_demo_dir(size)
    small = size.name == "small"
    if not small:
        print(f"building the {size.name} demo in {dest} (reused if already built)", flush=True)
    demo = build_demo(
        dest,
        force=args.rebuild,
        size=size,
        progress=None if small else (lambda line: print(line, flush=True)),
    )
    print(f"demo benchmark: {demo.mirror}")
    if not small:
        files = [p for p in demo.root.rglob("*") if p.is_file()]
        print(f"  {len(files)} files, {sum(p.stat().st_size for p in files) / 1e9:.2f} GB")
    for name, path in demo.runs.items():
        print(f"  run {name}: {path}")
    if args.no_score:
        return 0
    summary = verify_run(
        list(demo.runs.values()),
        dataset=demo.mirror,
        cache_dir=dest / "cache",
        jobs=args.jobs,
        force=args.force,
        judge=judge_from_args(args),
        progress=args.progress,
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
    p = sub.add_parser("demo", help="build the demo benchmark, score its runs and print the report (offline)")
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
    p.add_argument("--progress", action="store_true", help="draw a progress bar while scoring")
    p.add_argument(
        "--full-report",
        action="store_true",
        help="print the whole report (it is always written to DEST/report.md)",
    )
    add_judge_args(p)
    p.set_defaults(func=_demo)
