"""Hermetic tests: the caller's Hub, judge and package settings never reach the suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _test_switches() -> set[str]:
    """`TEST_SWITCHES` of tests/conftest.py, read from its source (importing `conftest` may give another folder's)."""
    import ast

    tree = ast.parse((REPO / "tests" / "conftest.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") == "TEST_SWITCHES" for t in node.targets
        ):
            return set(ast.literal_eval(node.value.args[0]))  # frozenset({...})
    raise AssertionError("tests/conftest.py defines no TEST_SWITCHES")


HOSTILE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_HOME": "/nonexistent/hf-home",
    "HF_ENDPOINT": "http://127.0.0.1:9",
    "OPENAI_API_KEY": "sk-unrelated",
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "AVB_JUDGE_MODE": "live",
    "AVB_CACHE": "/nonexistent/avb",
    "AVB_MAX_MEDIA_MB": "not-a-number",
}


def test_conftest_scrubs_the_callers_settings():
    """Within the suite none of the caller's HF_*/OPENAI_*/AVB_* variables survive (AVB_CACHE is the suite's own)."""
    leftover = {
        k for k in os.environ if k.startswith(("HF_", "HUGGINGFACE_", "OPENAI_", "AVB_"))
    } - _test_switches()
    assert leftover <= {"HF_HOME", "HF_HUB_DISABLE_TELEMETRY", "AVB_CACHE"}
    assert "avb-tests-hf-home-" in os.environ["HF_HOME"]


def test_hub_tests_pass_on_an_offline_cluster():
    """With HF_HUB_OFFLINE=1 (usual on offline clusters) and unrelated endpoints set, 7 Hub tests used to fail."""
    env = {**os.environ, **HOSTILE_ENV, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/dataset/test_loader_hub.py"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
