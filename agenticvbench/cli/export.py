"""`avb export openvibe [--out F]`: AgenticVBench as an OpenVibe `bench.benchmark@1` document;
`avb export harbor --out DIR`: one Harbor task directory per task (`agenticvbench.harbor.export`).

The document is validated before anything is written; an invalid document prints its errors and exits 1.
Without `--out` the document goes to stdout.
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
    print_json,
)
from agenticvbench.dataset.loader import default_dataset, load_tasks


def _openvibe(args: argparse.Namespace) -> int:
    from agenticvbench.interop.openvibe import InvalidDocumentError, export_openvibe

    tasks = load_tasks(dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir)
    try:
        doc = export_openvibe(tasks, args.out, owner=args.owner, recap_rubric=args.recap_rubric)
    except InvalidDocumentError as exc:
        print(
            f"avb: export refused, the document does not validate as bench.benchmark@1 "
            f"({len(exc.errors)} errors):",
            file=sys.stderr,
        )
        for e in exc.errors:
            print(f"  {e['path'] or '/'}: {e['message']}", file=sys.stderr)
        return 1
    if args.out is None:
        print_json(doc)
    else:
        print(
            f"wrote {args.out}: {doc['id']}, {len(doc['tasks'])} tasks, {len(doc['judges'])} judges",
            file=sys.stderr,
        )
    return 0


def _harbor(args: argparse.Namespace) -> int:
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


def register(sub: argparse._SubParsersAction) -> None:
    """Add `export openvibe` and `export harbor`."""
    p = sub.add_parser("export", help="export the benchmark to another format")
    inner = p.add_subparsers(dest="export_command", metavar="FORMAT", required=True)
    ov = inner.add_parser("openvibe", help="write an OpenVibe bench.benchmark@1 document (validated first)")
    add_dataset_args(ov)
    ov.add_argument("--out", default=None, help="output file (default: stdout)")
    ov.add_argument(
        "--owner", default=None, help="the document's owner (default: from the package's published data)"
    )
    ov.add_argument(
        "--recap-rubric",
        choices=("full", "digest"),
        default="full",
        help="recap tasks' expected: the full rubric items, or their SHA-256 and count",
    )
    ov.set_defaults(func=_openvibe)
    add_harbor_export_args(
        inner.add_parser("harbor", help="older spelling of `avb harbor export` (kept for one release)")
    )


HARBOR_EXPORT_HELP = "write one Harbor task directory per task (see docs/harbor.md)"


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
    hb.set_defaults(func=_harbor)
