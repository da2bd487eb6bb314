"""The human verdict store, as the grading UI knows it: re-exported from `agenticvbench.judge.human_store`.

The store lives beside the judge because mode `human` reads it while scoring (a plug-in may not import an output
layer such as `grade`); the grading server writes through the same implementation.
"""

from __future__ import annotations

from agenticvbench.judge.human_store import VERDICTS, HumanVerdict, Key, VerdictStore, check_grader, majority

__all__ = ["VERDICTS", "HumanVerdict", "Key", "VerdictStore", "check_grader", "majority"]
