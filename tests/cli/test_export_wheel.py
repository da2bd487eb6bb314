"""The verifier wheel of `avb harbor export` builds in the venv README makes (setuptools 65, no `wheel` package).

A fresh `python -m venv` comes with the setuptools ensurepip bundles and no `wheel`; the export used to build with
`--no-build-isolation` there and failed with pip's `invalid command 'bdist_wheel'` in the middle of a log. These
tests make such a venv offline (ensurepip's bundled wheels) and run the real build with its interpreter.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from agenticvbench.errors import AVBError
from agenticvbench.harbor.wheel import WHEEL_FIX, build_tools_problem, build_wheel, check_wheel

pytestmark = pytest.mark.slow  # every test here scores the demo or builds an environment


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory) -> str:
    """The interpreter of a new venv as `python -m venv` makes it (no `wheel`), built offline."""
    venv = tmp_path_factory.mktemp("fresh-venv") / "venv"
    proc = subprocess.run(
        [sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, timeout=300
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot make a venv here: {proc.stderr.strip()[-200:]}")
    python = venv / "bin" / "python"
    has_wheel = subprocess.run([str(python), "-c", "import wheel"], capture_output=True).returncode == 0
    if has_wheel:
        pytest.skip("this Python's ensurepip installs `wheel`: the fresh-venv case does not arise")
    return str(python)


def test_probe_names_what_a_fresh_venv_lacks(fresh_python):
    """The check run before the build sees the missing bdist_wheel command in the fresh venv, and none here."""
    problem = build_tools_problem(fresh_python)
    assert problem is not None and "bdist_wheel" in problem and "setuptools" in problem
    assert build_tools_problem("/nonexistent/python") is not None


def test_fresh_venv_builds_the_wheel_with_isolation(fresh_python, tmp_path):
    """With the build tools missing, the build runs isolated (pip fetches them from the configured index) and the
    wheel is a valid agenticvbench wheel; before the fix this failed with `invalid command 'bdist_wheel'`."""
    index = subprocess.run(
        [fresh_python, "-m", "pip", "download", "--no-deps", "-q", "-d", str(tmp_path / "probe"), "wheel"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if index.returncode != 0:
        pytest.skip("no package index reachable from here for the isolated build")
    wheel = build_wheel(tmp_path / "cache", python=fresh_python)
    assert check_wheel(wheel) == wheel
    with zipfile.ZipFile(wheel) as zf:
        assert "agenticvbench/harbor/reward.py" in zf.namelist()


def test_no_index_gives_one_line_with_the_fix(fresh_python, tmp_path, monkeypatch):
    """When the isolated build cannot fetch setuptools/wheel either, the error is one line: the cause and the fix
    (install wheel and setuptools>=68, or --wheel / --package-spec), not pip's multi-line log."""
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(empty))
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    monkeypatch.delenv("PIP_CONSTRAINT", raising=False)
    with pytest.raises(AVBError) as err:
        build_wheel(tmp_path / "cache", python=fresh_python)
    msg = str(err.value)
    assert "\n" not in msg
    assert WHEEL_FIX in msg and "without the `wheel` package" in msg
    assert len(msg) < 800
    assert not list(Path(tmp_path / "cache").rglob("*.whl"))
