"""The command-line reference page is generated from the parser: the committed page is current, it lists every
command and option, and the generator renders what argparse accepts (nested commands, nargs, choices, escaping)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from agenticvbench.cli.main import build_parser
from agenticvbench.cli.reference import PAGE, documented_actions, iter_commands, main, render, usage

REPO = Path(__file__).resolve().parents[2]
REGENERATE = f"python -m agenticvbench.cli.reference {PAGE}"


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## (avb(?: [a-z0-9-]+)*)\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_committed_page_is_current() -> None:
    """docs/reference/cli.md equals a fresh rendering; a command added without regenerating fails here."""
    committed = (REPO / PAGE).read_text(encoding="utf-8")
    assert committed == render(), f"{PAGE} is out of date; regenerate it: {REGENERATE}"


def test_every_command_and_option_is_listed_in_its_section() -> None:
    """Read independently of the generator: each command of the parser has a section, and each of its option
    strings and positionals appears in that section's table."""
    sections = _sections((REPO / PAGE).read_text(encoding="utf-8"))
    commands = list(iter_commands(build_parser()))
    assert len(commands) >= 25
    assert set(sections) == {c.name for c in commands}
    for cmd in commands:
        table = "\n".join(line for line in sections[cmd.name].splitlines() if line.startswith("| `"))
        for action in documented_actions(cmd.parser):
            if "-h" in action.option_strings:
                continue
            names = action.option_strings or [str(action.metavar or action.dest)]
            for name in names:
                assert re.search(rf"`\[?{re.escape(name)}[` \]]", table), f"{cmd.name}: {name} is not listed"


def test_a_new_subcommand_appears_with_its_arguments() -> None:
    """A command another module registers shows up on its own, nested commands included, with value shapes,
    defaults, choices, required flags and `%(default)s` help expanded; table text is Markdown-escaped."""
    parser = argparse.ArgumentParser(prog="avb", description="top")
    sub = parser.add_subparsers(dest="command")
    power = sub.add_parser("power", help="how many runs a difference needs")
    power.add_argument("runs", nargs="+", metavar="RUN")
    power.add_argument("--alpha", type=float, default=0.05, help="test level (default %(default)s)")
    power.add_argument("-s", "--side", choices=["one", "two"], default="two", help="sides | tails")
    power.add_argument("--key-file", required=True, help="a <secret> file")
    power.add_argument("--hidden", help=argparse.SUPPRESS)
    inner = power.add_subparsers(dest="inner")
    inner.add_parser("table", help="print the table")
    text = render(parser)
    sections = _sections(text)
    assert list(sections) == ["avb", "avb power", "avb power table"]
    body = sections["avb power"]
    assert "avb power [options] RUN [RUN ...] SUBCOMMAND ..." in body
    assert "| `RUN [RUN ...]` |  |  |" in body
    assert "| `--alpha ALPHA` | `0.05` | test level (default 0.05) |" in body
    assert "| `-s`, `--side SIDE` | `two` | sides \\| tails. One of `one`, `two`. |" in body
    assert "| `--key-file KEY_FILE` |  | **Required.** a \\<secret\\> file |" in body
    assert "--hidden" not in text
    assert "Subcommands: `avb power table`." in body
    assert "[`avb power table`](#avb-power-table)" in text


def test_usage_shapes_follow_nargs() -> None:
    """Positionals are shown the way argparse accepts them: optional, repeated, one-or-more, fixed count."""
    parser = argparse.ArgumentParser(prog="avb x")
    parser.add_argument("a", nargs="?")
    parser.add_argument("b", nargs="*")
    parser.add_argument("c", nargs=2, metavar="C")
    (cmd,) = list(iter_commands(parser, "avb x"))
    assert usage(cmd) == "avb x [options] [a] [b ...] C C"  # -h is an option


def test_main_writes_the_page(tmp_path: Path) -> None:
    """The regenerate command writes exactly the rendered page."""
    out = tmp_path / "cli.md"
    assert main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render()
