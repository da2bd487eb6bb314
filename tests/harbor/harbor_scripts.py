"""Running an exported task's scripts in a scratch root laid out like the sandbox (paths remapped)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def run_script(
    task_dir: Path, script: str, root: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run `tests/test.sh` or `solution/solve.sh` of `task_dir` with the sandbox paths remapped under `root`."""
    for sub in ("tests", "solution"):
        if (task_dir / sub).is_dir() and not (root / sub).exists():
            shutil.copytree(task_dir / sub, root / sub)
    (root / "workspace" / "output").mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        ["bash", str(root / script)],
        env={**env, "AVB_HARBOR_ROOT": str(root)},
        capture_output=True,
        text=True,
        timeout=600,
    )
