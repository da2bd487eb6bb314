"""The recap verifier: the public rubric runner's contract with an OpenAI-compatible judge.

Statuses:
- `missing`: no `final.mp4` (score 0);
- `malformed`: the rubric is invalid (no items, an item without an id, an unknown dispatch or kind: D-C4), or
  `final.mp4` is not a readable video (zero bytes, corrupt, or no video stream). Upstream would run every check on
  such a file, fail them all and let failed negative items deduct, ending at 0 too; we say why in one line and
  spend no judge calls. Score 0 either way.
- `scored`: everything else, including when the judge is off, unreachable or unreadable for some items. Those
  items are `unscored`: excluded from earned, total_positive and deductions, counted in
  `components["unscored"]`, listed in `reason`, and a `warnings` entry says the score covers only the scored
  items. A task whose positive items are ALL unscored scores 0 (total_positive = 0), with the same reason.

Upstream refused to score anything without `GEMINI_API_KEY`; here a missing key or endpoint only leaves the
llm items unscored, and the python checks still count.

`official` is the JSON the public recap CLI printed (task_id, n_items, items, pillar_breakdown, final_score,
error), with unscored items shown as `passed: null, score: null`; `n_items` counts distinct item ids (duplicates
resolved last-wins). `extra["judge"]` has the call, cache, token and
cost counts (and tokens per modality); `provenance` names the judge model, endpoint host, profile, prompt template
version and prompt hash, and the capability probes the judge relied on (`judge_capabilities`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agenticvbench.dataset.tasks import Task
from agenticvbench.errors import MediaError
from agenticvbench.fsutil import file_sha256
from agenticvbench.judge import JudgeCache, JudgeSettings, VideoJudge
from agenticvbench.judge.profiles import DEFAULT_PROFILE, get_profile
from agenticvbench.judge.settings import judge_provenance
from agenticvbench.media import probe
from agenticvbench.runs.submission import Submission
from agenticvbench.verifiers import FAMILY_SPECS, register
from agenticvbench.verifiers.base import VerifierOutcome, VerifyContext
from agenticvbench.verifiers.recap.detail import OfficialItem
from agenticvbench.verifiers.recap.explain import explain_recap
from agenticvbench.verifiers.recap.rubric import RubricError, aggregate, parse_rubric
from agenticvbench.verifiers.recap.runner import KindBackend, default_backend, run_rubric

VERSION = "1.0.0"
OUTPUT_FILE = "final.mp4"


def _official(
    task_id: int | None,
    n_items: int,
    items: list[OfficialItem],
    breakdown: dict[str, Any],
    final: float,
    error: str,
) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "n_items": n_items,
        "items": items,
        "pillar_breakdown": breakdown,
        "final_score": final,
        "error": error,
    }


def _provenance(settings: JudgeSettings | None) -> dict[str, Any]:
    """The verifier's provenance: version, the judge profile's template version and hash, the judge settings."""
    profile = get_profile(settings.profile if settings is not None else DEFAULT_PROFILE)
    return {
        "verifier": "recap",
        "verifier_version": VERSION,
        "prompt_template_version": profile.template_version,
        "prompt_hash": profile.prompt_hash(),
        **judge_provenance(settings),
    }


def _zero(status: str, reason: str, task_id: int | None, settings: JudgeSettings | None) -> VerifierOutcome:
    return VerifierOutcome(
        final_score=0.0,
        status=status,  # type: ignore[arg-type]
        reason=reason,
        official=_official(task_id, 0, [], {}, 0.0, reason),
        provenance=_provenance(settings),
    )


def _human_lookup(
    settings: JudgeSettings, cache_root: Path | None, task_id: int | None, video: Path
) -> Callable[[str], tuple[Any, str, list[dict[str, Any]]]] | None:
    """Mode `human`: item id -> majority of the stored human verdicts on this very video (by SHA-256)."""
    if settings.mode != "human" or cache_root is None or task_id is None:
        return None
    from agenticvbench.judge.human_store import VerdictStore, majority

    sha = file_sha256(video)
    by_key = VerdictStore(cache_root / "grades").by_key(settings.graders or None)
    return lambda item_id: majority(by_key.get((task_id, item_id, sha), {}))


def score_recap(
    final_mp4: str | Path | None,
    items: Any,
    *,
    judge_settings: JudgeSettings | None,
    cache_dir: str | Path | None,
    task_id: int | None = None,
    backend: KindBackend | None = None,
    openai_client: Any = None,
) -> VerifierOutcome:
    """Score one recap output against raw rubric items (no Task needed); see the module docstring.

    `judge_settings` None means the judge is off. `cache_dir` holds the judge cache (`judge/`) and the media
    facts cache (`recap-media/`); None disables both. `backend` and `openai_client` are injection points for tests.
    """
    t0 = time.perf_counter()
    if final_mp4 is None or not Path(final_mp4).is_file():
        return _zero("missing", f"{final_mp4 or OUTPUT_FILE}: not found", task_id, judge_settings)
    video = Path(final_mp4)
    backend = backend or default_backend()
    try:
        rubric, warnings = parse_rubric(items, known_kinds=backend.known_kinds)
    except RubricError as exc:
        return _zero("malformed", f"malformed rubric: {exc}", task_id, judge_settings)
    try:
        info = probe(video)
        if info.video is None:
            raise MediaError(f"{video}: no video stream")
    except MediaError as exc:
        return _zero("malformed", f"{OUTPUT_FILE} is not a readable video: {exc}", task_id, judge_settings)
    cache_root = Path(cache_dir) if cache_dir is not None else None
    facts = backend.make_facts(video, cache_root / "recap-media" if cache_root else None)
    loudness = backend.loudness_facts
    settings_used = judge_settings or JudgeSettings(mode="off")
    judge = VideoJudge(
        settings_used,
        video,
        cache=JudgeCache(cache_root / "judge") if cache_root else None,
        audio_facts=(lambda: loudness(facts)) if loudness else None,
        client=openai_client,
        human=_human_lookup(settings_used, cache_root, task_id, video),
        task_id=task_id,
    )
    try:
        report = run_rubric(rubric, facts=facts, judge=judge, backend=backend)
    except RubricError as exc:
        return _zero("malformed", f"malformed rubric: {exc}", task_id, judge_settings)
    finally:
        close = getattr(facts, "close", None)
        if close is not None:
            close()  # no measurement pass outlives its task
    score = aggregate(rubric, {r.item.id: r.outcome for r in report.results})
    unscored = [r for r in report.results if r.outcome == "unscored"]
    reason = ""
    if unscored:
        causes = sorted({r.reason.split(":")[0] for r in unscored})
        listed = ", ".join(r.item.id for r in unscored[:20]) + (", ..." if len(unscored) > 20 else "")
        reason = (
            f"{len(unscored)} of {len(rubric)} items unscored ({'; '.join(causes)}): {listed}; "
            f"the score covers the {len(rubric) - len(unscored)} scored items only"
        )
        warnings.append(
            f"score covers only the {len(rubric) - len(unscored)} scored items; "
            f"{len(unscored)} llm item(s) unscored and excluded from earned, total and deductions"
        )
    if score.total_positive <= 0:
        warnings.append("no scored positive-weight items: final_score is 0 by the formula's rule")
    warnings += [f"item '{r.item.id}': {n}" for r in report.results for n in r.notes]
    warnings += [f"judge: {n}" for n in judge.stats.notes]
    warnings += [
        f"media cache not written (scores unaffected): {e}" for e in getattr(facts, "cache_errors", [])
    ]
    official_items = [r.official() for r in report.results]
    return VerifierOutcome(
        final_score=score.final_score,
        status="scored",
        reason=reason,
        components={
            "earned": score.earned,
            "deductions": score.deductions,
            "total_positive": score.total_positive,
            "n_items": len(rubric),
            "passed": score.passed,
            "failed": score.failed,
            "unscored": score.unscored,
            "deducted_items": score.deducted_items,
            "pillar_breakdown": score.pillar_breakdown,
        },
        detail={"items": [r.detail() for r in report.results]},
        extra={"judge": {**judge.stats.to_dict(), "mode": judge.settings.mode}},
        warnings=warnings,
        official=_official(
            task_id, len(rubric), official_items, score.pillar_breakdown, score.final_score, ""
        ),
        timings={**report.timings, "total_s": time.perf_counter() - t0},
        provenance={
            **_provenance(judge_settings),
            **({"judge_capabilities": judge.stats.capabilities} if judge.stats.capabilities else {}),
        },
    )


@register("recap")
class RecapVerifier:
    """Recap (tasks 1-36): rubric items on `final.mp4` (python checks + LLM judge)."""

    family = "recap"
    headline_field = FAMILY_SPECS["recap"].headline_field
    version = VERSION

    def input_files(self, task: Task, submission: Submission) -> list[Path]:
        """`final.mp4` when present."""
        return [f for f in (submission.file(OUTPUT_FILE),) if f is not None]

    def verify(self, task: Task, submission: Submission, ctx: VerifyContext) -> VerifierOutcome:
        """Score one task; the judge comes from `ctx.judge` (None: off), caches live under `ctx.cache_dir`."""
        final = submission.file(OUTPUT_FILE)
        if final is None:
            return _zero(
                "missing", f"{submission.expected_path(OUTPUT_FILE)}: not found", task.task_id, ctx.judge
            )
        items = getattr(task, "items", None)
        return score_recap(
            final, items, judge_settings=ctx.judge, cache_dir=ctx.cache_dir, task_id=task.task_id
        )

    explain = staticmethod(explain_recap)  # light: recap/explain.py
