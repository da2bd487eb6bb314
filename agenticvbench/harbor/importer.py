"""`avb import harbor`: Harbor job directories -> AgenticVBench run directories that `avb verify` scores.

One run directory per (agent, model, attempt): attempt k holds, for every task, the k-th trial of that task
(ordered by start time, then trial name). `run.json` carries the harness (the agent), the model and the
repetition from the trial's config, plus `notes` (the trial's failure, see `runs/trial_outcomes.py`, and
outputs that could not be imported), `harbor_rewards` (the reward Harbor recorded, to compare with our score)
and, under `harbor`, each task's trial outcome. Each trial's declared output folder
(`artifacts/workspace/output/`) becomes `RUN/<task_id>/`: top-level regular files only, read via
`runs.jobdir.JobDir` (no symlink followed, bounded sizes). `harbor.trajectories` holds each task's trajectory
facts (turns, tool calls, agent time, media inspection; `trajectory.py`), and the trial's `agent/trajectory.json`
is copied to `RUN/<task_id>/agent/trajectory.json` (under the trajectory reader's cap), where `avb verify` and
`avb audit` look for it (docs/guide/audit.md).

Infrastructure failures follow a stated policy: `zero` (default, as the official aggregation: the task is
imported with whatever the trial left, usually nothing, and scores 0) or `exclude` (no task folder; the trial is
listed under `harbor.excluded` and left out of `avb harbor metric`). Either way they are listed for rerun.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.fsutil import atomic_write_json, parse_json_bounded, read_capped
from agenticvbench.harbor.checkjob import check_jobs
from agenticvbench.harbor.files import clean_document, name_at, read_config, read_document
from agenticvbench.harbor.trajectory import MAX_TRAJECTORY_BYTES
from agenticvbench.harbor.trials import Trial, read_trials, task_id_of
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.submission import RUN_JSON_MAX_BYTES, cap_for, media_max_bytes
from agenticvbench.runs.trial_outcomes import failure_text
from agenticvbench.sanitize import one_line

OUTPUT_PARTS = ("artifacts", "workspace", "output")
#: The largest output copied whatever `avb verify` would accept; the per-kind caps of verify apply below it.
MAX_OUTPUT_BYTES = 64 * 1024**3
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
INFRA_POLICIES = ("zero", "exclude")
#: run.json is written at most this big, well under the cap `avb verify` reads it with.
RUN_JSON_BUDGET = RUN_JSON_MAX_BYTES * 9 // 10
STAGING_PREFIX = ".avb-import-"
#: The trial's trajectory (ATIF), copied to `RUN/<task_id>/agent/` for the trajectory audit.
TRAJECTORY_FILE = "trajectory.json"


@dataclass(kw_only=True)
class ImportSummary:
    """The run directories written and what was skipped (with the reason)."""

    runs: list[Path] = field(default_factory=list)
    trials: int = 0
    skipped: list[str] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)
    #: Infrastructure failures to rerun: "job/trial (task N): reason".
    infra: list[str] = field(default_factory=list)
    infra_policy: str = "zero"

    def to_text(self) -> str:
        """A short report for the command line (every agent-written name on one line)."""
        lines = [f"imported {self.trials} trials into {len(self.runs)} run directories"]
        lines += [f"  {one_line(p)}" for p in self.runs]
        if self.outcomes:
            lines.append("trial outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items())))
        if self.infra:
            how = "left out (--infra-policy exclude)" if self.infra_policy == "exclude" else "counted 0"
            lines.append(f"{len(self.infra)} infrastructure failure(s), {how}; rerun these trials:")
            lines += [f"  {one_line(t)}" for t in self.infra]
        lines += [f"skipped: {one_line(s)}" for s in self.skipped]
        return "\n".join(lines)


def _copy_outputs(job: JobDir, trial: Trial, dest: Path, notes: dict[str, str], media_cap: int) -> None:
    """Copy a trial's top-level output files, each under the cap `avb verify` reads its kind with (checked by
    size before a byte is copied, so a sparse file is refused by its apparent size)."""
    dest.mkdir(parents=True, exist_ok=True)
    parts = (trial.name, *OUTPUT_PARTS)
    for name in job.listdir(*parts):
        cap = min(MAX_OUTPUT_BYTES, cap_for(name, media_cap))
        try:
            job.copy_file((*parts, name), dest / name, max_bytes=cap)
        except OSError as exc:
            note = f"{one_line(trial.name)}: output {one_line(name)!r} not imported ({one_line(exc.strerror or exc)})"
            _add_note(notes, trial.task_id, note)


def _copy_trajectory(job: JobDir, trial: Trial, dest: Path, notes: dict[str, str]) -> None:
    """Copy the trial's `agent/trajectory.json` (ATIF) to `dest/agent/` for the trajectory audit, when there is
    one: a regular file under `MAX_TRAJECTORY_BYTES`, else a note."""
    parts = (trial.name, "agent", TRAJECTORY_FILE)
    if TRAJECTORY_FILE not in job.listdir(*parts[:-1]):
        return
    try:
        (dest / "agent").mkdir(parents=True, exist_ok=True)  # an output file named `agent` is an OSError
        job.copy_file(parts, dest / "agent" / TRAJECTORY_FILE, max_bytes=MAX_TRAJECTORY_BYTES)
    except OSError as exc:
        note = (
            f"{one_line(trial.name)}: agent/{TRAJECTORY_FILE} not imported ({one_line(exc.strerror or exc)})"
        )
        _add_note(notes, trial.task_id, note)


def _add_note(notes: dict[str, str], tid: int, text: str, *, first: bool = False) -> None:
    old = notes.get(str(tid))
    notes[str(tid)] = "; ".join(filter(None, [text, old] if first else [old, text]))


def _owner(run: Path) -> tuple[str, str, str] | None:
    """(harness, model, job name) of an imported run folder, from its run.json; None when it is not one."""
    try:
        data = parse_json_bounded(read_capped(run / "run.json", RUN_JSON_MAX_BYTES), str(run / "run.json"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("source") != "harbor":
        return None
    return (str(data.get("harness")), str(data.get("model")), name_at(data, "harbor", "job_name"))


def _run_folder(root: Path, owner: tuple[str, str, str], rep: int, taken: set[str], force: bool) -> Path:
    """The run folder of (agent, model, job) attempt `rep`: the readable name, or, when another agent's run
    (a name that maps to the same characters, `team/agent` and `team_agent`) holds it, the name with a digest
    of the exact identity. An existing folder of the same identity is replaced only with `force`; another
    agent's folder never is."""
    agent, model, job_name = owner
    base = _SAFE.sub("_", f"{job_name[:80]}__{agent[:60]}__{model[:60]}")
    digest = hashlib.sha256(json.dumps(list(owner)).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    for name in (f"{base}__rep{rep}", f"{base}__{digest}__rep{rep}"):
        run = root / name
        if name in taken:
            continue
        if not os.path.lexists(run):
            return run
        if _owner(run) == owner:
            if not force:
                raise SubmissionError(f"{run}: already exists (use --force to replace it)")
            return run
    raise SubmissionError(
        f"{root / base}: every name for {one_line(agent)}/{one_line(model)} is taken by another agent's run"
    )


def _fit(meta: dict[str, Any], where: Path) -> dict[str, Any]:
    """run.json as written: strict JSON (no NaN, `files.clean_document`) and under `RUN_JSON_BUDGET`, bulk parts
    dropped in order (usage, trajectories, long notes) with what was dropped listed under `harbor.trimmed`."""
    problems: list[str] = []
    meta = clean_document(meta, "run.json", problems)
    trimmed: list[str] = problems[:5]

    def size() -> int:
        return len(json.dumps({**meta, "trimmed": trimmed}, indent=2, sort_keys=True).encode())

    for part in ("usage", "trajectories", "notes"):
        if size() <= RUN_JSON_BUDGET:
            break
        if part == "usage":
            meta["usage"] = {}
        elif part == "trajectories":
            meta["harbor"]["trajectories"] = {}
        else:
            meta["notes"] = {k: v[:1000] for k, v in meta["notes"].items()}
        trimmed.append(f"{part} left out: run.json would exceed {RUN_JSON_BUDGET} bytes")
    if size() > RUN_JSON_BUDGET:
        raise SubmissionError(f"{where}: run.json would exceed {RUN_JSON_BUDGET} bytes even trimmed")
    if trimmed:
        meta["harbor"]["trimmed"] = trimmed
    return meta


def import_jobs(
    job_dirs: list[str | Path], out: str | Path, *, force: bool = False, infra_policy: str = "zero"
) -> ImportSummary:
    """Import Harbor job directories into run directories under `out` (see the module docstring).

    Every run is built in a staging folder under `out` and moved into place only when all of them are built, so
    an import that cannot finish (a refused name, a full disk, a crash) leaves nothing half-made."""
    if infra_policy not in INFRA_POLICIES:
        raise ValueError(f"infra_policy must be one of {INFRA_POLICIES}, not {infra_policy!r}")
    summary = ImportSummary(infra_policy=infra_policy)
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    media_cap = media_max_bytes()
    staging = root / f"{STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    staging.mkdir()
    built: list[tuple[Path, Path]] = []  # (staged folder, final folder)
    try:
        for job_path in job_dirs:
            with JobDir(job_path) as job:
                built += _import_job(job, staging, root, summary, force, infra_policy, media_cap, built)
        for i, (staged, final) in enumerate(built):
            if os.path.lexists(final):  # ours (checked by `_run_folder`), replaced with --force
                os.replace(final, staging / f".old-{i}")
            os.replace(staged, final)
            summary.runs.append(final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return summary


def _import_job(
    job: JobDir,
    staging: Path,
    root: Path,
    summary: ImportSummary,
    force: bool,
    infra_policy: str,
    media_cap: int,
    built: list[tuple[Path, Path]],
) -> list[tuple[Path, Path]]:
    """Build the runs of one job in `staging`; returns (staged, final) pairs."""
    out: list[tuple[Path, Path]] = []
    job_name = read_config(job, summary.skipped) or one_line(job.path.name)[:80]
    try:
        job_id = name_at(read_document(job, ("result.json",), summary.skipped), "id")
    except SubmissionError:
        job_id = ""
    comparability = check_jobs([job.path])[0]
    groups: dict[tuple[str, str], list[Trial]] = defaultdict(list)
    for t in read_trials(job, summary.skipped, trajectories=True):
        groups[(t.agent, t.model)].append(t)
    taken = {final.name for _, final in built}
    for (agent, model), trials in sorted(groups.items()):
        by_task: dict[int, list[Trial]] = defaultdict(list)
        for t in sorted(trials, key=lambda t: (t.started, t.name)):
            by_task[t.task_id].append(t)
        for rep in range(1, max(len(v) for v in by_task.values()) + 1):
            final = _run_folder(root, (agent, model, job_name), rep, taken, force)
            taken.add(final.name)
            run = staging / final.name
            run.mkdir()
            notes: dict[str, str] = {}
            rewards: dict[str, float | None] = {}
            outcomes: dict[str, dict[str, str]] = {}
            excluded: dict[str, str] = {}
            facts: dict[str, dict[str, Any]] = {}
            picked = {tid: ts[rep - 1] for tid, ts in sorted(by_task.items()) if len(ts) >= rep}
            for tid, t in picked.items():
                summary.trials += 1
                summary.outcomes[t.outcome.kind] = summary.outcomes.get(t.outcome.kind, 0) + 1
                outcomes[str(tid)] = {"outcome": t.outcome.kind, "reason": t.outcome.reason}
                if t.outcome.kind == "infra_failure":
                    summary.infra.append(f"{job.path / t.name} (task {tid}): {t.outcome.reason}")
                    if infra_policy == "exclude":
                        excluded[str(tid)] = one_line(t.name)
                        continue
                _copy_outputs(job, t, run / str(tid), notes, media_cap)
                _copy_trajectory(job, t, run / str(tid), notes)
                rewards[str(tid)] = t.reward
                if t.facts is not None:
                    facts[str(tid)] = t.facts.to_dict()
                for problem in t.problems:
                    _add_note(notes, tid, one_line(problem))
                if t.outcome.kind != "scored":
                    _add_note(notes, tid, failure_text(t.outcome), first=True)
            meta = {
                "harness": agent,
                "model": model,
                "rep": rep,
                "source": "harbor",
                "harbor": {
                    "job_name": job_name,
                    "job_id": job_id,
                    "job_dir": str(job.path.resolve()),
                    "trials": {str(tid): one_line(t.name) for tid, t in picked.items()},
                    "outcomes": outcomes,
                    "infra_policy": infra_policy,
                    "excluded": excluded,
                    "trajectories": facts,
                    "comparability": {
                        "comparable": comparability.comparable,
                        "problems": comparability.problems,
                        "dataset_digest": comparability.dataset_digest,
                    },
                },
                "harbor_rewards": rewards,
                "notes": notes,
                "usage": {str(tid): t.usage for tid, t in picked.items()},
            }
            atomic_write_json(run / "run.json", _fit(meta, final))
            out.append((run, final))
    return out


__all__ = ["ImportSummary", "Trial", "import_jobs", "read_trials", "task_id_of"]
