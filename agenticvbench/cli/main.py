"""Entry point: builds the argparse tree from the command modules and maps errors to exit codes.

Exit codes: 0 success; 1 something was scored `error` or a document is invalid; 2 usage error (bad option
or setting); 3 dataset, task, run-directory or file-system error (message on stderr, no traceback). A usage error
a command finds itself (`ConfigError`) is one line named as argparse names its own, after the command typed
(`avb power: error: ...`, `parser.chosen_parser`); any other error is `avb: error: ...`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from agenticvbench.errors import AVBError, ConfigError
from agenticvbench.sanitize import safe_streams
from agenticvbench.version import __version__

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INPUT = 0, 1, 2, 3

# Each module defines `register(subparsers)`, which adds its commands and sets `func(args) -> int`.
COMMAND_MODULES = (
    "tasks_cmd",
    "download",
    "verify",
    "explain",
    "score",
    "report",
    "leaderboard",
    "demo",
    "studiobench",
    "export",
    "grade",
    "judge_cmd",
    "harbor_cmd",
    "baselines",
    "compare",
    "cost",
    "power",
    "view",
    "publish",
    "audit",
)

#: Commands that decode media: they check first that OpenCV loads (one line with the fix if it does not).
MEDIA_COMMANDS = frozenset({"demo", "verify", "score", "gold", "baselines"})


def build_parser() -> argparse.ArgumentParser:
    """The full parser (also used by the docs test that checks README examples)."""
    from agenticvbench.cli.parser import AvbParser

    parser = AvbParser(  # its subparsers are AvbParsers too: a bad argument shows the typed command's usage
        prog="avb", description="AgenticVBench loader and offline verifier suite."
    )
    parser.add_argument("--version", action="version", version=f"agenticvbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"agenticvbench.cli.{name}").register(sub)
    from agenticvbench.cli.descriptions import finish_tree

    finish_tree(parser)  # descriptions with exit codes and -v/-q on every command
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (also used as the process exit status)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from agenticvbench.cli.common import setup_logging

    if "format" in vars(args) and "json" not in vars(args):  # `--json` is stored as `--format json`
        args.json = args.format == "json"
    setup_logging(args)
    from agenticvbench.cli.parser import chosen_parser

    with safe_streams():  # agent strings can reach any line printed: controls and surrogates escaped
        return _run(args, chosen_parser(parser, args).prog)


def _run(args: argparse.Namespace, prog: str = "avb") -> int:
    """Run the chosen command and map its errors to exit codes; `prog` names it in a usage error."""
    try:
        if args.command in MEDIA_COMMANDS or getattr(args, "harbor_command", None) == "gold":
            from agenticvbench.media.opencv_runtime import check_opencv

            check_opencv()
        return int(args.func(args) or 0)
    except ConfigError as exc:  # a usage error: named as argparse names its own (`avb power: error: ...`)
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `avb ... --json | head`: the reader left; not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at interpreter exit
        except OSError:
            pass
        return EXIT_OK
    except (AVBError, OSError) as exc:  # also a path under a file, a full disk: one line, not a traceback
        print(f"avb: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("avb: interrupted; finished results are saved, rerun to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
