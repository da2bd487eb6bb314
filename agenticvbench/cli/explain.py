"""`avb explain RUN TASK_ID [--json]`: why one task of a scored run got its score.

Shows the status, the headline and how it was computed, what lost points (per family), the warnings and any
integrity flags, read from `RUN/avb-results/<TASK_ID>.json`, and whether its signature verifies (with
`--require-signed`, a result not signed with the key is refused). Exit 3 when the run has no result for the task
or `--require-signed` refuses it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agenticvbench.cli.common import (
    add_command,
    add_format_args,
    add_trust_args,
    check_trust,
    print_json,
    warn_lines,
)
from agenticvbench.errors import SubmissionError
from agenticvbench.runs.submission import RESULTS_DIRNAME


def _no_result(run: Path, folder: Path, path: Path, task_id: int) -> str:
    """Why there is nothing to explain, naming the real place, and the command that fixes it when one can."""
    if folder.name != RESULTS_DIRNAME:
        where = f"no results yet in {run / RESULTS_DIRNAME}/ (this run was never verified)"
    else:
        where = f"{path} {'is not a readable result file' if path.exists() else 'does not exist'}"
    task_root = folder.parent if folder.name == RESULTS_DIRNAME else run
    if not any((task_root / name).exists() for name in (str(task_id), f"{task_id:03d}")):
        return f"{where}; the run has no folder {task_id}/ either (check the task id)"
    return f"{where}; score the task first: avb verify {task_root} --tasks {task_id}"


def _explain(args: argparse.Namespace) -> int:
    from agenticvbench.analysis.explain import explain_result
    from agenticvbench.results.model import read_result_checked, result_path, results_dir_for
    from agenticvbench.results.signatures import key_label, reader_key

    run = Path(args.run)
    if not run.is_dir():
        raise SubmissionError(f"{run}: no such run directory or results folder")
    folder = results_dir_for(run)
    path = result_path(folder, args.task_id)
    key, _ = reader_key(args.key_file)  # the key every reader of results checks signatures with
    result = read_result_checked(path, key)[0] if path.is_file() else None
    if result is None:
        raise SubmissionError(_no_result(run, folder, path, args.task_id))
    if not result.run.get("path"):
        result.run = {**result.run, "path": str(run.resolve())}
    untrusted = check_trust([result], key, args)
    exp = explain_result(result)
    signature = f"{result.signature_status} (checked with {key_label(key)})"
    if args.json:
        print_json({**exp.to_dict(), "signature": signature})
    else:
        print(exp.to_text() + f"\n  signature: {signature}")
    warn_lines(untrusted, "avb explain")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `explain`."""
    p = add_command(sub, "explain", "why one task of a scored run got its score", __doc__)
    p.add_argument("run", metavar="RUN_DIR", help="run directory (or its avb-results folder)")
    p.add_argument("task_id", type=int, metavar="TASK_ID", help="the task to explain (e.g. 37)")
    add_format_args(p)
    add_trust_args(p)
    p.set_defaults(func=_explain)
