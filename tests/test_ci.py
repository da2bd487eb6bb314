"""CI runs what README tells a user to run, on every Python the package declares.

CI used to install globally while users install into a venv, so two install tests failed for users and passed in
CI. README's Development section is now one command, `scripts/dev-setup-and-test` (a fresh venv, the test extras,
the OCR engine, ruff, the whole suite), and `.ci/run` runs exactly it; these tests keep the two equal, check what
the script does, and keep the list of Pythons CI smoke-tests equal to what `pyproject.toml` declares.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]


def _commands(text: str) -> list[str]:
    """Shell lines without comments or blanks."""
    lines = (re.sub(r"\s+#.*$", "", line).strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _readme_test_block() -> list[str]:
    """The fenced bash block of README.md's "Development" section: the one command that sets up and tests."""
    dev = re.search(r"^## Development\n(.*?)(?=^## |\Z)", (REPO / "README.md").read_text(), re.S | re.M)
    assert dev, "README has no Development section"
    (block,) = re.findall(r"^```(?:bash|sh)\n(.*?)^```$", dev.group(1), re.S | re.M)
    return _commands(block)


def _ci_readme_part() -> list[str]:
    text = (REPO / ".ci" / "run").read_text()
    part = re.search(
        r"# --- README, \"Development\" \(verbatim\) ---\n(.*?)# --- end of README's commands ---\n(.*)",
        text,
        re.S,
    )
    assert part, ".ci/run lost the markers around README's commands"
    return _commands(part.group(1))


SCRIPT = "scripts/dev-setup-and-test"


def test_ci_runs_readme_commands_verbatim() -> None:
    """README's development block is one command, the setup-and-test script; `.ci/run` runs exactly it, then
    activates the venv the script made for its later stages."""
    assert _readme_test_block() == [SCRIPT]
    assert _ci_readme_part() == [SCRIPT]
    after = (REPO / ".ci" / "run").read_text().split("# --- end of README's commands ---\n", 1)[1]
    assert _commands(after)[0] == ". .venv/bin/activate"


def test_setup_script_is_the_development_setup_then_the_whole_suite() -> None:
    """The script is what README's Development block used to spell out, in that order: a venv, the test extras, the
    OCR engine without its GUI OpenCV, ruff, and `pytest -q` (the whole suite; arguments only add to it)."""
    path = REPO / SCRIPT
    assert path.stat().st_mode & 0o111, "the script must be executable"
    assert _commands(path.read_text()) == [
        "set -euo pipefail",
        'cd "$(dirname "$0")/.."',
        '[ -x .venv/bin/python ] || "${PYTHON:-python}" -m venv .venv',
        ". .venv/bin/activate",
        'pip install -e ".[test]"',
        "pip install --no-deps rapidocr-onnxruntime",
        "ruff check .",
        "ruff format --check .",
        'pytest -q "$@"',
    ]


def _fake_tools(tmp_path: Path, fail: str = "") -> tuple[Path, Path, dict[str, str]]:
    """A copy of the script in a fake clone, and a PATH whose `python`, `pip`, `ruff` and `pytest` only log their
    arguments (`python -m venv DIR` makes DIR/bin/activate); the tool named `fail` exits 1."""
    clone, bindir, log = tmp_path / "clone", tmp_path / "bin", tmp_path / "log"
    (clone / "scripts").mkdir(parents=True)
    shutil.copy2(REPO / SCRIPT, clone / SCRIPT)
    bindir.mkdir()
    for tool in ("python", "pip", "ruff", "pytest"):
        body = f'echo "{tool} $*" >> "{log}"\n'
        if tool == "python":
            body += 'if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin"; : > "$3/bin/activate"; '
            body += 'printf "#!/bin/sh\\n" > "$3/bin/python"; chmod +x "$3/bin/python"; fi\n'
        if tool == fail:
            body += "exit 1\n"
        (bindir / tool).write_text("#!/usr/bin/env bash\n" + body)
        (bindir / tool).chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHON", None)
    return clone, log, env


def test_setup_script_runs_its_steps_in_order_and_stops_at_a_failure(tmp_path: Path) -> None:
    """Run with stand-in tools: from any folder it works in the clone, makes the venv once, passes arguments to
    pytest, and stops at the first failing step (a failed install must not go on to a test run)."""
    clone, log, env = _fake_tools(tmp_path)
    done = subprocess.run([str(clone / SCRIPT), "-m", "not slow"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == [
        "python -m venv .venv",
        "pip install -e .[test]",
        "pip install --no-deps rapidocr-onnxruntime",
        "ruff check .",
        "ruff format --check .",
        "pytest -q -m not slow",
    ]
    assert (clone / ".venv" / "bin" / "activate").is_file()
    log.unlink()
    assert subprocess.run([str(clone / SCRIPT)], env=env, capture_output=True).returncode == 0
    assert log.read_text().splitlines()[0] == "pip install -e .[test]"  # the venv is reused
    assert log.read_text().splitlines()[-1] == "pytest -q"
    clone, log, env = _fake_tools(tmp_path / "failing", fail="pip")
    assert subprocess.run([str(clone / SCRIPT)], env=env, capture_output=True).returncode != 0
    assert log.read_text().splitlines() == ["python -m venv .venv", "pip install -e .[test]"]


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
