"""Harbor's reward files from an `avb score` result: `reward.json` with one key, and the details sidecar.

Harbor turns every key of `/logs/verifier/reward.json` into a job metric and averages it over all trials of a
job, counting a key a trial lacks as 0. A job over several families would therefore show family sub-scores
averaged over other families' trials. So `reward.json` holds exactly `{"reward": <headline>}`: the family's
official headline (the registry's `headline_field`: adjusted_final_score for sequencing and assembly, final_score
for repair and recap).

Everything else goes to `/logs/verifier/reward-details.json`, the file Harbor's viewer reads next to
`reward.json` (rewardkit's layout: reward name -> `{kind, score, criteria: [{name, value, raw, weight}],
warnings}`): the sub-scores as criteria, the scorer's error as a warning, and the full `avb score` result under
`result` (extra fields are shown as JSON by the viewer and ignored by Harbor).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.fsutil import atomic_write_json
from agenticvbench.results.model import json_safe
from agenticvbench.verifiers import families, headline_field

MAX_RESULT_BYTES = 16 * 1024 * 1024
DETAILS_NAME = "reward-details.json"


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def reward_from_result(family: str, result: dict[str, Any]) -> dict[str, float]:
    """`{"reward": headline}` for one task's result; a missing or non-finite headline counts 0."""
    if family not in families():
        raise ValueError(f"unknown family {family!r}")
    headline: Any = result.get(headline_field(family))
    return {"reward": float(headline) if _finite(headline) else 0.0}


def details_from_result(family: str, result: dict[str, Any]) -> dict[str, Any]:
    """The details sidecar: the headline with the result's numeric `*_score` fields as criteria (weight 0:
    shown, not summed; the official formula is in the scorer), the error as a warning, the full result."""
    reward = reward_from_result(family, result)["reward"]
    criteria = [
        {"name": key, "value": round(float(value), 4), "raw": float(value), "weight": 0.0}
        for key, value in sorted(result.items())
        if key.endswith("_score") and key != headline_field(family) and _finite(value)
    ]
    detail: dict[str, Any] = {
        "kind": "programmatic",
        "score": reward,
        "criteria": criteria,
        "description": f"AgenticVBench {family} headline ({headline_field(family)})",
        "family": family,
        "task_id": result.get("task_id"),
        "result": result,
    }
    if error := result.get("error"):
        detail["warnings"] = [f"scorer error: {str(error)[:2000]}"]
    return {"reward": detail}


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


def write_reward(
    family: str, result_path: str | Path, out: str | Path, details: str | Path | None = None
) -> dict[str, float]:
    """Read the result, write `reward.json` (and the details sidecar, default `reward-details.json` beside it)
    atomically, return the reward. The sidecar is written first so a reward never appears without it."""
    result = read_result(result_path)
    reward = reward_from_result(family, result)
    side = Path(details) if details is not None else Path(out).with_name(DETAILS_NAME)
    atomic_write_json(side, json_safe(details_from_result(family, result))[0])  # NaN/inf stored as null
    atomic_write_json(out, reward)
    return reward
