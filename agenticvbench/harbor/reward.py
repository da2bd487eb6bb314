"""Harbor's reward file from an `avb score` result: flat, every value a finite number.

Harbor reads `/logs/verifier/reward.json` before `reward.txt` and rejects any value that is not a finite number,
so nested details cannot go there. `reward` is the family's official headline (`adjusted_final_score` for
sequencing and assembly, `final_score` for repair and recap); the other top-level numeric fields of the result
named `*_score` (the sub-scores) ride along, plus `scorer_error` (1 when the result's `error` is set). Harbor
averages every key over a job's trials, so counts and maxima are left out: they would mix across families. The full result JSON stays in its own file next to it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.fsutil import atomic_write_json

HEADLINE: dict[str, str] = {
    "sequencing": "adjusted_final_score",
    "assembly": "adjusted_final_score",
    "repair": "final_score",
    "recap": "final_score",
}
MAX_RESULT_BYTES = 16 * 1024 * 1024


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def reward_from_result(family: str, result: dict[str, Any]) -> dict[str, float]:
    """The flat reward mapping for one task's result; a missing or non-finite headline counts 0."""
    if family not in HEADLINE:
        raise ValueError(f"unknown family {family!r}")
    headline = result.get(HEADLINE[family])
    out: dict[str, float] = {"reward": float(headline) if _finite(headline) else 0.0}
    for key, value in sorted(result.items()):
        if key.endswith("_score") and _finite(value):
            out[key] = float(value)
    out["scorer_error"] = 1.0 if result.get("error") else 0.0
    return out


def read_result(path: str | Path) -> dict[str, Any]:
    """Read an `avb score` result file (bounded); `SubmissionError` names the file when it is not a JSON object."""
    p = Path(path)
    try:
        if not p.is_file():
            raise SubmissionError(f"{p}: no score result (the scorer printed nothing)")
        if p.stat().st_size > MAX_RESULT_BYTES:
            raise SubmissionError(f"{p}: over {MAX_RESULT_BYTES} bytes, not a score result")
        data = json.loads(p.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SubmissionError(f"{p}: not a JSON score result ({exc})") from None
    if not isinstance(data, dict):
        raise SubmissionError(f"{p}: top level is not an object")
    return data


def write_reward(family: str, result_path: str | Path, out: str | Path) -> dict[str, float]:
    """Read the result, write the flat reward JSON atomically, return it."""
    reward = reward_from_result(family, read_result(result_path))
    atomic_write_json(out, reward)
    return reward
