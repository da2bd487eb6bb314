"""The wheel a user gets from an index: one import name, beside PyPI's `verifiers`, one headless OpenCV, and the
whole demo running where libGL does not exist.

The wheel is built from a copy of the sources and installed into a fresh venv. So that the heavy dependencies are
not installed again, the venv sees the site-packages of the interpreter running the tests, whichever it is (a
venv of its own, as users have, or a global install, as a container has) through a `.pth` file placed after its
own site-packages: the venv gets our wheel, PyPI's `verifiers` and the OpenCV build our requirements name, and its
own copies shadow the development environment's (checked through each module's `__file__`). The development
environment's `.pth` files (its editable install among them) are not processed there, as Python only reads
`.pth` files in the site directories of the interpreter itself.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PYPI_VERIFIERS = "verifiers==0.4.0"
"""PyPI's package of the same import name ("Environments for LLM Reinforcement Learning"); its top-level module
imports nothing, so it is installed without its (large) dependencies."""

pytestmark = pytest.mark.timeout(900)


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment minus whatever would import the development tree instead of the venv's copy."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}
    env.update(PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def _run(
    cmd: list[str | Path], cwd: Path, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        env=env or _clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, (
        f"{cmd} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip wheel .` of a copy of the repository (the build writes build/ and *.egg-info next to its sources)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    for name in ("agenticvbench",):
        shutil.copytree(
            REPO / name, src / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    out = tmp_path_factory.mktemp("dist")
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", out, src],
        cwd=src,
    )
    (whl,) = out.glob("agenticvbench-*.whl")
    return whl


def _see_outer_site_packages(root: Path) -> None:
    """Let the venv at `root` import what the test's own interpreter has installed, after its own packages.

    `venv --system-site-packages` would expose the *base* interpreter's site-packages, which holds nothing when
    the tests run from a venv; this names the running interpreter's site directories instead."""
    import site

    outer = [
        p for p in dict.fromkeys([*site.getsitepackages(), site.getusersitepackages()]) if Path(p).is_dir()
    ]
    (inner,) = (root / "lib").glob("python3.*/site-packages")
    (inner / "zz_outer_site_packages.pth").write_text("".join(f"{p}\n" for p in outer))


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding our wheel, PyPI's `verifiers` and the OpenCV build our requirements name."""
    from importlib.metadata import version

    root = tmp_path_factory.mktemp("venv") / "env"
    _run([sys.executable, "-m", "venv", "--without-pip", root], cwd=root.parent)
    _see_outer_site_packages(root)
    # The outer pip runs inside the venv (it is visible through the .pth file) and installs there;
    # --ignore-installed because the development environment already has each of these names.
    _run(
        [
            root / "bin" / "python",
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--ignore-installed",
            "--disable-pip-version-check",
            wheel,
            PYPI_VERIFIERS,
            f"opencv-python-headless=={version('opencv-python-headless')}",
        ],
        cwd=root.parent,
        timeout=900,
    )
    return root


def _probe(venv: Path, cwd: Path) -> dict[str, object]:
    code = r"""
import importlib, importlib.metadata as md, json, re, sys
from packaging.requirements import Requirement
mods = {m: importlib.import_module(m).__file__ for m in
        ("agenticvbench", "agenticvbench.verifiers", "agenticvbench.ground_truth", "verifiers", "cv2")}
import cv2
from agenticvbench.verifiers import get_verifier
gui = re.search(r"GUI:\s*(\S+)", cv2.getBuildInformation())
def norm(n): return re.sub(r"[-_.]+", "-", n).lower()
def closure(extras):
    # the install closure of agenticvbench with these extras of its own, from the installed metadata
    seen, todo = set(), ["agenticvbench"]
    while todo:
        name = todo.pop()
        if name in seen: continue
        seen.add(name)
        for spec in md.requires(name) or []:
            req = Requirement(spec)
            own = extras if name == "agenticvbench" else [""]
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in own):
                try: md.distribution(req.name)
                except md.PackageNotFoundError: continue
                todo.append(norm(req.name))
    return sorted(seen)
print(json.dumps({"files": mods, "verifiers_version": md.version("verifiers"),
                  "top_level": md.distribution("agenticvbench").read_text("top_level.txt"),
                  "sequencing": type(get_verifier("sequencing")).__name__,
                  "gui": gui.group(1) if gui else None, "closure": closure([""]),
                  "closure_test": closure(["", "test", "ocr-deps"])}))
"""
    return json.loads(_run([venv / "bin" / "python", "-c", code], cwd=cwd).stdout)


@pytest.mark.slow
def test_wheel_holds_one_top_level_package(wheel: Path) -> None:
    """Only `agenticvbench/` goes into site-packages: `verifiers` and `ground_truth` ship inside it (a top-level
    `verifiers` would overwrite PyPI's package of that name), and the repair ground truth is packaged."""
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"agenticvbench"}
    assert "agenticvbench/verifiers/repair/edit.py" in names
    assert sum(n.startswith("agenticvbench/ground_truth/repair/ground_truth/") for n in names) == 22


@pytest.mark.slow
def test_installs_beside_pypi_verifiers(venv: Path, tmp_path: Path) -> None:
    """In the venv, `import verifiers` is PyPI's package and `agenticvbench.verifiers` ours, both from the venv
    (not the development tree), and the install needs exactly one OpenCV distribution: the headless one."""
    info = _probe(venv, tmp_path)
    files = {k: Path(str(v)) for k, v in dict(info["files"]).items()}  # type: ignore[call-overload]
    for name, path in files.items():
        assert path.is_relative_to(venv), f"{name} imported from {path}, not from the venv"
    assert (
        files["verifiers"].parent.name == "verifiers"
        and files["verifiers"].parent.parent.name == "site-packages"
    )
    assert files["agenticvbench.verifiers"].parent.parent.name == "agenticvbench"
    assert info["verifiers_version"] == PYPI_VERIFIERS.split("==")[1]
    assert str(info["top_level"]).split() == ["agenticvbench"]
    assert info["sequencing"]
    closure = set(info["closure"])  # type: ignore[call-overload]
    assert {"scenedetect-headless", "opencv-python-headless"} <= closure
    assert {n for n in closure if n.startswith("opencv")} == {"opencv-python-headless"}
    # The development install (`.[test]`, with the OCR engine's dependencies) names no GUI OpenCV either, so the
    # README's install and test commands work on a host without libGL.
    closure_test = set(info["closure_test"])  # type: ignore[call-overload]
    assert {"pytest", "onnxruntime", "pyclipper"} <= closure_test
    assert {n for n in closure_test if n.startswith("opencv")} == {"opencv-python-headless"}
    assert info["gui"] == "NONE", "the venv's cv2 is not the headless build"


def _gl_libraries() -> list[str]:
    """Every OpenGL library the dynamic loader knows of (libGL, libGLX, libEGL, libOpenGL, ...), resolved."""
    # ldconfig lives in /sbin, which an unprivileged user's PATH often lacks
    ldconfig = shutil.which(
        "ldconfig", path=os.pathsep.join([os.environ.get("PATH", ""), "/sbin", "/usr/sbin"])
    )
    if ldconfig is None:
        return []
    out = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, check=False).stdout
    paths = {
        os.path.realpath(m) for m in re.findall(r"=>\s*(\S*/lib(?:GL|EGL|OpenGL)[^/\s]*\.so[^\s]*)", out)
    }
    return sorted(p for p in paths if os.path.isfile(p))


def _without_gl(cmd: list[str]) -> list[str]:
    """`cmd` in a private mount namespace where every OpenGL library is an empty file (unloadable)."""
    libs = _gl_libraries()
    if not libs:
        return cmd  # nothing to hide: this machine has no libGL at all
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("hiding libGL needs root and `unshare` (CI runs as root)")
    mounts = " && ".join(f"mount --bind /dev/null {lib}" for lib in libs)
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        f'{mounts} && exec "$@"',
        "sh",
        *cmd,
    ]


@pytest.mark.slow
def test_demo_runs_without_libgl(venv: Path, tmp_path: Path) -> None:
    """`import cv2` and the whole demo (build, score three runs, report) work from the wheel install where no
    libGL can be loaded, as in slim containers and clusters; the first command proves libGL is really gone."""
    python = str(venv / "bin" / "python")
    gone = (
        "import ctypes, ctypes.util\nfor name in ('libGL.so.1', 'libGL.so'):\n    try:\n        "
        "ctypes.CDLL(name)\n    except OSError:\n        continue\n    raise SystemExit(name + ' loaded')\n"
        "import cv2; print(cv2.__file__)"
    )
    proc = _run(_without_gl([python, "-c", gone]), cwd=tmp_path)
    assert Path(proc.stdout.strip()).is_relative_to(venv)
    env = _clean_env(AVB_CACHE=str(tmp_path / "cache"), HF_HUB_OFFLINE="1", MPLBACKEND="Agg")
    proc = _run(
        _without_gl([str(venv / "bin" / "avb"), "demo", "--dest", str(tmp_path / "demo"), "--jobs", "2"]),
        cwd=tmp_path,
        env=env,
        timeout=900,
    )
    assert re.search(r"^27 result\(s\), 0 reused", proc.stdout, re.M), proc.stdout[-2000:]
    for family in ("recap", "sequencing", "repair", "assembly"):
        assert family in proc.stdout
