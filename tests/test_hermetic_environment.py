"""The suite runs in a scrubbed environment, but keeps its own opt-in switches."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_package_settings_are_scrubbed_and_test_switches_kept(tmp_path: Path) -> None:
    """An AVB_* package setting from the caller (here the cache directory) must not reach the tests, while the
    opt-in switches must: the scrub once removed AVB_REPAIR_HD_MEDIA, so the documented full-size repair run
    skipped without a word."""
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import os\n"
        "def test_env():\n"
        "    assert os.environ.get('AVB_CACHE') != '/somewhere'\n"
        "    assert os.environ['AVB_REPAIR_HD_MEDIA'] == '/media/hd'\n"
        "    assert os.environ['AVB_HARBOR_VENV'] == '/venv'\n"
    )
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "tests"),
        "AVB_CACHE": "/somewhere",
        "AVB_REPAIR_HD_MEDIA": "/media/hd",
        "AVB_HARBOR_VENV": "/venv",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(probe)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout
