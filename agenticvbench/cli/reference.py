"""The command-line reference page (docs/reference/cli.md), generated from the argparse parser.

Every command and subcommand of `build_parser()` gets a section: its usage line, its help, and a table of its
arguments (option strings and value, default, choices, help). The page is written without argparse's own help
formatter, whose layout depends on the terminal width and the Python version, so the same parser gives the same
bytes everywhere. The docs build and a test compare the committed page with a fresh rendering; to regenerate it:

    python -m agenticvbench.cli.reference docs/reference/cli.md
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from agenticvbench.cli.descriptions import subparsers
from agenticvbench.fsutil import atomic_write_text

#: Where the generated page lives in the repository.
PAGE = "docs/reference/cli.md"

_HEADER = """# Command line

<!-- Generated from the argparse parser by `python -m agenticvbench.cli.reference docs/reference/cli.md`;
do not edit by hand (the docs build fails when this page and the parser disagree). -->

The package installs two equal entry points, `agenticvbench` and its short alias `avb`. Every command below
takes `-h` / `--help`. Exit codes: `0` success; `1` at least one task ended in `error` (the verifier itself
failed), a validated document is invalid, or, for the per-task `score` commands, the result has a non-empty
`error` like the official CLIs; `2` usage error (a bad option, or an invalid setting); `3` dataset, task,
run-directory or file-system error (one line on stderr, no traceback); `130` interrupted (finished results are
kept; rerun to resume).
"""


@dataclass(frozen=True)
class Command:
    """One parser of the tree: its full name (`avb tasks show`) and the parser itself."""

    name: str
    parser: argparse.ArgumentParser
    help: str


def iter_commands(parser: argparse.ArgumentParser, name: str = "avb", help: str = "") -> Iterator[Command]:
    """The parser and every subparser below it, depth first, each once (aliases are folded into their command)."""
    yield Command(name, parser, help or (parser.description or ""))
    helps = {
        choice.dest: choice.help or ""
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for choice in action._choices_actions
    }
    for sub_name, sub in subparsers(parser):
        yield from iter_commands(sub, f"{name} {sub_name}", helps.get(sub_name, ""))


def documented_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments a reader can type: everything but subcommand dispatchers and hidden (SUPPRESS-help) ones."""
    return [
        a
        for a in parser._actions
        if not isinstance(a, argparse._SubParsersAction) and a.help != argparse.SUPPRESS
    ]


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        meta = action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    elif action.choices is not None and not action.option_strings:
        meta = "{" + ",".join(map(str, action.choices)) + "}"
    else:
        meta = action.dest if not action.option_strings else action.dest.upper()
    nargs = action.nargs
    if isinstance(nargs, int):
        return " ".join([meta] * nargs)
    return {"?": f"[{meta}]", "*": f"[{meta} ...]", "+": f"{meta} [{meta} ...]"}.get(str(nargs), meta)


def usage(cmd: Command) -> str:
    """A one-line usage: the command, `[options]` when it has any, its positionals, `SUBCOMMAND ...` if nested."""
    parts = [cmd.name]
    actions = documented_actions(cmd.parser)
    if any(a.option_strings for a in actions):
        parts.append("[options]")
    parts += [_metavar(a) for a in actions if not a.option_strings]
    if any(isinstance(a, argparse._SubParsersAction) for a in cmd.parser._actions):
        parts.append("SUBCOMMAND ...")
    return " ".join(parts)


def _escape(text: str) -> str:
    """Markdown-safe table text: code spans kept as they are, `| < > * _` escaped outside them."""
    pieces = re.split(r"(`[^`]*`)", " ".join(text.split()))
    return "".join(
        p.replace("|", "\\|")
        if len(p) > 1 and p[0] == p[-1] == "`"
        else re.sub(r"([|<>*_\\\[\]])", r"\\\1", p)
        for p in pieces
    )


def _expand(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The help text with `%(default)s`-style fields filled in, as argparse would print it."""
    text = action.help or ""
    if "%" not in text:
        return text
    params = {k: getattr(v, "__name__", v) for k, v in vars(action).items() if v is not argparse.SUPPRESS}
    params["prog"] = parser.prog
    if params.get("choices") is not None:
        params["choices"] = ", ".join(map(str, params["choices"]))
    return text % params


def _default(action: argparse.Action) -> str:
    value = action.default
    if (
        value is None
        or value is argparse.SUPPRESS
        or isinstance(value, bool)
        or action.nargs == 0
        or value == []
    ):
        return ""
    if isinstance(value, (list, tuple)):
        value = ",".join(map(str, value))
    return f"`{value}`"


def _row(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    meta = _metavar(action)
    if action.option_strings:  # `-j`, `--jobs N`: the value once, after the last spelling
        *short, last = action.option_strings
        names = ", ".join([f"`{s}`" for s in short] + [f"`{last} {meta}`" if meta else f"`{last}`"])
    else:
        names = f"`{meta}`"
    text = _escape(_expand(parser, action))
    if action.choices is not None and action.option_strings:
        text = (
            text.rstrip(".") + ". " if text else ""
        ) + f"One of {', '.join(f'`{c}`' for c in action.choices)}."
    if action.required and action.option_strings:
        text = "**Required.** " + text
    return f"| {names} | {_default(action)} | {text} |"


def render_command(cmd: Command) -> str:
    """One command's section: heading, help, usage, and its argument table."""
    lines = [f"## {cmd.name}", ""]
    if cmd.help:
        lines += [_escape(cmd.help[0].upper() + cmd.help[1:]).rstrip(".") + ".", ""]
    lines += ["```text", usage(cmd), "```", ""]
    actions = [a for a in documented_actions(cmd.parser) if "-h" not in a.option_strings]
    if actions:
        lines += ["| argument | default | description |", "| --- | --- | --- |"]
        lines += [_row(cmd.parser, a) for a in actions]
        lines.append("")
    subs = [f"`{cmd.name} {name}`" for name, _ in subparsers(cmd.parser)]
    if subs:
        lines += ["Subcommands: " + ", ".join(subs) + ".", ""]
    return "\n".join(lines)


def render(parser: argparse.ArgumentParser | None = None) -> str:
    """The whole reference page for `parser` (default: the real CLI, `build_parser()`)."""
    if parser is None:
        from agenticvbench.cli.main import build_parser

        parser = build_parser()
    commands = list(iter_commands(parser))
    index = ["| command | what it does |", "| --- | --- |"]
    index += [f"| [`{c.name}`](#{c.name.replace(' ', '-')}) | {_escape(c.help)} |" for c in commands[1:]]
    body = [render_command(cmd) for cmd in commands]
    return "\n".join([_HEADER, "\n".join(index), "", *body]).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the page to the given path (default: print it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    text = render()
    if not args:
        sys.stdout.write(text)
    else:
        atomic_write_text(args[0], text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
