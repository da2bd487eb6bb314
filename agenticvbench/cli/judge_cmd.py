"""`avb judge agree SOURCE...`: agreement between human graders and model judges on recap llm items."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agenticvbench.cli.common import add_format_args, print_json
from agenticvbench.errors import ConfigError
from agenticvbench.verifiers.recap.rubric import pillar_name


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def render_text(report: dict[str, Any]) -> str:
    """The agreement report as plain text."""
    lines = ["sources: " + ", ".join(f"{s} ({n} verdicts)" for s, n in report["sources"].items())]
    for pair in report["pairs"]:
        o = pair["overall"]
        ci = o["kappa_ci95"]
        (pp, pf), (fp, ff) = o["confusion"]
        lines += [
            f"\n{pair['a']} vs {pair['b']}: n={o['n']} agreement={_fmt(o['agreement'])} "
            f"kappa={_fmt(o['kappa'])}" + (f" [95% CI {ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""),
            f"  confusion (rows {pair['a']}, cols {pair['b']}; pass, fail): [[{pp}, {pf}], [{fp}, {ff}]]",
            f"  pass prevalence: {_fmt(o['prevalence']['a_pass'])} vs {_fmt(o['prevalence']['b_pass'])}",
        ]
        for p, st in pair["pillars"].items():
            named = f"{p} ({pillar_name(int(p))})" if p.isdigit() else p  # the names the grading page shows
            lines.append(
                f"  pillar {named}: n={st['n']} agreement={_fmt(st['agreement'])} kappa={_fmt(st['kappa'])}"
            )
        for item, st in pair["items"].items():
            lines.append(f"  item {item}: n={st['n']} agreement={_fmt(st['agreement'])}")
    if "fleiss" in report:
        f = report["fleiss"]
        lines.append(f"\nFleiss' kappa ({len(f['sources'])} sources, n={f['n']}): {_fmt(f['kappa'])}")
    return "\n".join(lines)


def _agree(args: argparse.Namespace) -> int:
    from agenticvbench.dataset.loader import default_cache_dir
    from agenticvbench.grade.agreement import agreement_report

    if len(args.sources) < 2:
        raise ConfigError("judge agree needs two or more sources (human:<grader> or model:<name>)")
    cache = Path(args.cache_dir).expanduser() if args.cache_dir else default_cache_dir()
    report = agreement_report(args.sources, cache)
    for warning in [] if args.quiet else report["warnings"]:
        print(f"avb judge agree: warning: {warning}", file=sys.stderr)
    if args.json:
        print_json(report)
    else:
        print(render_text(report))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `judge agree`."""
    p = sub.add_parser("judge", help="judge tools: agreement between graders and model judges")
    jsub = p.add_subparsers(dest="judge_command", metavar="SUBCOMMAND", required=True)
    a = jsub.add_parser("agree", help="raw agreement, Cohen's kappa (bootstrap CI), confusion; Fleiss for 3+")
    a.add_argument(
        "sources", nargs="+", metavar="SOURCE", help="human:<grader> or model:<name> (two or more)"
    )
    a.add_argument(
        "--cache-dir", default=None, help="where grades/ and judge/ live (default: the package cache)"
    )
    add_format_args(a)
    a.set_defaults(func=_agree)
