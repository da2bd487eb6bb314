"""Options shared by several commands (dataset, task selection, verbosity, judge) and output helpers."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from agenticvbench.dataset.loader import DEFAULT_DATASET, load_tasks
from agenticvbench.dataset.selection import apply_limit, parse_task_ids
from agenticvbench.dataset.tasks import FAMILIES
from agenticvbench.errors import ConfigError, SubmissionError, TaskError
from agenticvbench.fsutil import atomic_write_text
from agenticvbench.judge.options import add_judge_args, settings_from_args

#: The package's logger; `-v` shows INFO, `-q` only ERROR, default WARNING (all on stderr).
LOG = logging.getLogger("agenticvbench")

__all__ = ["add_dataset_args", "add_judge_args", "judge_from_args", "print_json"]


def add_dataset_args(p: argparse.ArgumentParser, *, suppress: bool = False) -> None:
    """`--dataset`, `--revision`, `--cache-dir` (`suppress`: an unset option keeps an outer parser's value)."""
    default = argparse.SUPPRESS if suppress else None
    p.add_argument(
        "--dataset",
        default=default,
        help=f"Hub dataset id, local mirror directory, or parquet path (default: $AVB_DATASET, "
        f"else {DEFAULT_DATASET})",
    )
    p.add_argument("--revision", default=default, help="dataset revision (branch, tag or commit sha)")
    p.add_argument(
        "--cache-dir",
        default=default,
        help="cache folder (default: $AVB_CACHE, else the user cache folder, e.g. "
        "$XDG_CACHE_HOME/agenticvbench)",
    )


def add_command(
    sub: argparse._SubParsersAction, name: str, help: str, doc: str | None
) -> argparse.ArgumentParser:
    """A command whose `--help` opens with `doc` (its module's docstring), laid out as written."""
    return sub.add_parser(
        name, help=help, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )


def task_ids_arg(text: str) -> list[int]:
    """argparse type for `--tasks 37-40,83` (the grammar of `selection.parse_task_ids`)."""
    try:
        return parse_task_ids(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(text: str) -> int:
    """argparse type for `--jobs N` / `--limit N` (N >= 1)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def add_selection_args(p: argparse._ActionsContainer) -> None:
    """The one task-selection grammar: `--family F`, `--tasks 37-40,83`, `--limit N`."""
    p.add_argument("--family", choices=FAMILIES, help="only this family")
    p.add_argument(
        "--tasks", type=task_ids_arg, default=None, metavar="IDS", help="task ids and ranges, e.g. 37-40,83"
    )
    p.add_argument(
        "--limit",
        type=positive_int,
        default=None,
        metavar="N",
        help="only the first N selected tasks (in id order)",
    )


def load_selected(args: argparse.Namespace, task_ids: list[int] | None = None) -> list[Any]:
    """The tasks chosen by `--family/--tasks/--limit` (the one implementation every command uses).

    An id named singly must exist (TaskError otherwise); ids from a range such as 37-64 select what exists.
    """
    ids = args.tasks if task_ids is None else task_ids
    tasks = load_tasks(args.family, dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir)
    if ids is not None:
        have = {t.task_id for t in tasks}
        required = getattr(ids, "required", ids)
        missing = [i for i in required if i not in have]
        where = f"dataset {args.dataset or 'default'}" + (f" (family {args.family})" if args.family else "")
        if missing:
            raise TaskError(missing[0], "task_id", f"not in {where}")
        tasks = [t for t in tasks if t.task_id in set(ids)]
        if not tasks:
            raise TaskError(",".join(map(str, ids[:5])), "task_id", f"no selected task is in {where}")
    return apply_limit(tasks, args.limit)


#: Suffixes of a single document: a folder-valued option given one of these was meant as a file.
DOCUMENT_SUFFIXES = frozenset(
    {".md", ".json", ".csv", ".tsv", ".tex", ".html", ".htm", ".txt", ".pdf", ".png"}
)


def folder_arg(text: str) -> Path:
    """argparse type of an option that names a folder the command fills (`--out DIR`): a path that is an existing
    file, or that ends like one document (`floor.md`), is refused, so no command makes a folder where a file was
    asked for (the options that write one table take a file: `--out` of leaderboard/compare/cost, `--write`)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; this option names a folder to write into")
    if path.suffix.lower() in DOCUMENT_SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"{text} looks like a file ({path.suffix}); this option names a folder to write into"
        )
    return path


def add_verbosity_args(p: argparse.ArgumentParser) -> None:
    """`-v` (more detail, logging INFO) and `-q` (only the result, logging ERROR)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("-v", "--verbose", action="store_true", help="more detail (e.g. one line per task)")
    g.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="only the result (table or summary): no captions, notes or progress",
    )


def add_format_args(
    p: argparse.ArgumentParser, formats: tuple[str, ...] = ("text", "json"), default: str = "text"
) -> None:
    """`--format F` (one of `formats`, default `default`) and `--json`, its alias for `--format json`: every table
    command takes both (`main` sets `args.json` from the format, for the code that asks for it)."""
    p.add_argument(
        "--format",
        choices=formats,
        default=default,
        help=f"output format (default: {default}); `--json` = `--format json`",
    )
    add_json_alias(p)


def add_json_alias(p: argparse.ArgumentParser) -> None:
    """`--json` as an alias of `--format json` on a parser that already has `--format`."""
    p.add_argument(
        "--json", action="store_const", const="json", dest="format", help="the same as --format json"
    )


def notice(args: argparse.Namespace, line: str) -> None:
    """One `avb: ...` line on stderr about work the user did not name (silenced by `-q`)."""
    if not getattr(args, "quiet", False):
        print(f"avb: {line}", file=sys.stderr, flush=True)


class _StderrHandler(logging.Handler):
    """Writes each record to the current `sys.stderr` (looked up at emit time, so redirections are honoured)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # logging must never raise into the command
            self.handleError(record)


def setup_logging(args: argparse.Namespace) -> None:
    """Map `-v/-q` onto the `agenticvbench` logger (stderr, one line per record)."""
    quiet = getattr(args, "quiet", False)
    LOG.setLevel(
        logging.INFO if getattr(args, "verbose", False) else logging.ERROR if quiet else logging.WARNING
    )
    if not any(isinstance(h, _StderrHandler) for h in LOG.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("avb: %(levelname)s: %(message)s"))
        LOG.addHandler(handler)
        LOG.propagate = False


def print_json(obj: Any) -> None:
    """Print indented JSON to stdout."""
    json.dump(obj, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")


def write_output(text: str, out: str | None) -> None:
    """A rendered table to `out` (atomically, then "wrote OUT") or, without `out`, to stdout ending in a newline."""
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    atomic_write_text(out, text)
    print(f"wrote {out}")


def judge_from_args(args: argparse.Namespace):
    """`JudgeSettings` from the judge options; an invalid setting (e.g. `AVB_JUDGE_MODE=bogus`) is a ConfigError.
    A judge that would call the default endpoint with no key is named in a warning before any work starts."""
    try:
        settings = settings_from_args(args)
    except ValueError as exc:
        raise ConfigError(f"judge settings: {exc}") from None
    note = settings.unconfigured_note()
    if note:
        LOG.warning(note)
    return settings


def serve_until_interrupted(httpd: Any, stopped: str) -> int:
    """Serve `httpd` until Ctrl-C, then say `stopped` on stderr and close the socket; returns 0 (the exit code)."""
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        print(stopped, file=sys.stderr)
    finally:
        httpd.server_close()
    return 0


def add_results_dataset_args(p: argparse._ActionsContainer, *, counts_tasks: bool = False) -> None:
    """`--dataset`, `--revision` and `--no-cluster` of every command that reads results (`report`, `leaderboard`,
    `compare`, `power`, `view`): `--dataset` means the same there as everywhere, the dataset the results were
    scored against, and defaults to the local dataset the results name. Its source material gives the clusters;
    with `counts_tasks` (report, leaderboard) every one of its tasks also counts."""
    counted = (
        "; given, every one of its tasks counts (a task without a result counts 0)" if counts_tasks else ""
    )
    p.add_argument(
        "--dataset",
        default=None,
        help="the dataset the results were scored against: Hub id, local mirror or parquet (default: the local "
        f"dataset the results name); its source material gives the clusters{counted}",
    )
    p.add_argument("--revision", default=None, help="dataset revision (with --dataset)")
    p.add_argument(
        "--no-cluster",
        action="store_true",
        help="every task its own cluster, even when the source material is known (intervals, comparisons)",
    )


def add_trust_args(p: argparse.ArgumentParser) -> None:
    """`--key-file` (the result key every reader of results checks signatures with, never created) and
    `--require-signed` of the commands that read results beside `report`/`leaderboard`."""
    p.add_argument(
        "--key-file",
        default=None,
        metavar="PATH",
        help="result key to check signatures with (default $AVB_RESULT_KEY_FILE, else result-key in the "
        "package cache: the key `avb verify` signs with); never created here",
    )
    p.add_argument(
        "--require-signed",
        action="store_true",
        help="refuse (exit 3) when a result is not signed with that key, instead of warning",
    )


def check_trust(results: list[Any], key: Any, args: argparse.Namespace) -> list[str]:
    """The warnings, one per run, about results not signed with the reader's key (the caller prints them with
    `warn_lines` once its work succeeded, so that an error stays one line); with `--require-signed`, a refusal
    instead (`SubmissionError`, exit 3, naming the first run)."""
    from agenticvbench.results.signatures import trust_lines

    lines = trust_lines(results, key)
    if lines and getattr(args, "require_signed", False):
        more = f" (and {len(lines) - 1} more run(s))" if len(lines) > 1 else ""
        raise SubmissionError(f"{lines[0]}{more}; --require-signed refuses them")
    return lines


def report_errors(command: str, n_errors: int, see: str = "") -> int:
    """Say on stderr how many results have status `error` (the verifier failed); returns 1 when some do, else 0."""
    if n_errors:
        print(
            f"{command}: {n_errors} result(s) have status ERROR (the verifier failed){see}", file=sys.stderr
        )
    return 1 if n_errors else 0


def warn_lines(lines: list[str], command: str) -> None:
    """Each line on stderr as `COMMAND: warning: LINE`."""
    for line in lines:
        print(f"{command}: warning: {line}", file=sys.stderr)
