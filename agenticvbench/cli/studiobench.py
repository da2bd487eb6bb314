"""`avb studiobench validate-task FILE...` and `avb studiobench validate-run DIR...`.

Both print a table (or `--json`) and exit 1 when anything is invalid, 0 otherwise. A run is invalid when it is
not `valid_for_bench` or its record is incomplete (missing artifacts, unreadable result.json, secrets in mcp.json).
"""

from __future__ import annotations

import argparse

from agenticvbench.cli.common import add_format_args, print_json


def _yn(flag: bool) -> str:
    return "yes" if flag else "NO"


def _validate_task(args: argparse.Namespace) -> int:
    from agenticvbench.interop import studiobench as sb  # lazy: keeps `avb --help` fast

    reports = [sb.validate_task_file(f) for f in args.files]
    if args.json:
        print_json({"valid": all(r.valid for r in reports), "tasks": [r.to_dict() for r in reports]})
    else:
        for r in reports:
            status = "valid" if r.valid else "INVALID"
            print(f"{status:<8} {r.source}" + (f"  (id {r.task_id})" if r.task_id else ""))
            for e in r.errors:
                print(f"  error   {e.path or '/'}: {e.message}")
            for w in r.warnings:
                print(f"  warning {w.path or '/'}: {w.message}")
        print(f"{len(reports)} task file(s), {sum(not r.valid for r in reports)} invalid")
    return 1 if any(not r.valid for r in reports) else 0


def _fmt_limit(value: float | None, limit: float | None, unit: str) -> str:
    if value is None:
        return "?"
    text = f"{value:.0f}{unit}"
    return text if limit is None else f"{text}/{limit:.0f}{unit}"


def _validate_run(args: argparse.Namespace) -> int:
    from agenticvbench.interop import studiobench as sb  # lazy: keeps `avb --help` fast

    tasks = sb.load_task_index(args.task or [])
    runs = [r for d in args.dirs for r in sb.discover_runs(d)]
    reports = [sb.validate_run(r, tasks.get(r.parent.name)) for r in runs]
    if args.json:
        print_json({"ok": all(r.ok for r in reports), "runs": [r.to_dict() for r in reports]})
    else:
        print(f"{'submitted':<10}{'valid':<7}{'record':<8}{'wall clock':>14}{'calls':>10}  run")
        for r in reports:
            lim = r.limits
            print(
                f"{_yn(r.submitted):<10}{_yn(r.valid_for_bench):<7}{_yn(r.record_ok):<8}"
                f"{_fmt_limit(lim.get('wall_clock_s'), lim.get('wall_clock_limit_s'), 's'):>14}"
                f"{_fmt_limit(lim.get('calls'), lim.get('call_limit'), ''):>10}  {r.run_dir}"
            )
            for f in r.failures:
                print(f"  {f.rule}: {f.reason}")
            for w in r.warnings:
                print(f"  warning: {w}")
        print(
            f"{len(reports)} run(s), {sum(r.valid_for_bench for r in reports)} valid for the bench, "
            f"{sum(not r.ok for r in reports)} with problems"
        )
    return 1 if any(not r.ok for r in reports) else 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `studiobench validate-task` and `studiobench validate-run`."""
    p = sub.add_parser("studiobench", help="validate StudioBench task files and run directories")
    inner = p.add_subparsers(dest="studiobench_command", metavar="SUBCOMMAND", required=True)
    vt = inner.add_parser("validate-task", help="check task JSON files against the StudioBench task format")
    vt.add_argument("files", nargs="+", metavar="FILE", help="task JSON files")
    add_format_args(vt)
    vt.set_defaults(func=_validate_task)
    vr = inner.add_parser(
        "validate-run", help="check runs/<batch>/<task>/<model>/ directories (or a batch folder)"
    )
    vr.add_argument("dirs", nargs="+", metavar="DIR", help="run directories or batch folders")
    vr.add_argument(
        "--task",
        action="append",
        metavar="FILE_OR_DIR",
        help="task JSON file or folder of them (repeatable); a run's task is its parent folder's name "
        "and is needed for the duration rule and the wall-clock limit",
    )
    add_format_args(vr)
    vr.set_defaults(func=_validate_run)
