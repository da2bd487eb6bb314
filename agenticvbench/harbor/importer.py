"""`avb import harbor`: Harbor job directories -> AgenticVBench run directories that `avb verify` scores.

One run directory per (agent, model, attempt): attempt k holds, for every task, the k-th trial of that task
(ordered by start time, then trial name). `run.json` carries the harness (the agent), the model and the
repetition from the trial's config, plus `notes` (trial exceptions such as an agent crash or timeout, and trials
that could not be imported) and `harbor_rewards` (the reward Harbor recorded, to compare with our score). Each
trial's declared output folder (`artifacts/workspace/output/`) becomes `RUN/<task_id>/`: top-level regular files
only, read through `jobfiles.JobDir` (no symlink followed, bounded sizes).
"""

from __future__ import annotations

import math
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.fsutil import atomic_write_json
from agenticvbench.harbor.jobfiles import JobDir
from agenticvbench.harbor.usage import trial_usage
from agenticvbench.tasks import FAMILY_ID_RANGES

OUTPUT_PARTS = ("artifacts", "workspace", "output")
MAX_OUTPUT_BYTES = 64 * 1024**3
_TASK_RE = re.compile(r"(?:^|/)(recap|sequencing|repair|assembly)-0*(\d{1,3})(?:__[^/]*)?$")
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class Trial:
    """What one trial contributes: where it sits, its task, agent, model and outcome."""

    job: str
    name: str
    task_id: int
    agent: str
    model: str
    started: str
    reward: float | None
    exception: str = ""
    usage: dict[str, Any] = field(default_factory=dict)  # `usage.TrialUsage` as a dict


@dataclass
class ImportSummary:
    """The run directories written and what was skipped (with the reason)."""

    runs: list[Path] = field(default_factory=list)
    trials: int = 0
    skipped: list[str] = field(default_factory=list)

    def to_text(self) -> str:
        """A short report for the command line."""
        lines = [f"imported {self.trials} trials into {len(self.runs)} run directories"]
        lines += [f"  {p}" for p in self.runs]
        lines += [f"skipped: {s}" for s in self.skipped]
        return "\n".join(lines)


def _str(obj: Any, *keys: str) -> str:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, str) and obj else ""


def task_id_of(result: dict[str, Any], trial_name: str) -> int | None:
    """The AgenticVBench task id of a trial, from the exported task name `<family>-<NNN>` (id in its family)."""
    for text in (_str(result, "task_name"), _str(result, "config", "task", "path"), trial_name):
        m = _TASK_RE.search(text)
        if m and int(m.group(2)) in FAMILY_ID_RANGES[m.group(1)]:
            return int(m.group(2))
    return None


def _reward(result: dict[str, Any]) -> float | None:
    rewards = result.get("verifier_result")
    rewards = rewards.get("rewards") if isinstance(rewards, dict) else None
    value: Any = rewards.get("reward") if isinstance(rewards, dict) else None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def _exception(result: dict[str, Any]) -> str:
    info = result.get("exception_info")
    if not isinstance(info, dict):
        return ""
    kind = _str(info, "exception_type") or "exception"
    return f"{kind}: {_str(info, 'exception_message')[:500]}".rstrip(": ")


def read_trials(job: JobDir, skipped: list[str]) -> list[Trial]:
    """Every trial of one job directory (a subfolder with a `result.json`)."""
    trials = []
    for name in job.listdir():
        if not job.is_dir(name) or "result.json" not in job.listdir(name):
            continue
        try:
            result = job.read_json(name, "result.json")
            if not isinstance(result, dict):
                raise SubmissionError(f"{job.path / name / 'result.json'}: top level is not an object")
        except SubmissionError as exc:
            skipped.append(str(exc))
            continue
        tid = task_id_of(result, name)
        if tid is None:
            skipped.append(f"{job.path / name}: task_name {_str(result, 'task_name')!r} is not an exported "
                           "AgenticVBench task (<family>-<id>)")
            continue
        agent = _str(result, "agent_info", "name") or _str(result, "config", "agent", "name") or "unknown"
        model = (_str(result, "config", "agent", "model_name") or _str(result, "agent_info", "model_info", "name")
                 or "none")
        trials.append(Trial(job.path.name, name, tid, agent, model, _str(result, "started_at"), _reward(result),
                            _exception(result), trial_usage(job, name, result).to_dict()))
    return trials


def _copy_outputs(job: JobDir, trial: Trial, dest: Path, notes: dict[str, str]) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    parts = (trial.name, *OUTPUT_PARTS)
    for name in job.listdir(*parts):
        try:
            job.copy_file((*parts, name), dest / name, max_bytes=MAX_OUTPUT_BYTES)
        except OSError as exc:
            note = f"{trial.name}: output {name!r} not imported ({exc.strerror or exc})"
            notes[str(trial.task_id)] = "; ".join(filter(None, [notes.get(str(trial.task_id)), note]))


def import_jobs(job_dirs: list[str | Path], out: str | Path, *, force: bool = False) -> ImportSummary:
    """Import Harbor job directories into run directories under `out` (see the module docstring)."""
    summary = ImportSummary()
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    for job_path in job_dirs:
        with JobDir(job_path) as job:
            try:
                config = job.read_json("config.json")
            except SubmissionError:
                config = {}
            job_name = _str(config, "job_name") or job.path.name
            try:
                job_id = _str(job.read_json("result.json"), "id")
            except SubmissionError:
                job_id = ""
            groups: dict[tuple[str, str], list[Trial]] = defaultdict(list)
            for t in read_trials(job, summary.skipped):
                groups[(t.agent, t.model)].append(t)
            for (agent, model), trials in sorted(groups.items()):
                by_task: dict[int, list[Trial]] = defaultdict(list)
                for t in sorted(trials, key=lambda t: (t.started, t.name)):
                    by_task[t.task_id].append(t)
                for rep in range(1, max(len(v) for v in by_task.values()) + 1):
                    name = _SAFE.sub("_", f"{job_name[:80]}__{agent[:60]}__{model[:60]}__rep{rep}")
                    run = root / name
                    if run.exists():
                        if not force:
                            raise SubmissionError(f"{run}: already exists (use --force to replace it)")
                        shutil.rmtree(run)
                    notes: dict[str, str] = {}
                    rewards: dict[str, float | None] = {}
                    for tid, ts in sorted(by_task.items()):
                        if len(ts) < rep:
                            continue
                        t = ts[rep - 1]
                        _copy_outputs(job, t, run / str(tid), notes)
                        rewards[str(tid)] = t.reward
                        if t.exception:
                            notes[str(tid)] = "; ".join(filter(None, [t.exception, notes.get(str(tid))]))
                        summary.trials += 1
                    atomic_write_json(run / "run.json", {
                        "harness": agent, "model": model, "rep": rep, "source": "harbor",
                        "harbor": {"job_name": job_name, "job_id": job_id,
                                   "job_dir": str(job.path.resolve()),
                                   "trials": {str(tid): ts[rep - 1].name for tid, ts in sorted(by_task.items())
                                              if len(ts) >= rep}},
                        "harbor_rewards": rewards, "notes": notes,
                        "usage": {str(tid): ts[rep - 1].usage for tid, ts in sorted(by_task.items()) if len(ts) >= rep}})
                    summary.runs.append(run)
    return summary
