"""One scoring job and when its previous result is reused: the job record, its fingerprint, the reuse rule.

A result is reused when its fingerprint is unchanged and it is not an `error` (docs/architecture.md, "Statuses and
resume"). What a family adds to the fingerprint is declared in the verifier registry: a judged family
(`verifiers.uses_judge`) adds the judge's identity; a repair task adds its resolved ground-truth profile (any task
carrying a `profile`). Items a judge left unscored are read with `verifiers.unscored_items`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenticvbench.dataset.tasks import Task
from agenticvbench.integrity.leaks import DatasetReference
from agenticvbench.media.toolchain import toolchain_identity
from agenticvbench.results.model import Result
from agenticvbench.results.signing import KeyRef
from agenticvbench.runs.submission import Submission
from agenticvbench.trajectory.check import AUDIT_VERSION
from agenticvbench.trajectory.context import AuditContext
from agenticvbench.verifiers import unscored_items, uses_judge
from agenticvbench.verifiers.base import VerifyContext


@dataclass(kw_only=True)
class Job:
    """Everything a worker needs to score one (run, task); picklable."""

    task: Task
    submission: Submission
    out_dir: Path
    run_info: dict[str, Any]
    ctx: VerifyContext
    dataset: dict[str, Any]
    force: bool = False
    key: KeyRef | None = None  # the result key the worker signs and checks with (`signing.worker_key`)
    dataset_refs: tuple[DatasetReference, ...] = ()  # every verifier-only reference of the dataset (`leaks`)
    #: What the harness recorded about this task's trial when it failed (`avb import harbor`), shown with the score.
    trial_failure: str = ""
    #: The `excluded` result's reason when the run declares this task left out of the means (`run_exclusions`).
    excluded: str = ""
    #: What the trajectory audit knows of the dataset and the runs (`trajectory.check`); None: not audited.
    audit: AuditContext | None = None


def judge_identity(judge: Any) -> Any:
    """What about the judge changes a judged score: mode, model, endpoint host, frame sampling, prompt template."""
    from agenticvbench.judge import PROMPT_TEMPLATE_VERSION, prompt_hash
    from agenticvbench.judge.settings import judge_provenance

    prov = getattr(judge, "provenance", None)
    ident = judge_provenance(None) if judge is None else prov() if callable(prov) else repr(judge)
    return {
        "settings": ident,
        "prompt": [PROMPT_TEMPLATE_VERSION, prompt_hash()],
        "ocr_engine": os.environ.get("AVB_OCR_ENGINE", ""),
    }


def fingerprint(
    job: Job, verifier_version: str, input_hashes: dict[str, str], logs: dict[str, str] | None = None
) -> str:
    """Identity of a result's inputs: a result is reused only when this is unchanged.

    It covers the verifier version, the task's rubric (and, for repair, the resolved ground-truth profile, which
    `rubric_json` names only by cell), the resolved dataset revision, every input file's SHA-256 and, for a judged
    family, the judge's identity and prompt template, and the decoding toolchain (ffmpeg binary, PyAV and its
    libav). When the task folder holds agent logs, their SHA-256 (`trajectory.check.task_logs`) and the audit's
    version too: a changed log is audited and scored again (without logs the fingerprint is as before).
    """
    profile = getattr(job.task, "profile", None)
    payload = {
        "family": job.task.family,
        "verifier_version": verifier_version,
        "rubric": job.task.rubric_json,
        "profile": hashlib.sha256(json.dumps(profile, sort_keys=True).encode()).hexdigest()
        if profile
        else None,
        "dataset": job.dataset.get("resolved_revision"),
        "inputs": input_hashes,
        "judge": judge_identity(job.ctx.judge) if uses_judge(job.task.family) else None,
        "toolchain": toolchain_identity(),
    }
    if logs:
        payload["trajectory"] = {"logs": logs, "audit_version": AUDIT_VERSION}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def reusable(old: Result | None, fp: str, job: Job) -> bool:
    """A finished result is reused when its inputs are unchanged, it is not an `error`, and it has no judge items
    left unscored by a judge that was on (those calls failed and deserve another try)."""
    if old is None or old.fingerprint != fp or old.status == "error":
        return False
    judge_on = job.ctx.judge is not None and getattr(job.ctx.judge, "mode", "off") != "off"
    return not (judge_on and unscored_items(old) > 0)
