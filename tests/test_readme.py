"""README examples stay true: every `avb ...` line in its shell blocks parses with the real CLI parser, and the
test command CI runs is the one README shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from agenticvbench.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _shell_lines() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    lines = []
    for block in blocks:
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith("avb ") or part == "avb":
                    lines.append(re.sub(r"\s\[[^\]]*\]", "", part))  # drop optional "[...]" parts
    return lines


def test_readme_has_cli_examples():
    assert len(_shell_lines()) >= 15


def test_every_readme_cli_example_parses():
    parser = build_parser()
    for line in _shell_lines():
        args = parser.parse_args(shlex.split(line)[1:])
        assert callable(getattr(args, "func", None)), line


def test_ci_runs_the_readme_test_command():
    assert "pytest -q" in README
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^pytest -q$", ci, flags=re.M)
    assert 'pip install -q -e ".[test]"' in ci and 'pip install -e ".[test]"' in README
