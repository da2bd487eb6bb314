"""Sequencing (tasks 37-64): put shuffled shots back in order. Bit-for-bit parity with the official scorer.

Official contract: the prediction is `str(segment.get("source", ""))` of each segment in list
order, compared as raw strings (no strip, no `.mp4` handling). If the prediction is not a permutation of the golden
ids (multiset compare) every score is 0 with `slot set mismatch: ...`. Otherwise, with n = len(correct):
- nd_score = 1 - sum|pos_pred - pos_correct| / floor(n^2 / 2) (nd = 0 when the denominator is 0);
- lis_score = longest strictly increasing run of golden ranks (patience sorting, bisect_left) / len(pred);
- adj_score = share of the n - 1 golden adjacent pairs kept adjacent (1.0 when n <= 1);
- final_score = 0.4 nd + 0.3 lis + 0.3 adj (legacy); adjusted_final_score = nd * lis * adj (the headline).

Beyond the official numbers: Kendall tau (permutations only), the D-S2 near-miss-id warning, and the D-S3
manifest/video consistency check (`extra`, never the headline).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from itertools import pairwise
from typing import Any, TypedDict

from agenticvbench.dataset.tasks import SequencingTask
from agenticvbench.results.model import Result
from agenticvbench.verifiers import FAMILY_SPECS, register
from agenticvbench.verifiers.base import FamilyExplanation, number
from agenticvbench.verifiers.manifest import ManifestRead, ManifestVerifier, loose_clip_id, manifest_harbor


class SequencingDetail(TypedDict):
    """A scored sequencing result's `detail` (what `avb explain` reads to list misplaced clips)."""

    pred: list[str]  # the official prediction: str() of each segment's `source`, in manifest order
    correct: list[str]  # the golden clip order


OFFICIAL_FIELDS = (
    "task_id",
    "n_slots",
    "nd_score",
    "lis_score",
    "adj_score",
    "strict_match",
    "final_score",
    "adjusted_final_score",
    "error",
)


def _zero(task_id: int, n: int, error: str) -> dict[str, Any]:
    return {"task_id": task_id, "n_slots": n, **dict.fromkeys(OFFICIAL_FIELDS[2:-1], 0.0), "error": error}


def predicted_ids(segments: list[dict[str, Any]]) -> list[str]:
    """The official prediction: raw `str()` of each segment's `source` ("" when absent), in list order."""
    return [str(seg.get("source", "")) for seg in segments]


def _lis_length(ranks: list[int]) -> int:
    tails: list[int] = []
    for r in ranks:
        i = bisect_left(tails, r)
        if i == len(tails):
            tails.append(r)
        else:
            tails[i] = r
    return len(tails)


def score_order(pred: list[str], correct: list[str], task_id: int = 0) -> dict[str, Any]:
    """The official result dict (fields in `OFFICIAL_FIELDS` order) for a predicted id order vs the golden order."""
    n = len(correct)
    if sorted(pred) != sorted(correct):
        return _zero(task_id, n, f"slot set mismatch: expected {sorted(correct)}, got {sorted(pred)}")
    rank = {c: i for i, c in enumerate(correct)}
    pos = {c: i for i, c in enumerate(pred)}
    denom = (n * n) // 2
    nd = sum(abs(pos[c] - rank[c]) for c in correct) / denom if denom else 0.0
    nd_score = 1 - nd
    lis_score = _lis_length([rank[c] for c in pred]) / len(pred) if pred else 0.0
    kept = sum(1 for a, b in pairwise(correct) if pos[b] == pos[a] + 1)
    adj_score = 1.0 if n <= 1 else kept / (n - 1)
    return {
        "task_id": task_id,
        "n_slots": n,
        "nd_score": nd_score,
        "lis_score": lis_score,
        "adj_score": adj_score,
        "strict_match": 1.0 if pred == correct else 0.0,
        "final_score": 0.4 * nd_score + 0.3 * lis_score + 0.3 * adj_score,
        "adjusted_final_score": nd_score * lis_score * adj_score,
        "error": "",
    }


def official_result(read: ManifestRead, correct: list[str], task_id: int) -> dict[str, Any]:
    """The JSON the official CLI prints for this manifest (our clean error where the official one crashes)."""
    if not read.ok:
        return _zero(task_id, len(correct), read.error)
    return score_order(predicted_ids(read.segments), correct, task_id)


def kendall_tau(pred: list[str], correct: list[str]) -> float | None:
    """Kendall's tau between the predicted and golden orders; None unless `pred` is a permutation with n >= 2.

    For permutations (no ties) tau-a equals scipy's default tau-b: (concordant - discordant) / (n(n-1)/2).
    """
    n = len(correct)
    if n < 2 or len(set(correct)) != n or sorted(pred) != sorted(correct):
        return None
    rank = {c: i for i, c in enumerate(correct)}
    r = [rank[c] for c in pred]
    disc = sum(1 for i in range(n) for j in range(i + 1, n) if r[i] > r[j])
    pairs = n * (n - 1) // 2
    return (pairs - 2 * disc) / pairs


def near_miss_warning(pred: list[str], correct: list[str]) -> str | None:
    """D-S2: a warning when ids that differ from golden ones only in formatting made the official score 0."""
    if sorted(pred) == sorted(correct):
        return None
    golden = set(correct)
    loose_golden = {loose_clip_id(c): c for c in correct}
    near = [
        (p, loose_golden[loose_clip_id(p)])
        for p in pred
        if p not in golden and loose_clip_id(p) in loose_golden
    ]
    if not near:
        return None
    shown = ", ".join(f"{p!r} for {g!r}" for p, g in near[:3]) + (" ..." if len(near) > 3 else "")
    msg = (
        f"D-S2: {len(near)} source id(s) differ from the golden ids only in formatting ({shown}); the official "
        "scorer compares raw str() ids, so the slot-set check zeroed the task"
    )
    if Counter(loose_clip_id(p) for p in pred) == Counter(loose_clip_id(c) for c in correct):
        fixed = [loose_golden[loose_clip_id(p)] for p in pred]
        adj = score_order(fixed, correct)["adjusted_final_score"]
        msg += f"; with normalised ids it would have scored adjusted_final_score {adj:.6f}"
    return msg


def orders(result: Result) -> tuple[list[str], list[str]] | None:
    """(predicted, true) clip order of a stored sequencing result (`SequencingDetail`), or None when the detail
    lacks them. Older results spelled the keys `pred_order` and `correct_order`."""
    d = result.detail or {}
    pred = d.get("pred_order", d.get("pred"))
    true = d.get("correct_order", d.get("correct"))
    if isinstance(pred, list) and isinstance(true, list):
        return [str(x) for x in pred], [str(x) for x in true]
    return None


def explain_sequencing(result: Result) -> FamilyExplanation:
    """How a stored sequencing result was computed (nd x lis x adj) and which clips are misplaced."""
    c = result.components or {}
    nd, lis, adj = (number(c.get(k)) for k in ("nd_score", "lis_score", "adj_score"))
    adjusted = result.adjusted_final_score or 0
    computation = (
        f"adjusted_final_score = nd {nd:.4f} x lis {lis:.4f} x adj {adj:.4f} = {adjusted:.4f} (legacy "
        f"final_score = 0.4 nd + 0.3 lis + 0.3 adj = {result.final_score:.4f})"
    )
    lost = [f"nd_score {nd:.3f} x lis_score {lis:.3f} x adj_score {adj:.3f} = adjusted {adjusted:.3f}"]
    found = orders(result)
    if found and sorted(found[0]) != sorted(found[1]):  # the official scorer's `slot set mismatch`: all zero
        lost.append(_mismatch(*found))
    elif found:
        pred, true = found
        wrong = [
            f"{clip} at {i + 1} (belongs at {true.index(clip) + 1})"
            for i, clip in enumerate(pred)
            if clip in true and true.index(clip) != i
        ]
        unknown = [clip for clip in pred if clip not in true]
        if wrong:
            lost.append("misplaced: " + ", ".join(wrong))
        if unknown:
            lost.append("ids not in the true order (check the id format): " + ", ".join(unknown))
    return FamilyExplanation(computation=computation, lost=lost)


def _mismatch(pred: list[str], true: list[str]) -> str:
    """Why a submitted order is not a permutation of the task's clips, in one line."""
    missing = [c for c in true if c not in pred]
    unknown = [c for c in pred if c not in true]
    repeated = sorted({c for c in pred if c in true and pred.count(c) > true.count(c)})
    parts = [f"{len(pred)} id(s) for {len(true)} clip(s)"]
    if missing:
        parts.append("missing: " + ", ".join(missing))
    if unknown:
        parts.append("not ids of this task (check the id format): " + ", ".join(unknown))
    if repeated:
        parts.append("repeated: " + ", ".join(repeated))
    return "slot set mismatch (not every clip exactly once), so every score is 0: " + "; ".join(parts)


#: The Harbor export's sequencing part: every clip once, in story order.
HARBOR = manifest_harbor(
    "correct_order", "--correct-order", "clip", lambda task: "story order (every clip exactly once)"
)


@register("sequencing")
class SequencingVerifier(ManifestVerifier):
    """Official sequencing scores plus Kendall tau, D-S2 warnings and the D-S3 video consistency extra."""

    family = "sequencing"
    headline_field = FAMILY_SPECS["sequencing"].headline_field
    version = "1.0.0"
    task_type = SequencingTask
    component_keys = ("nd_score", "lis_score", "adj_score", "strict_match")

    def official(self, read: ManifestRead, task: SequencingTask) -> dict[str, Any]:
        """The official result of this manifest against the golden order."""
        return official_result(read, task.correct_order, task.task_id)

    def failed_extra(self) -> dict[str, Any]:
        """Kendall tau is None when the manifest could not be read."""
        return {"kendall_tau": None}

    def scored_parts(
        self, read: ManifestRead, official: dict[str, Any], task: SequencingTask
    ) -> tuple[dict[str, Any], dict[str, Any], str | None]:
        """The predicted order, Kendall tau and the D-S2 warning."""
        pred, correct = predicted_ids(read.segments), task.correct_order
        detail = SequencingDetail(pred=pred, correct=list(correct))
        return dict(detail), {"kendall_tau": kendall_tau(pred, correct)}, near_miss_warning(pred, correct)

    explain = staticmethod(explain_sequencing)  # the family explains its own results
