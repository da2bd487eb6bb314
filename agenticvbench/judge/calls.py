"""The judge's typed values: a request, the call that answers it, the per-task accounting, and ensemble voting.

Every judge mode returns a `JudgeCall`; nothing fills a dict passed in. `Tally` is the one place the per-task
counters change (under its own lock), so the mode classes never touch a lock of their own.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from agenticvbench.judge.routing import Route
from agenticvbench.judge.verdict import Outcome


@dataclass(frozen=True)
class JudgeRequest:
    """One question: the rubric item's id and its (already filled) criterion text; `route` the modality it needs
    (None: routed from `prompt` alone), `fires_on` for a negative-weight item the outcome that deducts (None for
    a positive item), `time_range` the part of the video the item names, in seconds."""

    item_id: str
    prompt: str
    route: Route | None = field(default=None, kw_only=True)
    fires_on: Outcome | None = field(default=None, kw_only=True)
    time_range: tuple[float, float] | None = field(default=None, kw_only=True)


@dataclass(kw_only=True)
class JudgeCall:
    """The judge's answer for one item, with what it cost."""

    item_id: str
    outcome: Outcome
    reason: str
    cached: bool = False
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    audio_included: bool = False
    raw: str = ""
    modality: str | None = None  # the item's route (visual | audio | audio_visual | video)
    delivery: list[str] = field(
        default_factory=list
    )  # the part kinds sent (video may fall back to image+audio)
    profile: str | None = None  # the prompt contract that asked it
    media_bytes: dict[str, int] = field(default_factory=dict)  # inline bytes sent per part kind
    votes: list[dict[str, Any]] = field(default_factory=list)  # ensembles and human majority: every answer

    @classmethod
    def unscored(cls, item_id: str, reason: str) -> JudgeCall:
        """An `unscored` answer for `item_id`, saying why."""
        return cls(item_id=item_id, outcome="unscored", reason=reason)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (for a result's detail)."""
        return asdict(self)


@dataclass(kw_only=True)
class JudgeStats:
    """Per-task judge accounting (updated only through `Tally`)."""

    calls: int = 0  # chat-completion HTTP requests sent (retries included)
    cache_hits: int = 0
    cache_misses: int = 0
    retries: int = 0
    transcriptions: int = 0
    probes: int = 0  # capability probes sent (not counted in `calls`)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0  # calls whose model has no price: cost_usd is then a lower bound
    unscored: int = 0
    json_mode: bool = True
    notes: list[str] = field(default_factory=list)
    #: modality -> calls, tokens, cost (priced like `cost_usd`), unpriced calls and the models asked
    by_modality: dict[str, dict[str, Any]] = field(default_factory=dict)
    capabilities: list[dict[str, Any]] = field(default_factory=list)  # the probe records this task used

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (for a result's extra)."""
        d = asdict(self)
        d["total_tokens"] = self.prompt_tokens + self.completion_tokens
        d["cost_usd"] = round(self.cost_usd, 8)
        for row in d["by_modality"].values():
            row["cost_usd"] = round(row["cost_usd"], 8)
        return d


class Tally:
    """Thread-safe updates of one task's `JudgeStats` (items are judged on several threads)."""

    def __init__(self) -> None:
        self.stats = JudgeStats()
        self._lock = threading.Lock()

    def add(self, **counts: int | float) -> None:
        """Add to numeric counters, e.g. `add(calls=1, prompt_tokens=12)`."""
        with self._lock:
            for name, value in counts.items():
                setattr(self.stats, name, getattr(self.stats, name) + value)

    def note(self, text: str) -> None:
        """Record a task-level note once (e.g. a cache write failure)."""
        with self._lock:
            if text not in self.stats.notes:
                self.stats.notes.append(text)

    def add_modality(
        self, modality: str, prompt_tokens: int, completion_tokens: int, cost_usd: float | None, model: str
    ) -> None:
        """Count one answered call of `modality` by `model`: its tokens and cost (None: the model is unpriced)."""
        with self._lock:
            row = self.stats.by_modality.setdefault(
                modality,
                {
                    "calls": 0,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "cost_usd": 0.0,
                    "unpriced_calls": 0,
                    "models": [],
                },
            )
            row["calls"] += 1
            row["prompt_tokens"] += prompt_tokens
            row["completion_tokens"] += completion_tokens
            if cost_usd is None:
                row["unpriced_calls"] += 1
            else:
                row["cost_usd"] += cost_usd
            if model not in row["models"]:
                row["models"].append(model)

    def capability(self, record: dict[str, Any]) -> None:
        """Record a capability probe result this task relied on (once per endpoint, model and part kind)."""
        with self._lock:
            if record not in self.stats.capabilities:
                self.stats.capabilities.append(record)

    def drop_json_mode(self) -> None:
        """Turn `response_format=json_object` off for the rest of the task."""
        with self._lock:
            self.stats.json_mode = False


def vote(request: JudgeRequest, pairs: list[tuple[str, int]], calls: list[JudgeCall]) -> JudgeCall:
    """Majority of the decisive answers of an ensemble ((model, sample) `pairs`, one call each); a tie or no
    decisive answer is unscored."""
    votes = [
        {"model": m, "sample": i, "outcome": c.outcome, "reason": c.reason[:300], "cached": c.cached}
        for (m, i), c in zip(pairs, calls, strict=True)
    ]
    n_pass = sum(c.outcome == "pass" for c in calls)
    n_fail = sum(c.outcome == "fail" for c in calls)
    tally = f"{n_pass} pass, {n_fail} fail, {len(calls) - n_pass - n_fail} unscored of {len(calls)} votes"
    if n_pass == n_fail:
        outcome: Outcome = "unscored"
        reason = f"ensemble {'tie' if n_pass else 'has no decisive vote'}: {tally}"
    else:
        outcome = "pass" if n_pass > n_fail else "fail"
        reason = f"ensemble majority {outcome} ({tally})"
    costs = [c.cost_usd for c in calls]
    return JudgeCall(
        item_id=request.item_id,
        outcome=outcome,
        reason=reason,
        cached=all(c.cached for c in calls),
        attempts=sum(c.attempts for c in calls),
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
        cost_usd=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
        audio_included=any(c.audio_included for c in calls),
        modality=calls[0].modality if calls else None,
        delivery=sorted({k for c in calls for k in c.delivery}),
        profile=calls[0].profile if calls else None,
        votes=votes,
    )
