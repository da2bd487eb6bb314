"""Whether OpenCV loads on this machine, said in one line with the fix when it does not.

Two OpenCV distributions share one `cv2` folder, and the last one installed wins. The GUI build
(`opencv-python`, declared by RapidOCR's `rapidocr-onnxruntime`) links libGL, which slim containers and clusters
lack; there `import cv2` fails deep inside the first decode. Commands that decode media call `check_opencv()`
first, so the user reads what to run instead of a traceback or a run of `error` tasks.
"""

from __future__ import annotations

from agenticvbench.errors import InstallError

HEADLESS_FIX = (
    "pip uninstall -y opencv-python && pip install --force-reinstall --no-deps opencv-python-headless"
    " (the headless build needs no libGL; see docs/decisions/packaging.md)"
)


def check_opencv() -> None:
    """Import `cv2`; raise `InstallError` (one line: the loader's complaint and the command that fixes it)."""
    try:
        import cv2  # noqa: F401
    except ImportError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        if "shared object" in first or "libGL" in first:
            raise InstallError(
                f"OpenCV cannot load here ({first}): the GUI build opencv-python has replaced the "
                f"headless one; run: {HEADLESS_FIX}"
            ) from None
        raise InstallError(f"OpenCV cannot be imported ({first}); run: {HEADLESS_FIX}") from None
