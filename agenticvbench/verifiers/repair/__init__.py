"""The repair family: format (5) + localisation (35) + edit (60) points, as the official scorer combines them.

- `verifier.py`: `score_repair` (one fixed.mp4/report.md/source triple, no Task needed) and `RepairVerifier`;
- `format.py`, `localize.py` (+ `report_grammar.py`), `edit.py` (+ `edit_audio.py`, `features.py`, `ssim.py`):
  the three rubrics;
- `profiles.py`: the ground-truth profile of a cell, and what each variant asks of it;
- `detail.py` and `explain.py`: the shape of a result's detail, and how a stored result is explained.

Names load on first use (`agenticvbench.lazy`): importing this package, `detail.py` or `explain.py` does not load
PyAV, so reports can explain a repair result without the decoding stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agenticvbench.lazy import lazy_exports

if TYPE_CHECKING:
    from agenticvbench.verifiers.repair.verifier import (
        DEFAULT_WORKERS,
        FIXED_NAME,
        REPORT_NAME,
        RepairVerifier,
        failed_outcome,
        official_json,
        score_repair,
        source_of,
    )

__all__ = [
    "DEFAULT_WORKERS",
    "FIXED_NAME",
    "REPORT_NAME",
    "RepairVerifier",
    "failed_outcome",
    "official_json",
    "score_repair",
    "source_of",
]
_LAZY = dict.fromkeys(__all__, ".verifier")
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
