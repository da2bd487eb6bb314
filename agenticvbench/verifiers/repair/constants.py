"""Repair numbers and messages shared by the verifier entry point, the edit rubric and profile derivation.

Kept free of heavy imports (no NumPy, OpenCV or media code) so that `verifiers.repair` can use them without
loading the edit machinery.
"""

from __future__ import annotations

from typing import overload

FORMAT_MAX = 5.0
"""Points of the format rubric."""
LOC_MAX = 35.0
"""Points of the localisation rubric."""
EDIT_MAX = 60.0
"""Points of the edit rubric."""
RUBRIC_POINTS: dict[str, float] = {"format": FORMAT_MAX, "localization": LOC_MAX, "edit": EDIT_MAX}
"""Each rubric's points, in the order the official scorer adds them: final = sum(points x normalised score) / 100."""

MAX_DURATION_S = 1e6
"""Largest source duration (s) a profile may declare: about 11.6 days, far above any real cell, and far below the
~1.8e17 s where `t += 10` stops changing a float (chunk planning would never end)."""

NO_AUDIO_WARNING = (
    "D-R8: fixed.mp4 has no audio stream; as in the official scorer every edit chunk fails, so the "
    "edit score is 0 (video similarity is lost too)"
)
NO_VIDEO_WARNING = (
    "D-R8: fixed.mp4 has no video stream; OpenCV cannot open it, so as in the official scorer "
    "every chunk fails ('cv2 open failed') and edit is 0, audio included"
)


@overload
def clamp01(x: float) -> float: ...
@overload
def clamp01(x: None) -> None: ...
@overload
def clamp01(x: float | None) -> float | None: ...


def clamp01(x: float | None) -> float | None:
    """`x` clamped to [0, 1]; None (a signal that could not be measured) stays None."""
    return None if x is None else min(1.0, max(0.0, x))
