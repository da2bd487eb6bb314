"""The package type-checks clean under mypy (configured in pyproject.toml, version pinned in the test extra), so
CI catches a wrong type the moment it is written. Runs mypy's own cache in the repository's .mypy_cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_mypy_is_clean() -> None:
    """`mypy -p agenticvbench` (verifiers and ground truth included) reports
    no error; the run's output is the assertion message."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "-p", "agenticvbench"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "Success: no issues found" in proc.stdout
