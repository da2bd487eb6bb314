"""Shown console sessions in README and docs/, run for real: parse a ```console block into (command, shown lines),
run each `avb` command in-process and check that the shown lines are an excerpt of what it printed."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from agenticvbench.cli.main import main

ELLIPSIS = "..."
_ENV = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")


@dataclass
class Step:
    """One `$ command` of a console block and the output lines shown under it."""

    command: str
    shown: list[str] = field(default_factory=list)


def console_blocks(markdown: str) -> list[list[Step]]:
    """Every ```console block of a page, as its steps."""
    blocks = []
    for body in re.findall(r"```console\n(.*?)```", markdown, flags=re.S):
        steps: list[Step] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append(Step(line[2:]))
            else:
                assert steps, f"a console block must start with a `$ ` command: {line!r}"
                steps[-1].shown.append(line)
        blocks.append(steps)
    return blocks


def iter_steps(markdown: str) -> Iterator[Step]:
    """The steps of all console blocks of a page, in page order."""
    for block in console_blocks(markdown):
        yield from block


def excerpt_mismatch(shown: list[str], printed: list[str]) -> str | None:
    """None when `shown` is an excerpt of `printed`: runs of lines separated by `...` appear verbatim and in order;
    without a leading (trailing) `...` the first (last) run must open (close) the output. Else what differs."""
    runs: list[list[str]] = [[]]
    for line in shown:
        if line == ELLIPSIS:
            runs.append([])
        else:
            runs[-1].append(line)
    pos = 0
    for i, run in enumerate(runs):
        if not run:
            continue
        starts = [j for j in range(pos, len(printed) - len(run) + 1) if printed[j : j + len(run)] == run]
        if i == 0 and starts and starts[0] != 0:
            starts = []
        if not starts:
            return f"not printed (in this order): {run[0]!r} ... ({len(run)} line(s))"
        pos = starts[0] + len(run)
    if runs[-1] and pos != len(printed):
        return f"the output goes on after {runs[-1][-1]!r}: {printed[pos]!r}"
    return None


def run_step(
    step: Step,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    replace: dict[str, str] | None = None,
) -> tuple[int, list[str]]:
    """Run one shown command in-process (leading `VAR=value` words set the environment); returns the exit code
    and the printed lines (stdout, then stderr), with each `replace` value mapped back to its shown key."""
    replace = replace or {}
    command = step.command
    for shown, real in replace.items():
        command = command.replace(shown, real)
    words = shlex.split(command)
    while words and _ENV.match(words[0]):
        name, value = words.pop(0).split("=", 1)
        monkeypatch.setenv(name, value)
    assert words[:1] == ["avb"], f"not an avb command: {step.command!r}"
    capsys.readouterr()
    try:
        code = main(words[1:])
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    text = captured.out + captured.err
    for shown, real in replace.items():
        text = text.replace(real, shown)
    return code, text.splitlines()
