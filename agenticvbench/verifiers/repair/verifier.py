"""The repair verifier: format (5) + localisation (35) + edit (60) points, as the official scorer combines them.

`score_repair` scores one (fixed.mp4, report.md, source) triple for a profile and variant, with no Task needed
(the `avb score repair` CLI uses it); `RepairVerifier` adapts it to the engine's (task, submission, context).
The rubrics are independent, as upstream: a missing report.md zeroes only localisation, a missing or unreadable
fixed.mp4 only format and edit. Where the official scorer crashes instead (a profile without a needed field, a
report.md that is not UTF-8) the outcome is a clean `malformed` with a reason naming the file and field.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, cast

from agenticvbench.dataset.tasks import Task
from agenticvbench.errors import MediaError, TaskError
from agenticvbench.media import probe
from agenticvbench.runs.submission import Submission
from agenticvbench.verifiers import FAMILY_SPECS, register
from agenticvbench.verifiers.base import VerifierOutcome, VerifyContext
from agenticvbench.verifiers.repair.constants import EDIT_MAX, FORMAT_MAX, LOC_MAX, NO_AUDIO_WARNING, clamp01
from agenticvbench.verifiers.repair.detail import EditDetail, RepairDetail
from agenticvbench.verifiers.repair.explain import explain_repair
from agenticvbench.verifiers.repair.format import FormatResult, score_format
from agenticvbench.verifiers.repair.localize import LocalizationResult, score_localization, zero_result
from agenticvbench.verifiers.repair.profiles import CellSpec, ProfileError, derive
from agenticvbench.verifiers.repair.report_grammar import read_report

DEFAULT_WORKERS = 2  # the official scorer's max_workers
FIXED_NAME, REPORT_NAME = "fixed.mp4", "report.md"


def official_json(
    task_id: Any, cell: str, variant: str, scores: dict[str, float], detail: RepairDetail, error: str = ""
) -> dict[str, Any]:
    """The official CLI's JSON: normalised rubric scores, their maxima, the weighted final score and detail."""
    fmt = clamp01(scores.get("format", 0.0) / FORMAT_MAX)
    loc = clamp01(scores.get("localization", 0.0) / LOC_MAX)
    edit = clamp01(scores.get("edit", 0.0) / EDIT_MAX)
    final = (FORMAT_MAX * fmt + LOC_MAX * loc + EDIT_MAX * edit) / (FORMAT_MAX + LOC_MAX + EDIT_MAX)
    return {
        "task_id": "" if task_id is None else str(task_id),
        "cell": cell,
        "variant": variant,
        "format_score": fmt,
        "format_max": FORMAT_MAX,
        "localization_score": loc,
        "localization_max": LOC_MAX,
        "edit_score": edit,
        "edit_max": EDIT_MAX,
        "final_score": final,
        "detail": detail,
        "error": error,
    }


def _edit_zero(error: str) -> EditDetail:
    return {"score": 0.0, "max": EDIT_MAX, "error": error}


def _zero_detail(fixed_error: str, report_error: str) -> RepairDetail:
    """Every rubric 0: format and edit with `fixed_error`, localisation with `report_error`."""
    return {
        "format": {"score": 0.0, "max": FORMAT_MAX, "error": fixed_error},
        "localization": zero_result(report_error).detail,
        "edit": _edit_zero(fixed_error),
    }


def _outcome_from(
    official: dict[str, Any],
    *,
    status: str = "scored",
    reason: str = "",
    warnings: list[str] | None = None,
    extra: dict[str, Any] | None = None,
    timings: dict[str, float] | None = None,
) -> VerifierOutcome:
    return VerifierOutcome(
        final_score=official["final_score"] if status == "scored" else 0.0,
        adjusted_final_score=None,
        status=status,  # type: ignore[arg-type]
        reason=reason,
        components={
            "format": official["format_score"],
            "localization": official["localization_score"],
            "edit": official["edit_score"],
        },
        detail=official["detail"],
        extra=extra or {},
        warnings=warnings or [],
        official=official,
        timings=timings or {},
    )


def failed_outcome(
    task_id: Any, cell: str, variant: str, reason: str, *, extra: dict[str, Any] | None = None
) -> VerifierOutcome:
    """`malformed`: every rubric 0 and `reason` as the top-level error (where the official scorer crashes or
    cannot resolve the cell/profile)."""
    return _outcome_from(
        official_json(task_id, cell, variant, {}, _zero_detail(reason, reason), reason),
        status="malformed",
        reason=reason,
        extra=extra,
    )


def _missing(task_id: Any, cell: str, variant: str, where: str) -> VerifierOutcome:
    """Neither output file exists: each rubric 0 with its own error, as the official JSON would show."""
    detail = _zero_detail(f"missing {FIXED_NAME}", f"missing {REPORT_NAME}")
    return _outcome_from(
        official_json(task_id, cell, variant, {}, detail),
        status="missing",
        reason=f"missing {FIXED_NAME} and {REPORT_NAME}{where}",
    )


def _run_edit(
    fixed: Path, source: Path, spec: CellSpec, cache_dir: Path | None, workers: int
) -> tuple[EditDetail, list[str], dict[str, float]]:
    """Call the edit rubric; an unreadable fixed/source file is edit 0 with its error, as upstream."""
    from agenticvbench.verifiers.repair.edit import score_edit  # heavy (decoding, SSIM): only when needed

    p = spec.edit
    try:
        res = score_edit(
            fixed,
            source,
            duration_s=p.duration_s,
            window=p.window,
            video_share=p.video_share,
            audio_share=p.audio_share,
            w_in=p.w_in,
            w_out=p.w_out,
            cache_dir=cache_dir,
            workers=workers,
        )
    except MediaError as exc:
        return _edit_zero(f"edit failed: {exc}"), [], {}
    detail = cast(EditDetail, dict(res.detail))
    detail["score"] = float(res.score)  # the number that enters final_score, whatever the detail says
    return detail, list(res.warnings), {f"edit_{k}": float(v) for k, v in (res.timings or {}).items()}


def _read_report(report_md: Path | None, spec: CellSpec) -> tuple[LocalizationResult, list[str]]:
    if report_md is None or not report_md.is_file():
        return zero_result("missing report.md", spec), []
    text, warnings = read_report(report_md)  # OSError handled by the caller
    return score_localization(text, spec), warnings


def _no_audio_note(fmt: FormatResult, edit_detail: EditDetail, edit_warnings: list[str]) -> list[str]:
    pr = fmt.fixed_probe
    if pr is None or pr.audio is not None or any(w.startswith("D-R8") for w in edit_warnings):
        return []
    return [NO_AUDIO_WARNING] if edit_detail.get("score", 0.0) == 0.0 else []


def score_repair(
    fixed_mp4: Path | None,
    report_md: Path | None,
    source_mp4: Path | None,
    *,
    profile: dict[str, Any],
    variant: str,
    task_id: Any = None,
    cell: str = "",
    cache_dir: Path | None = None,
    workers: int = DEFAULT_WORKERS,
) -> VerifierOutcome:
    """Score one repair submission like the official `score_task`, returning a `VerifierOutcome`.

    `fixed_mp4` / `report_md` may be None or point to absent files (the rubric scores 0 with an error);
    `source_mp4` is the cell's original. `official` holds the JSON the official CLI prints.
    """
    fixed = Path(fixed_mp4) if fixed_mp4 is not None else None
    report = Path(report_md) if report_md is not None else None
    source = Path(source_mp4) if source_mp4 is not None else None
    has_fixed = fixed is not None and fixed.is_file()
    has_report = report is not None and report.is_file()
    if not has_fixed and not has_report:
        return _missing(task_id, cell, variant, "")
    try:
        spec = derive(profile, variant)
    except ProfileError as exc:
        return failed_outcome(task_id, cell, variant, f"cell {cell or '?'}: {exc}")
    t0 = time.perf_counter()
    try:
        loc, read_warnings = _read_report(report, spec)
    except OSError as exc:
        return failed_outcome(task_id, cell, variant, f"{report}: cannot read report.md ({exc})")
    t1 = time.perf_counter()
    fmt = score_format(fixed, source)
    t2 = time.perf_counter()
    warnings = [*read_warnings, *loc.warnings]
    edit_timings: dict[str, float] = {}
    if not has_fixed:
        edit_detail = _edit_zero(f"missing {FIXED_NAME}")
    elif source is None or not source.is_file():
        edit_detail = _edit_zero("missing source.mp4")
    elif fmt.fixed_probe is None:  # cannot even be opened: upstream every chunk fails, so edit is 0
        edit_detail = _edit_zero(f"edit failed: {fmt.detail.get('error', 'fixed.mp4 cannot be opened')}")
    else:
        assert fixed is not None
        edit_detail, edit_warnings, edit_timings = _run_edit(fixed, source, spec, cache_dir, workers)
        warnings += [*spec.warnings, *edit_warnings, *_no_audio_note(fmt, edit_detail, edit_warnings)]
    t3 = time.perf_counter()
    scores = {"format": fmt.score, "localization": loc.score, "edit": float(edit_detail.get("score", 0.0))}
    detail: RepairDetail = {"format": fmt.detail, "localization": loc.detail, "edit": edit_detail}
    official = official_json(task_id, cell, variant, scores, detail)
    problems = [
        f"{name}: {part['error']}"
        for name, part in (("format", fmt.detail), ("localization", loc.detail), ("edit", edit_detail))
        if part.get("error")
    ]
    timings = {"localization_s": t1 - t0, "format_s": t2 - t1, "edit_s": t3 - t2, **edit_timings}
    return _outcome_from(
        official,
        reason="; ".join(problems),
        warnings=warnings,
        extra={"localization_parse": loc.parse},
        timings=timings,
    )


def source_of(task: Task) -> Path:
    """The task's verifier-only source video (the first .mp4 of `verifier_references()`)."""
    refs = task.verifier_references()
    mp4s = [p for p in refs if p.suffix.lower() == ".mp4"]
    if not mp4s:
        raise TaskError(task.task_id, "verifier_reference_urls", "no .mp4 source video to compare against")
    return mp4s[0]


@register("repair")
class RepairVerifier:
    """Repair family: fixed.mp4 + report.md against the cell's source video and ground-truth profile."""

    family = "repair"
    headline_field = FAMILY_SPECS["repair"].headline_field
    version = "1"

    def input_files(self, task: Task, submission: Submission) -> list[Path]:
        """fixed.mp4 and report.md when present, and the source video (a changed file invalidates resume)."""
        files = [p for p in (submission.file(FIXED_NAME), submission.file(REPORT_NAME)) if p is not None]
        return [*files, source_of(task)]

    def verify(self, task: Task, submission: Submission, ctx: VerifyContext) -> VerifierOutcome:
        """Score one task; an unreadable *source* is an environment failure, so it raises (engine `error`)."""
        fixed, report = submission.file(FIXED_NAME), submission.file(REPORT_NAME)
        cell, variant = getattr(task, "cell", ""), getattr(task, "variant", "")
        if fixed is None and report is None:
            return _missing(task.task_id, cell, variant, f" in {submission.expected_path('')}")
        source = source_of(task)
        probe(source)  # MediaError here means the dataset's source is broken, not the submission
        return score_repair(
            fixed,
            report,
            source,
            profile=getattr(task, "profile", {}),
            variant=variant,
            task_id=task.task_id,
            cell=cell,
            cache_dir=Path(ctx.cache_dir) / "repair-edit",
            workers=max(1, int(ctx.threads)),
        )

    explain = staticmethod(explain_repair)  # light: repair/explain.py
