"""The recap family: a rubric of signed-weight items per film, each a python check or a question to an LLM judge.

- `verifier.py`: `score_recap` (one final.mp4 and rubric, no Task needed) and `RecapVerifier`, with the statuses;
- `rubric.py` and `runner.py`: the rubric's validation and its execution, item by item;
- `kinds*.py`, `kind_registry.py`, `media_facts.py`, `frame_pass.py`, `ocr.py`: the python checks and the
  measurements they share;
- `detail.py` and `explain.py`: the shape of a result's detail, and how a stored result is explained.

Names load on first use (`agenticvbench.lazy`): importing this package, `detail.py` or `explain.py` does not load
PyAV, OpenCV or the judge client, so reports can explain a recap result without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agenticvbench.lazy import lazy_exports

if TYPE_CHECKING:
    from agenticvbench.verifiers.recap.verifier import OUTPUT_FILE, VERSION, RecapVerifier, score_recap

__all__ = ["OUTPUT_FILE", "VERSION", "RecapVerifier", "score_recap"]
_LAZY = dict.fromkeys(__all__, ".verifier")
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
