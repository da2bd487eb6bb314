"""Fixtures for the Harbor tests: the demo exported once, and a way to run an exported script in a scratch root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agenticvbench.cli.main import main


@pytest.fixture(scope="session")
def harbor_export(demo, tmp_path_factory) -> Path:
    """The demo benchmark exported with `avb export harbor` (read-only for tests)."""
    out = tmp_path_factory.mktemp("harbor-export") / "tasks"
    assert main(["export", "harbor", "--out", str(out), "--dataset", str(demo.mirror)]) == 0
    return out


@pytest.fixture(scope="session")
def avb_on_path(tmp_path_factory) -> dict[str, str]:
    """An environment whose PATH has an `avb` running this interpreter and this source tree (as in the image)."""
    shim = tmp_path_factory.mktemp("avb-shim")
    script = shim / "avb"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m agenticvbench.cli.main "$@"\n')
    script.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{shim}{os.pathsep}{env.get('PATH', '')}"
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AVB_JUDGE_MODE", "AVB_JUDGE_BASE_URL"):
        env.pop(var, None)
    return env


def run_script(task_dir: Path, script: str, root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run `tests/test.sh` or `solution/solve.sh` of `task_dir` with the sandbox paths remapped under `root`."""
    for sub in ("tests", "solution"):
        if (task_dir / sub).is_dir() and not (root / sub).exists():
            shutil.copytree(task_dir / sub, root / sub)
    (root / "workspace" / "output").mkdir(parents=True, exist_ok=True)
    return subprocess.run(["bash", str(root / script)], env={**env, "AVB_HARBOR_ROOT": str(root)},
                          capture_output=True, text=True, timeout=600)
