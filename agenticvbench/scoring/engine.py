"""The engine: turns (task, submission) pairs into persisted results.

It owns what verifiers must not: statuses for missing folders and crashes, provenance, timings, atomic writes,
resume and parallelism. One task's crash is that task's `error` result, never the run's.
"""

from __future__ import annotations

import math
import os
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agenticvbench.analysis.run_summary import RunSummary, summarize
from agenticvbench.dataset.loader import (
    DatasetSource,
    default_cache_dir,
    default_dataset,
    load_tasks,
)
from agenticvbench.dataset.selection import validate_jobs
from agenticvbench.dataset.tasks import Task
from agenticvbench.errors import AVBError, ConfigError, DatasetError, ToolError
from agenticvbench.integrity.folder import OtherFiles, pinned_others
from agenticvbench.integrity.leaks import DatasetReference, dataset_references
from agenticvbench.integrity.screen import reference_sha256, screen_inputs
from agenticvbench.media.ffmpeg import collect_tool_failures
from agenticvbench.results.folder import claim, refuse_other_runs
from agenticvbench.results.model import (
    SIGNATURE_STATUSES,
    Result,
    json_safe,
    read_result_checked,
    result_path,
    write_result,
)
from agenticvbench.results.provenance import base_provenance
from agenticvbench.results.signing import ResultKey, inside, load_key, worker_key
from agenticvbench.runs.identity import RunIdentity, duplicate_identities
from agenticvbench.runs.layout_hints import misplaced_hint
from agenticvbench.runs.pinned import Pin, PinError, pin_inputs
from agenticvbench.runs.run_plan import RunPlan, plan_runs
from agenticvbench.runs.submission import InputRejected, RunDir, cap_for, media_max_bytes
from agenticvbench.runs.trial_outcomes import run_exclusions, run_failures
from agenticvbench.scoring.executors import Executor, make_executor
from agenticvbench.scoring.job import Job, fingerprint, reusable
from agenticvbench.scoring.memory_cap import cap_hit, over_cap_reason
from agenticvbench.scoring.task_deadline import task_deadline
from agenticvbench.trajectory.check import audit_context, check_task, task_logs, unaudited_runs
from agenticvbench.verifiers import get_verifier, headline_field
from agenticvbench.verifiers.base import VerifierOutcome, VerifyContext

UNSIGNED_NOTE = "result not signed"
VANISHED = "the file changed or vanished while it was scored"
PREVIOUS_NOTE = "the previous result "


def _result(
    job: Job, status: str, reason: str = "", outcome: VerifierOutcome | None = None, **kw: Any
) -> Result:
    """The one constructor of the engine's results. Without `outcome`: a result of a status the engine decides
    (`missing`, `malformed`, `error`, `excluded`) with `reason` and the fields in `kw`. With `outcome`: the
    verifier's verdict, its scores (0 unless `scored`; a non-finite one is a ValueError, i.e. an `error`), its
    reason (plus where the outputs seem to be, when `missing`) and its diagnostics, non-finite values stored as
    null with a warning; `kw` adds the engine's fields (provenance, timings, warnings, fingerprint, integrity)."""
    if outcome is not None:
        scores = [outcome.final_score, outcome.headline(headline_field(job.task.family))]
        if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in scores):
            raise ValueError(f"verifier returned a non-finite score {scores}")
        replaced = 0
        for name in ("components", "detail", "extra", "official"):
            value, n = json_safe(getattr(outcome, name))
            kw[name] = value
            replaced += n
        if replaced:
            kw.setdefault("warnings", []).append(
                f"{replaced} non-finite diagnostic value(s) (inf/NaN) are stored as null"
            )
        scored = status == "scored"
        adjusted = outcome.adjusted_final_score
        kw["final_score"] = float(outcome.final_score) if scored else 0.0
        kw["adjusted_final_score"] = None if adjusted is None else float(adjusted) if scored else 0.0
        kw["headline_score"] = float(scores[1]) if scored else 0.0  # type: ignore[arg-type]  # finite
        hint = job.submission.task_root, job.task.task_id, job.task.family
        reason = outcome.reason + (misplaced_hint(*hint) if status == "missing" else "")
    return Result(
        task_id=job.task.task_id,
        family=job.task.family,
        status=status,  # type: ignore[arg-type]
        run=job.run_info,
        reason=reason,
        **kw,
    )


def _score(job: Job, key: ResultKey | None) -> Result:
    verifier = get_verifier(job.task.family)
    prov = base_provenance(job.dataset, verifier.version)
    if job.submission.folder is None and job.excluded:
        return _excluded(job, key, prov)
    if job.submission.folder is None:
        reason = f"no output folder for task {job.task.task_id} in the run"
        shown = f"{job.trial_failure}; {reason}" if job.trial_failure else reason  # as `score_job` words it
        return _reused(job, key, "missing", shown, prov) or _result(
            job, "missing", reason=reason, provenance=prov
        )
    t0 = time.perf_counter()
    try:
        inputs = verifier.input_files(job.task, job.submission)
        submitted = [p for p in inputs if job.submission.owns(p)]
        reference = [p for p in inputs if not job.submission.owns(p)]  # dataset files
        root = job.submission.task_root
        assert root is not None or not submitted
        with (
            pin_inputs(
                submitted, root or Path("."), lambda name: cap_for(name, job.submission.media_cap)
            ) as pins,
            pinned_others(job.submission, submitted) as others,
        ):
            by_path = {
                **{p: pin.sha256 for p, pin in pins.items()},
                **{p: reference_sha256(p) for p in reference},
            }
            every_pin = [*pins.values(), *others.pins.values()]
            return _score_pinned(
                job, verifier, prov, by_path, others, every_pin, time.perf_counter() - t0, key
            )
    except (InputRejected, PinError) as exc:  # PinError: escaped, grew past its cap, or swapped for a FIFO
        return _result(job, "malformed", reason=str(exc), provenance=prov)


def _reused(job: Job, key: ResultKey | None, status: str, reason: str, prov: dict[str, Any]) -> Result | None:
    """The previous result of a task that has nothing to score (no output folder: `missing` or `excluded`), when
    it has the same status, reason, verifier version and dataset and a valid signature; else None. Reused like
    any finished result, so a rerun does not rewrite it."""
    if job.force:
        return None
    old, _ = read_result_checked(result_path(job.out_dir, job.task.task_id), key)
    if (
        old is None
        or old.status != status
        or old.reason != reason
        or old.signature_status != "valid"
        or any((old.provenance or {}).get(k) != prov.get(k) for k in ("verifier_version", "dataset"))
    ):
        return None
    return _resume(job, old, key)


def _resume(job: Job, old: Result, key: ResultKey | None) -> Result:
    """`old`, reused: marked `resumed`, and rewritten only when the run's identity changed (run.json edited or
    the run moved: keep the result, refresh its identity)."""
    if old.run != job.run_info:
        old.run = job.run_info
        try:
            write_result(job.out_dir, old, key)
        except (
            OSError
        ) as exc:  # a full disk: the file keeps its old identity (written atomically), the score holds
            old.warnings.append(
                f"its run identity could not be refreshed on disk ({exc}); the next run tries again"
            )
    old.resumed = True
    return old


def _excluded(job: Job, key: ResultKey | None, prov: dict[str, Any]) -> Result:
    """The `excluded` result of a task the run declares left out (no output folder); a previous one with the same
    reason and a valid signature is reused, like any finished result."""
    return _reused(job, key, "excluded", job.excluded, prov) or _result(
        job,
        "excluded",
        reason=job.excluded,
        provenance=prov,
        warnings=[job.trial_failure] if job.trial_failure else [],
    )


def _drifted(job: Job, pins: list[Pin], prov: dict[str, Any], hashes: dict[str, str]) -> Result | None:
    """An `error` result (never reused) when an input changed, was replaced or removed while it was scored."""
    changed = [why for pin in pins if (why := pin.drift())]
    if not changed:
        return None
    reason = f"{VANISHED}: " + "; ".join(changed)
    return _result(job, "error", reason=reason, provenance={**prov, "input_hashes": hashes})


def _vanished(job: Job, exc: BaseException, prov: dict[str, Any]) -> Result | None:
    """An `error` naming what happened when the verifier failed because a file of the task folder is gone (the
    agent, or a harness still writing, removed it while it was scored), instead of "verifier crashed"."""
    name = getattr(exc, "filename", None)
    root = job.submission.task_root
    if not isinstance(exc, FileNotFoundError) or not name or root is None or not inside(name, root):
        return None
    return _result(
        job,
        "error",
        reason=f"{VANISHED}: {name}: removed; rescore once the run has finished writing",
        provenance=prov,
    )


def _hash_names(by_path: dict[Path, str], others: OtherFiles, folder: Path | None) -> dict[str, str]:
    """The result's `input_hashes`: each file the verifier read under its name, and each other file of the task
    folder under its path relative to the output folder (`draft/cut.mp4`, `../notes.txt`)."""
    named = {p.name: h for p, h in by_path.items()}
    return {
        **{Path(os.path.relpath(p, folder or p.parent)).as_posix(): h for p, h in others.hashes.items()},
        **named,
    }


def _score_pinned(
    job: Job,
    verifier: Any,
    prov: dict[str, Any],
    by_path: dict[Path, str],
    others: OtherFiles,
    pins: list[Pin],
    t_hash: float,
    key: ResultKey | None,
) -> Result:
    hashes = _hash_names(by_path, others, job.submission.folder)
    root = job.submission.task_root
    logs = task_logs(root) if job.audit is not None and root is not None else {}
    fp = fingerprint(job, verifier.version, hashes, logs)
    notes: list[str] = []
    if not job.force:
        path = result_path(job.out_dir, job.task.task_id)
        old, problem = read_result_checked(path, key)
        if problem:
            notes.append(f"the previous result {path} was invalid ({problem}); rescored")
        if old is not None and reusable(old, fp, job):
            if old.signature_status == "valid":  # only results this scorer wrote are reused
                return _resume(job, old, key)
            notes.append(
                f"the previous result {path} {SIGNATURE_STATUSES[old.signature_status]}; rescored, not reused"
            )
    audit = check_task(root, job.task.task_id, job.audit, logs) if job.audit and root else None
    if audit is not None:
        prov["trajectory"] = audit.provenance
    try:
        with collect_tool_failures() as tool_failures:
            screening = screen_inputs(job.task, job.submission, by_path, job.dataset_refs, others)
            outcome = verifier.verify(job.task, job.submission, job.ctx)
    except InputRejected as exc:
        return _drifted(job, pins, prov, hashes) or _result(
            job,
            "malformed",
            reason=str(exc),
            provenance={**prov, "input_hashes": hashes},
            warnings=notes,
            fingerprint=fp,
        )
    except ToolError as exc:
        return _result(job, "error", reason=f"a scoring tool failed: {exc}", provenance=prov)
    except Exception as exc:  # a verifier that failed because an input changed or vanished: say that
        if (why := _drifted(job, pins, prov, hashes) or _vanished(job, exc, prov)) is not None:
            return why
        raise
    if (drift := _drifted(job, pins, prov, hashes)) is not None:
        return drift
    if tool_failures:  # a verifier turned the failure into a failed check: still no score
        failed = "; ".join(tool_failures[:3])
        return _result(job, "error", reason=f"a scoring tool failed: {failed}", provenance=prov)
    prov.update(outcome.provenance)
    prov["input_hashes"] = hashes
    return _result(
        job,
        outcome.status,
        outcome=outcome,
        warnings=[*notes, *screening.warnings, *(audit.warnings if audit else []), *outcome.warnings],
        timings={**outcome.timings, "hash_s": round(t_hash, 4)},
        provenance=prov,
        fingerprint=fp,
        integrity=list(dict.fromkeys([*screening.flags, *(audit.flags if audit else [])])),
    )


def score_job(job: Job) -> Result:
    """Score one job and write its result atomically, signed with the job's result key when this worker holds
    it (else unsigned, with a warning). Never raises: a crash becomes an `error` result."""
    t0 = time.perf_counter()
    key, key_problem = worker_key(job.key)
    try:
        result = _score(job, key)
        if cap_hit():  # an allocation may have failed under the cap, caught by a verifier: no number
            raise MemoryError
        if result.resumed:
            return result
        if job.trial_failure and result.status not in ("scored", "excluded"):  # "not found" hides why
            result.reason = f"{job.trial_failure}; {result.reason}" if result.reason else job.trial_failure
        elif job.trial_failure and result.status == "scored":
            result.warnings.append(job.trial_failure)
    except DatasetError as exc:  # a dataset file the task needs is missing: not a crash of the verifier
        result = _result(job, "error", reason=f"dataset: {exc}")
    except MemoryError:  # over the per-task memory cap (`memory_cap`): name it, not as a crash
        result = _result(job, "error", reason=over_cap_reason())
    except Exception as exc:  # the whole point: one task's crash never stops the run
        result = _result(
            job,
            "error",
            # any failure over the cap is the cap's (a C extension's failed allocation: SystemError, ...)
            reason=over_cap_reason() if cap_hit() else f"verifier crashed: {type(exc).__name__}: {exc}",
            detail={"traceback": traceback.format_exc(limit=20)},
        )
    result.timings["total_s"] = round(time.perf_counter() - t0, 4)
    if key_problem:
        result.warnings.append(f"{UNSIGNED_NOTE}: {key_problem}; the next `avb verify` rescores it")
    try:
        write_result(job.out_dir, result, key)
    except (ValueError, TypeError) as exc:  # e.g. a NaN in the detail: keep the run going, say what happened
        result = _result(
            job, "error", reason=f"result could not be saved as JSON: {exc}", timings=result.timings
        )
        try:
            write_result(job.out_dir, result, key)
        except OSError as os_exc:
            result.reason += f"; and writing the error failed: {os_exc}"
    except OSError as exc:  # disk full, permissions: the result exists in memory only (no file, no temp file)
        result = _result(
            job,
            "error",
            reason=f"result could not be written: {exc}; not saved, the next run scores the task again",
            timings=result.timings,
        )
    return result


def _result_key(key_file: str | os.PathLike[str] | None, runs: list[RunDir]) -> tuple[ResultKey, list[str]]:
    """The result key (created on first use) and notes about it; `ConfigError` when it lies inside a run folder
    (the agent could have read or planted it)."""
    key, notes = load_key(key_file)
    assert key is not None  # load_key(create=True) returns a key or raises
    for run in runs:
        if inside(key.path, run.path):
            raise ConfigError(
                f"result key {key.path} is inside the run folder {run.path}, where the agent could "
                "have read or replaced it; keep it outside every run folder (--key-file)"
            )
    return key, notes


def _reference_index(tasks: list[Task]) -> tuple[tuple[DatasetReference, ...], list[str]]:
    """The verifier-only references of the whole dataset the tasks come from (not only the selected tasks),
    listed once per run for the cross-task leak check (`leaks`), and a note when some are not on this machine."""
    src = next((t.source for t in tasks if isinstance(t.source, DatasetSource)), None)
    universe = tasks
    if isinstance(src, DatasetSource):
        try:
            universe = load_tasks(
                dataset=src.dataset,
                revision=src.revision if src.kind == "hub" else None,
                cache_dir=src.cache_dir,
            )
        except AVBError:  # the selected tasks loaded; compare with their references at least
            universe = tasks
    refs, absent = dataset_references(universe)
    if not absent:
        return refs, []
    return refs, [
        f"{absent} verifier-only reference(s) of the dataset are not on this machine (not downloaded yet); "
        "submissions were not compared with them"
    ]


def _signature_notes(results: list[Result]) -> list[str]:
    """Summary notes: each previous result that was not trusted (invalid, or its signature did not verify), and
    results written unsigned because a worker could not hold the key."""
    notes = [w for r in results for w in r.warnings if w.startswith(PREVIOUS_NOTE)]
    unsigned = [w for r in results for w in r.warnings if w.startswith(UNSIGNED_NOTE)]
    if unsigned:
        notes.append(f"{len(unsigned)} result(s) written unsigned, first: {unsigned[0]}")
    return notes


def verify_run(
    run_dirs: str | Path | RunPlan | Sequence[str | Path | RunPlan],
    *,
    dataset: str | os.PathLike[str] | None = None,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
    family: str | None = None,
    task_ids: list[int] | None = None,
    out: str | Path | None = None,
    jobs: int | None = None,
    force: bool = False,
    executor: str | Executor = "process",
    scheduler: str | None = None,
    judge: Any = None,
    progress: bool | Callable[[int], Any] = False,
    tasks: list[Task] | None = None,
    max_media_bytes: int | None = None,
    run_meta: dict[str, Any] | None = None,
    key_file: str | os.PathLike[str] | None = None,
    task_timeout: float | None = None,
) -> RunSummary:
    """Score every task of the dataset (or the selected family/ids) for each run directory.

    Results go to `RUN/avb-results/<task_id>.json` (or `out`), written atomically; finished tasks whose inputs,
    verifier version and dataset revision are unchanged are reused unless `force`. Submitted media larger than
    `max_media_bytes` (default `$AVB_MAX_MEDIA_MB` MiB, else 4 GiB) are `malformed`. `run_meta`
    ({harness, model, rep}) overrides each run's run.json (see `identity`). Results are signed with the result
    key (`key_file`, else `$AVB_RESULT_KEY_FILE`, else the package cache's; see `signing`), which must lie outside
    every run folder, and only results whose signature verifies are reused. `task_timeout` is the per-task
    deadline in seconds (default `$AVB_TASK_TIMEOUT_S`, else 7200; see `executors`). `progress` True draws a tqdm
    bar; a callable is called with the number of jobs and returns the display to update instead (the CLI's
    `agenticvbench.cli.progress`: a bar on a terminal, heartbeat lines elsewhere). Returns the run summary.

    Each run is planned once (`run_plan.plan_runs`; a `RunPlan` may be passed instead of a path). A run that
    cannot be planned (not a run folder, a results folder that is a file or a symlink) is listed in the summary's
    `refused` and the other runs are scored; when no run can be planned its `RunPlanError` is raised.
    """
    validate_jobs(jobs)
    if isinstance(executor, str):
        task_deadline(task_timeout)  # out of range: a ConfigError before anything is planned or written
    if isinstance(run_dirs, (str, Path, RunPlan)):
        run_dirs = [run_dirs]
    given = [d for d in run_dirs if isinstance(d, RunPlan)]
    plans, refused = (
        plan_runs([d for d in run_dirs if not isinstance(d, RunPlan)], out)
        if len(given) < len(run_dirs)
        else ([], [])
    )
    plans = given + plans
    if not plans and refused:  # nothing can be scored: the run-directory error is the command's error
        raise refused[0]
    dataset = default_dataset() if dataset is None else dataset  # $AVB_DATASET, as the CLI
    if tasks is None:
        tasks = load_tasks(family, task_ids=task_ids, dataset=dataset, revision=revision, cache_dir=cache_dir)
    cache = (Path(cache_dir).expanduser() if cache_dir else default_cache_dir()).resolve()
    ctx = VerifyContext(cache_dir=cache, judge=judge, threads=1)
    runs = [plan.run for plan in plans]
    key, key_notes = _result_key(key_file, runs)
    plans, taken = refuse_other_runs(plans, key)
    refused += taken
    if not plans:
        raise refused[0]
    runs = [plan.run for plan in plans]
    refs, leak_notes = _reference_index(tasks)
    audit_ctx = audit_context(tasks, [r.path for r in runs], cache, dataset)
    media_cap = media_max_bytes(max_media_bytes)
    work: list[Job] = []
    for plan in plans:
        run_info = RunIdentity.resolve(plan.run.path, plan.run.meta, run_meta).to_dict()
        if note := claim(plan.results_dir, key, plan.run.path)[1]:
            key_notes.append(note)
        failures = run_failures(plan.run.path)
        excluded, problems = run_exclusions(plan.run.path)
        key_notes += problems
        for task in tasks:
            ds = task.source.provenance() if task.source else {"dataset": str(dataset)}
            work.append(
                Job(
                    task=task,
                    submission=plan.run.submission(task.task_id, media_cap),
                    out_dir=plan.results_dir,
                    run_info=run_info,
                    ctx=ctx,
                    dataset=ds,
                    force=force,
                    key=key.ref(),
                    dataset_refs=refs,
                    trial_failure=failures.get(task.task_id, ""),
                    excluded=excluded.get(task.task_id, ""),
                    audit=audit_ctx,
                )
            )
    ex = make_executor(executor, jobs, scheduler, task_timeout) if isinstance(executor, str) else executor
    from tqdm import tqdm

    results: list[Result] = []
    bar: Any = (
        progress(len(work))
        if callable(progress)
        else tqdm(total=len(work), unit="task", desc="scoring", dynamic_ncols=True, disable=not progress)
    )
    try:
        for res in ex.map_unordered(score_job, work):
            results.append(res)
            bar.set_postfix_str(f"{res.family} {res.task_id}: {res.status}", refresh=False)
            bar.update(1)
    finally:
        bar.close()
        ex.close()
    notes = [n for r in runs for n in r.notes] + key_notes + leak_notes + _signature_notes(results)
    notes += unaudited_runs(results)
    notes += [
        f"{r.run.get('path', '')}: task {r.task_id}: INTEGRITY {', '.join(r.integrity)} (official score "
        "kept; see the result's warnings)"
        for r in results
        if r.integrity
    ]
    notes += duplicate_identities(
        (j.run_info["harness"], j.run_info["model"], j.run_info["rep"], j.run_info["path"]) for j in work
    )
    summary = summarize(results, tasks, runs=[str(r.path) for r in runs], notes=notes)
    summary.refused = [str(exc) for exc in refused]
    return summary
