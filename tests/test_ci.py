"""CI runs what README tells a user to run, on every Python the package declares.

CI used to install globally while users install into a venv, so two install tests failed for users and passed in
CI. `.ci/run` now runs README's development commands verbatim in a fresh venv; these tests keep the two equal,
and keep the list of Pythons CI smoke-tests equal to what `pyproject.toml` declares.
"""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]


def _commands(text: str) -> list[str]:
    """Shell lines without comments or blanks."""
    lines = (re.sub(r"\s+#.*$", "", line).strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _readme_test_block() -> list[str]:
    """The fenced bash block of README.md that holds the test command (`pytest -q`)."""
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", (REPO / "README.md").read_text(), re.S | re.M)
    (block,) = [
        b for lang, b in blocks if lang in ("bash", "sh") and re.search(r"^pytest -q\s*(#.*)?$", b, re.M)
    ]
    return _commands(block)


def _ci_readme_part() -> list[str]:
    text = (REPO / ".ci" / "run").read_text()
    part = re.search(
        r"# --- README, \"Development\" \(verbatim\) ---\n(.*?)# --- end of README's commands ---", text, re.S
    )
    assert part, ".ci/run lost the markers around README's commands"
    return _commands(part.group(1))


def test_ci_runs_readme_commands_verbatim() -> None:
    """Every command of README's test block runs in `.ci/run`, in the same order, with `ruff` the only extra;
    and it runs inside a venv made by README's own command."""
    readme, ci = _readme_test_block(), _ci_readme_part()
    assert [c for c in ci if not c.startswith("ruff ")] == readme
    assert readme[0].startswith("python -m venv ") and "bin/activate" in readme[0]
    assert readme[-1] == "pytest -q"


def _declared_minors() -> list[str]:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    found = [
        m.group(1)
        for c in meta["classifiers"]
        if (m := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c))
    ]
    assert meta["requires-python"] == f">={found[0]}", "requires-python and the oldest classifier disagree"
    return found


def test_ci_smoke_tests_every_declared_python() -> None:
    """`.ci/other-pythons` covers exactly the minors the package declares (adding one to pyproject.toml without
    testing it, or testing one it no longer admits, fails here)."""
    text = (REPO / ".ci" / "other-pythons").read_text()
    listed = re.search(r'^PYTHONS="([^"]+)"', text, re.M)
    assert listed
    assert listed.group(1).split() == _declared_minors()
