"""The cached Python >= 3.12 venv with Harbor and inspect-harbor that the end-to-end tests run (built once into
~/.cache/agenticvbench-tests/harbor-venv, or $AVB_HARBOR_VENV, from PyPI the first time; CI builds it the same way).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

#: What the venv holds; changing this list rebuilds the cached venv's packages.
SPECS = ("harbor==0.26.0", "inspect-harbor==1.0.0")


def python312() -> str | None:
    """A Python >= 3.12 interpreter ($AVB_PYTHON312, python3.13/3.12 on PATH, or pyenv), or None."""
    cands = [
        os.environ.get("AVB_PYTHON312", ""),
        shutil.which("python3.13") or "",
        shutil.which("python3.12") or "",
    ]
    cands += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python")), reverse=True)
    for c in filter(None, cands):
        try:
            out = subprocess.run(
                [c, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except OSError:
            continue
        if out.stdout.strip() == "True":
            return c
    return None


def harbor_venv(python: str) -> Path:
    """The venv (created and filled with SPECS when its marker does not list exactly SPECS)."""
    venv = Path(
        os.environ.get("AVB_HARBOR_VENV") or Path.home() / ".cache" / "agenticvbench-tests" / "harbor-venv"
    )
    marker = venv / ".avb-installed"
    wanted = "\n".join(SPECS)
    if marker.is_file() and marker.read_text() == wanted:
        return venv
    if not (venv / "bin" / "python").exists():
        subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *SPECS], check=True, timeout=1800
    )
    marker.write_text(wanted)
    return venv
