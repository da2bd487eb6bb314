"""The package the exported verifier image installs, before `agenticvbench` is on a package index.

By default `avb export harbor` bakes a wheel of the running package into every task's `tests/` folder (the
verifier image's build context) and the verifier Dockerfile installs that file, so an export builds offline and
scores with exactly this code. The wheel is built from the source checkout the package runs from (a folder with
`pyproject.toml` above the package), with pip and without dependencies, and cached under the package cache keyed by
a hash of the package sources. The build runs without build isolation (offline, seconds) when the interpreter can
build a wheel (setuptools with a `bdist_wheel` command: the `wheel` package, or setuptools 70.1 and later); a fresh
venv has neither (setuptools 65 and no `wheel`), so the build then runs with isolation, pip fetching the build
requirements from the configured index; when that fails too, the error is one line with the fix. Without a checkout (an installed wheel), there is
nothing to build from: `--wheel FILE` or `--package-spec SPEC` is then required, and the export says so.
"""

from __future__ import annotations

import hashlib
import json
import os
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
    found = (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "agenticvbench").is_dir()
    return CHECKOUT if found else None


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


#: Asks an interpreter whether it can build a wheel without isolation: setuptools importable and a
#: `bdist_wheel` command registered (by the `wheel` package, or by setuptools >= 70.1 itself).
_PROBE = """
import json, importlib.metadata as m
out = {}
for name in ("setuptools", "wheel"):
    try:
        out[name] = m.version(name)
    except m.PackageNotFoundError:
        out[name] = None
out["bdist_wheel"] = any(e.name == "bdist_wheel" for e in m.entry_points(group="distutils.commands"))
print(json.dumps(out))
"""

#: The one-line fix printed when no wheel can be built.
WHEEL_FIX = (
    "run `python -m pip install wheel 'setuptools>=68'` in this environment, or pass --wheel FILE "
    "(built with `pip wheel --no-deps .` in the checkout) or --package-spec SPEC"
)


def build_tools_problem(python: str = sys.executable) -> str | None:
    """None when `python` can build this package's wheel without build isolation, else what it lacks (one phrase).

    It needs setuptools and a `bdist_wheel` command (the `wheel` package, or setuptools 70.1 and later, which has
    its own). A fresh venv (setuptools 65, no `wheel`) lacks the command.
    """
    try:
        proc = subprocess.run(
            [python, "-c", _PROBE], capture_output=True, text=True, timeout=120, env=_quiet_env()
        )
        found = json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        found = None
    if not isinstance(found, dict):
        return f"{python} could not be asked for its build tools"
    if not found.get("setuptools"):
        return "no setuptools"
    if not found.get("bdist_wheel"):
        return f"setuptools {found['setuptools']} without the `wheel` package (no bdist_wheel command)"
    return None


def _quiet_env() -> dict[str, str]:
    """The environment for pip and the probe, without warnings that would garble their one line."""
    env = dict(os.environ)
    env["PYTHONWARNINGS"] = "ignore"
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    return env


def _pip_error(text: str) -> str:
    """The last `error: ...` line of a pip log (the cause), else its last non-empty line; bounded."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.lower().startswith(("error:", "error "))]
    pick = errors[-1] if errors else (lines[-1] if lines else "no output")
    return pick[:300]


def build_wheel(cache: Path, *, python: str = sys.executable) -> Path:
    """The wheel of the running checkout (built once per source digest into `cache/harbor-wheels/`).

    `python` runs pip (default: this interpreter). Without isolation when `build_tools_problem(python)` is None,
    else with isolation; a failed build raises one line naming the cause and `WHEEL_FIX`.
    """
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
        problem = build_tools_problem(python)
        isolation = ["--no-build-isolation"] if problem is None else []  # fast and offline when possible
        cmd = [python, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", str(Path(tmp) / "out")]
        cmd.append(str(build))
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=_quiet_env())
            log = (proc.stderr or "") + "\n" + (proc.stdout or "")
            ok = proc.returncode == 0
        except (OSError, subprocess.SubprocessError) as exc:
            log, ok = str(exc), False
        wheels = sorted((Path(tmp) / "out").glob("agenticvbench-*.whl"))
        if not ok or not wheels:
            how = (
                "pip wheel failed"
                if problem is None
                else f"this environment has {problem}, and the isolated build could not get them"
            )
            raise AVBError(
                f"building the agenticvbench wheel for the verifier image failed ({how}: {_pip_error(log)}): "
                f"{WHEEL_FIX}"
            )
        staged = Path(tmp) / "final"
        staged.mkdir()
        shutil.move(str(wheels[0]), staged / wheels[0].name)
        try:
            staged.rename(target)
        except OSError:  # another export built it meanwhile
            pass
    return check_wheel(sorted(target.glob("agenticvbench-*.whl"))[0])
