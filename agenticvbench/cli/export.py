"""`avb export openvibe [--out F]`: AgenticVBench as an OpenVibe `bench.benchmark@1` document;
`avb export harbor --out DIR`: one Harbor task directory per task (`agenticvbench.harbor.export`).

The document is validated before anything is written; an invalid document prints its errors and exits 1.
Without `--out` the document goes to stdout.
"""

from __future__ import annotations

import argparse
import sys

from agenticvbench.cli.common import add_dataset_args, print_json
from agenticvbench.cli.harbor_cmd import add_harbor_export_args
from agenticvbench.dataset.loader import load_tasks


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
