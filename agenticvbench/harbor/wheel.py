"""The package the exported verifier image installs, before `agenticvbench` is on a package index.

By default `avb export harbor` bakes a wheel of the running package into every task's `tests/` folder (the
verifier image's build context) and the verifier Dockerfile installs that file, so an export builds offline and
scores with exactly this code. The wheel is built from the source checkout the package runs from (a folder with
`pyproject.toml` above the package), with pip, without build isolation and without dependencies, and cached under
the package cache keyed by a hash of the package sources. Without a checkout (an installed wheel), there is
nothing to build from: `--wheel FILE` or `--package-spec SPEC` is then required, and the export says so.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from agenticvbench.errors import AVBError
from agenticvbench.version import __version__

PACKAGE_DIR = Path(__file__).resolve().parents[1]
CHECKOUT = PACKAGE_DIR.parent
_SOURCE_SUFFIXES = (".py", ".json", ".md", ".txt", ".html", ".toml")


class NoWheelError(AVBError):
    """No wheel can be built here (no source checkout): `--wheel` or `--package-spec` is needed."""


def checkout_root() -> Path | None:
    """The source checkout this package runs from, or None for an installed package."""
    return (
        CHECKOUT
        if (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "agenticvbench").is_dir()
        else None
    )


def source_digest(root: Path) -> str:
    """SHA-256 over `pyproject.toml` and the package's source and data files (paths and contents)."""
    h = hashlib.sha256()
    files = [root / "pyproject.toml"] + sorted(
        p
        for p in (root / "agenticvbench").rglob("*")
        if p.is_file() and p.suffix in _SOURCE_SUFFIXES and "__pycache__" not in p.parts
    )
    for p in files:
        h.update(f"{p.relative_to(root).as_posix()}\0{hashlib.sha256(p.read_bytes()).hexdigest()}\n".encode())
    return h.hexdigest()


def check_wheel(path: Path) -> Path:
    """`path` if it is a wheel of this package at this version (name, version and a module checked); else raise."""
    name = f"agenticvbench-{__version__}-"
    if not (path.is_file() and path.name.startswith(name) and path.suffix == ".whl"):
        raise AVBError(f"{path}: not an agenticvbench {__version__} wheel (expected {name}*.whl)")
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
    except zipfile.BadZipFile as exc:
        raise AVBError(f"{path}: not a wheel ({exc})") from None
    if "agenticvbench/harbor/reward.py" not in names:
        raise AVBError(f"{path}: does not contain agenticvbench/harbor/reward.py")
    return path


def build_wheel(cache: Path) -> Path:
    """The wheel of the running checkout (built once per source digest into `cache/harbor-wheels/`)."""
    root = checkout_root()
    if root is None:
        raise NoWheelError(
            f"agenticvbench {__version__} runs from an installed package, not a source checkout, and is not "
            "published on PyPI: pass --wheel FILE (a wheel built with `pip wheel --no-deps .`) or --package-spec "
            "SPEC (e.g. 'agenticvbench @ git+https://...') so the verifier image can install it"
        )
    target = cache / "harbor-wheels" / source_digest(root)[:16]
    found = sorted(target.glob(f"agenticvbench-{__version__}-*.whl"))
    if found:
        return found[0]
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        build = Path(tmp) / "src"  # a copy: pip's in-tree build/ folder must not race with another export
        shutil.copytree(
            root / "agenticvbench",
            build / "agenticvbench",
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
        for extra in ("pyproject.toml", "README.md", "LICENSE"):
            if (root / extra).is_file():
                shutil.copy2(root / extra, build / extra)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "-q",
                "-w",
                str(Path(tmp) / "out"),
                str(build),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        wheels = sorted((Path(tmp) / "out").glob("agenticvbench-*.whl"))
        if proc.returncode != 0 or not wheels:
            raise AVBError(
                f"building the agenticvbench wheel for the verifier image failed: "
                f"{(proc.stderr or proc.stdout).strip()[-800:]} (pass --wheel or --package-spec)"
            )
        staged = Path(tmp) / "final"
        staged.mkdir()
        shutil.move(str(wheels[0]), staged / wheels[0].name)
        try:
            staged.rename(target)
        except OSError:  # another export built it meanwhile
            pass
    return check_wheel(sorted(target.glob("agenticvbench-*.whl"))[0])
