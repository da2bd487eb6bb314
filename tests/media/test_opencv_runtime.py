"""A broken OpenCV (the GUI build on a host without libGL) stops media commands at once with one line."""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Iterator

import pytest

from agenticvbench.cli.main import EXIT_INPUT, main
from agenticvbench.errors import InstallError
from agenticvbench.media.opencv_runtime import check_opencv

LOADER_MESSAGE = "libGL.so.1: cannot open shared object file: No such file or directory"


class _NoGL(importlib.abc.MetaPathFinder):
    """Fails `import cv2` the way the GUI build does where libGL cannot be loaded."""

    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        if name == "cv2":
            raise ImportError(LOADER_MESSAGE)
        return None


@pytest.fixture()
def cv2_without_gl(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delitem(sys.modules, "cv2", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoGL(), *sys.meta_path])
    yield


def test_check_names_the_loader_error_and_the_fix(cv2_without_gl: None) -> None:
    """The message keeps the dynamic loader's line (what is missing) and the one command that repairs it."""
    with pytest.raises(InstallError) as info:
        check_opencv()
    text = str(info.value)
    assert "\n" not in text
    assert LOADER_MESSAGE in text
    assert "pip uninstall -y opencv-python" in text and "opencv-python-headless" in text


def test_demo_stops_with_one_line_instead_of_a_traceback(
    cv2_without_gl: None, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`avb demo` on a slim host with the GUI OpenCV used to die with a 20-line ImportError: now exit 3, one
    line on stderr, and nothing built."""
    rc = main(["demo", "--dest", str(tmp_path / "demo")])
    err = capsys.readouterr().err.strip()
    assert rc == EXIT_INPUT
    assert len(err.splitlines()) == 1 and err.startswith("avb: error: OpenCV cannot load here")
    assert not (tmp_path / "demo").exists()


def test_check_passes_where_opencv_loads() -> None:
    """On a working install the check is silent (no false alarm on every command)."""
    check_opencv()
