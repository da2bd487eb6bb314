"""`avb judge agree SOURCE...`: agreement between human graders and model judges on recap llm items, overall, per
pillar and per modality; `--write-calibration` records a model judge's calibration against the graders (the record
the tables' calibration gate reads, docs/grading.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agenticvbench.cli.common import add_format_args, print_json
from agenticvbench.errors import ConfigError
from agenticvbench.judge.profiles import PROFILE_NAMES
from agenticvbench.verifiers.recap.rubric import pillar_name


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _stats_line(label: str, st: dict[str, Any]) -> str:
    ci = st.get("kappa_ci95")
    return f"  {label}: n={st['n']} agreement={_fmt(st['agreement'])} kappa={_fmt(st['kappa'])}" + (
        f" [95% CI {ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    )


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
            lines.append(_stats_line(f"pillar {named}", st))
        for m, st in pair.get("modalities", {}).items():
            lines.append(_stats_line(f"modality {m}", st))
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
    if args.write_calibration:
        report["calibration"] = _write_calibration(args, cache)
    if args.json:
        print_json(report)
    else:
        print(render_text(report))
        if "calibration" in report:
            print(calibration_text(report["calibration"]))
    return 0


def _write_calibration(args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    """Compute and write the calibration record of the one model source against the human sources."""
    from agenticvbench.grade.calibrate import calibration_record
    from agenticvbench.judge.calibration import write_record

    kinds = [s.partition(":") for s in args.sources]
    models = [name for kind, _, name in kinds if kind == "model"]
    graders = [name for kind, _, name in kinds if kind == "human"]
    if len(models) != 1 or not graders:
        raise ConfigError("--write-calibration needs exactly one model:<name> and one or more human:<grader>")
    record = calibration_record(cache, graders, models[0], args.profile)
    path = write_record(cache, record)
    return {**record.to_dict(), "path": str(path)}


def calibration_text(rec: dict[str, Any]) -> str:
    """The written record as plain text: the judge, each modality's numbers and whether it passes."""
    ident = rec["identity"]
    lines = [
        f"\ncalibration of {ident['model']} ({ident['profile']}) against {', '.join(rec['graders'])} "
        f"(gate: kappa 95% lower bound >= {rec['kappa_lower']} over >= {rec['min_items']} items per modality):"
    ]
    for m, ok in rec["passed"].items():
        st = rec["modalities"].get(m)
        if st is None:
            lines.append(f"  {m}: no human-graded items: not calibrated")
            continue
        lines.append(_stats_line(m, st) + (": calibrated" if ok else ": not calibrated"))
    lines.append(f"written to {rec['path']}")
    return "\n".join(lines)


def register(sub: argparse._SubParsersAction) -> None:
    """Add `judge agree`."""
    p = sub.add_parser("judge", help="judge tools: agreement between graders and model judges")
    jsub = p.add_subparsers(dest="judge_command", metavar="SUBCOMMAND", required=True)
    a = jsub.add_parser(
        "agree",
        help="raw agreement, Cohen's kappa (bootstrap CI), confusion, per pillar and modality; Fleiss for 3+",
    )
    a.add_argument(
        "sources", nargs="+", metavar="SOURCE", help="human:<grader> or model:<name> (two or more)"
    )
    a.add_argument(
        "--cache-dir",
        default=None,
        help="where grades/, judge/ and calibration/ live (default: the package cache)",
    )
    a.add_argument(
        "--write-calibration",
        action="store_true",
        help="record the model source's calibration against the human sources' majority in "
        "<cache>/calibration/ (read by the tables' judge-calibration mark); needs one model:<name>",
    )
    a.add_argument(
        "--profile",
        choices=PROFILE_NAMES,
        default=None,
        help="--write-calibration: the prompt profile whose cached verdicts count (default: the one the "
        "model's verdicts use)",
    )
    add_format_args(a)
    a.set_defaults(func=_agree)
