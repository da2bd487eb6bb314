"""The parser class of the whole `avb` tree: a bad argument is reported by the subcommand the user typed.

argparse hands a subcommand's leftover arguments back to the top-level parser, which then prints
`usage: avb [-h] [--version] COMMAND ...` and `avb: error: unrecognized arguments: ...` - the usage of a command
the user did not ask about. `AvbParser.parse_args` parses the same way (`parse_known_args`) and, when arguments
are left over, lets the deepest subcommand chosen report them, with its own usage line (`usage: avb harbor
metric ...`); the exit status stays 2. Every subparser is an `AvbParser` too (argparse gives subparsers the
class of their parent), so this holds on every path of the tree.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any


class AvbParser(argparse.ArgumentParser):
    """An `ArgumentParser` whose unrecognized arguments are reported by the subcommand they were given to."""

    def parse_args(  # type: ignore[override]  # one signature for typeshed's overloads
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """Parse `args`; unknown ones exit 2 with the usage of the subcommand that was typed."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            chosen_parser(self, parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def chosen_parser(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> argparse.ArgumentParser:
    """The deepest subcommand parser `parsed` went through (`parser` itself when no subcommand was given)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name: Any = getattr(parsed, action.dest, None)
            sub = action.choices.get(name) if isinstance(name, str) else None
            if sub is not None:
                return chosen_parser(sub, parsed)
    return parser
