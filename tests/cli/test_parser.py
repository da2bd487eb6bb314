"""A bad argument is reported by the subcommand the user typed, on every path of the `avb` tree.

argparse handed a subcommand's leftover arguments back to the top-level parser: `avb power --bogus` and `avb
harbor metric x --bogus` printed `usage: avb [-h] [--version] COMMAND ...`, the usage of no command the user
asked about.
"""

from __future__ import annotations

import argparse

import pytest

from agenticvbench.cli.descriptions import subparsers, walk
from agenticvbench.cli.main import EXIT_USAGE, build_parser, main
from agenticvbench.cli.parser import chosen_parser

BOGUS = "--no-such-option-anywhere"


def _required_args(p: argparse.ArgumentParser) -> list[str]:
    """Values for `p`'s required positionals and options, enough for it to get as far as its leftovers."""
    argv: list[str] = []
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction) or a.nargs in ("?", "*"):
            continue
        value = str(next(iter(a.choices))) if a.choices else "1"
        if not a.option_strings:
            argv.append(value)
        elif a.required:
            argv += [a.option_strings[-1], value]
    for group in p._mutually_exclusive_groups:
        if group.required:
            first = group._group_actions[0]
            argv += [first.option_strings[-1], *(["1"] if first.nargs != 0 else [])]
    return argv


def _argv(path: tuple[str, ...]) -> list[str]:
    """`path` with the required arguments of every parser along it."""
    parser, argv = build_parser(), []
    for name in path:
        parser = dict(subparsers(parser))[name]
        argv += [name, *_required_args(parser)]
    return argv


def _needs_subcommand(p: argparse.ArgumentParser) -> bool:
    return any(isinstance(a, argparse._SubParsersAction) and a.required for a in p._actions)


PATHS = [path for path, _ in walk(build_parser())]


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_unknown_option_prints_the_typed_subcommands_usage(path, capsys):
    """For every subcommand and nested sub-subcommand: an unknown option exits 2 with `usage: avb <path> ...`
    and (when the command is complete) an error naming the option, not the top-level usage."""
    p = dict(walk(build_parser()))[path]
    with pytest.raises(SystemExit) as exit_:
        main([*_argv(path), BOGUS])
    assert exit_.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    usage = next(ln for ln in err.splitlines() if ln.startswith("usage:"))
    assert usage.startswith(f"usage: avb {' '.join(path)} "), err
    if not _needs_subcommand(p):
        assert f"avb {' '.join(path)}: error: unrecognized arguments: {BOGUS}" in err, err


def test_the_walk_covers_nested_subcommands_and_extras_at_the_top_stay_top_level(capsys):
    """The parametrized walk reaches sub-subcommands (`harbor metric`, `tasks show`); an unknown option before
    any command is still the top-level parser's, and a stray positional after a command is that command's."""
    assert {("harbor", "metric"), ("tasks", "show"), ("score", "recap"), ("import", "harbor")} <= set(PATHS)
    with pytest.raises(SystemExit) as exit_:
        main([BOGUS])
    assert exit_.value.code == EXIT_USAGE
    assert capsys.readouterr().err.startswith("usage: avb [-h] [--version] COMMAND")
    parser = build_parser()
    parsed, extras = parser.parse_known_args(["tasks", "show", "37", "stray"])
    assert extras == ["stray"] and chosen_parser(parser, parsed).prog == "avb tasks show"
