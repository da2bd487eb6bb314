"""Generated calibration data shared by the grade, judge and analysis tests: human verdicts and a model judge's
cached verdicts on the same (task, item, video) keys, each item routed to a modality, with a chosen error rate."""

from __future__ import annotations

import random
from pathlib import Path

from agenticvbench.fsutil import atomic_write_json
from agenticvbench.grade.store import HumanVerdict, VerdictStore
from agenticvbench.judge.cache import CACHE_SCHEMA
from agenticvbench.judge.profiles import get_profile
from agenticvbench.results.model import Result


def write_graded(
    cache: Path,
    counts: dict[str, int],
    *,
    model: str = "m1",
    profile: str = "legacy",
    graders: tuple[str, ...] = ("alice",),
    judge_error: float = 0.03,
    seed: int = 0,
    start: int = 0,
) -> None:
    """`counts[modality]` items of each modality, graded by every grader (the truth) and judged by `model` under
    `profile`, whose verdict is wrong with probability `judge_error`; pass prevalence 0.6."""
    rng = random.Random(seed)
    store = VerdictStore(cache / "grades")
    template = get_profile(profile).template_version
    i = start
    for modality, n in counts.items():
        for _ in range(n):
            key = (1 + i % 36, f"I-{i}", f"{i:064x}")
            truth = "pass" if rng.random() < 0.6 else "fail"
            judged = truth if rng.random() > judge_error else ("fail" if truth == "pass" else "pass")
            for g in graders:
                store.append(
                    HumanVerdict(
                        grader=g,
                        task_id=key[0],
                        item_id=key[1],
                        video_sha256=key[2],
                        verdict=truth,
                        pillar=i % 4,
                    )
                )
            name = f"{model}-{profile}-{i}"
            atomic_write_json(
                cache / "judge" / "ab" / f"{name}.json",
                {
                    "schema": CACHE_SCHEMA,
                    "key": name,
                    "model": model,
                    "profile": profile,
                    "template_version": template,
                    "modality": modality,
                    "outcome": judged,
                    "item_id": key[1],
                    "task_id": key[0],
                    "video_sha256": key[2],
                },
            )
            i += 1


def judged_recap(
    result: Result,
    modalities: dict[str, str],
    *,
    model: str = "m1",
    profile: str = "legacy",
    mode: str = "cache",
    modality_models: dict[str, str] | None = None,
) -> Result:
    """`result` (a recap result) as a model judge left it: judge provenance and one decisively judged item per
    entry of `modalities` (item id -> modality), with tokens."""
    prof = get_profile(profile)
    result.provenance.update(
        {
            "judge_mode": mode,
            "judge_model": model,
            "judge_profile": profile,
            "prompt_template_version": prof.template_version,
            "prompt_hash": prof.prompt_hash(),
        }
    )
    if modality_models:
        result.provenance["judge_modalities"] = {
            m: {"model": name, "base_url_host": None} for m, name in modality_models.items()
        }
    result.detail = {
        "items": [
            {
                "item_id": item,
                "dispatch": "llm",
                "weight": 1.0,
                "pillar": 1,
                "outcome": "pass",
                "route": {"modality": modality, "rule": "picture", "because": []},
                "judge": {"modality": modality, "attempts": 1, "prompt_tokens": 100, "completion_tokens": 10},
            }
            for item, modality in modalities.items()
        ]
    }
    return result
