"""Repair constants shared by the verifier entry point and the edit rubric: one definition each."""

from __future__ import annotations

import subprocess
import sys

import agenticvbench.verifiers.repair.verifier as repair
from agenticvbench.verifiers.repair import constants, edit


def test_edit_max_clamp_and_d_r8_message_are_defined_once() -> None:
    """Regression: EDIT_MAX, the [0, 1] clamp and the D-R8 message were written twice (verifiers.repair and
    edit.py) and could drift apart; both modules must now use the one definition in constants.py."""
    assert repair.EDIT_MAX is constants.EDIT_MAX and edit.EDIT_MAX is constants.EDIT_MAX == 60.0
    assert repair.clamp01 is constants.clamp01 and edit.clamp01 is constants.clamp01
    assert not hasattr(repair, "_clamp01") and not hasattr(edit, "_clamp01")
    assert constants.NO_AUDIO_WARNING.startswith("D-R8:") and constants.NO_VIDEO_WARNING.startswith("D-R8:")


def test_clamp01() -> None:
    assert [constants.clamp01(x) for x in (-0.5, 0.0, 0.25, 1.0, 7.0)] == [0.0, 0.0, 0.25, 1.0, 1.0]
    assert constants.clamp01(None) is None  # an unmeasured signal stays unmeasured


def test_importing_the_verifier_does_not_load_the_edit_machinery() -> None:
    """constants.py must stay light: `import verifiers.repair` may not pull in edit.py (decoding, SSIM)."""
    code = "import sys, agenticvbench.verifiers.repair; assert 'agenticvbench.verifiers.repair.edit' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
