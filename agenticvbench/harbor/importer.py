"""`avb import harbor`: Harbor job directories -> AgenticVBench run directories that `avb verify` scores.

One run directory per (agent, model, attempt): attempt k holds, for every task, the k-th trial of that task
(ordered by start time, then trial name). `run.json` carries the harness (the agent), the model and the
repetition from the trial's config, plus `notes` (the trial's failure, see `outcomes.py`, and outputs that could
not be imported), `harbor_rewards` (the reward Harbor recorded, to compare with our score) and, under `harbor`,
each task's trial outcome. Each trial's declared output folder (`artifacts/workspace/output/`) becomes
`RUN/<task_id>/`: top-level regular files only, read through `jobfiles.JobDir` (no symlink followed, bounded
sizes). `harbor.trajectories` holds each task's trajectory facts (turns, tool calls, agent time, media
inspection; `trajectory.py`).

Infrastructure failures follow a stated policy: `zero` (default, as the official aggregation: the task is
imported with whatever the trial left, usually nothing, and scores 0) or `exclude` (no task folder; the trial is
listed under `harbor.excluded` and left out of `avb harbor metric`). Either way they are listed for rerun.
"""

from __future__ import annotations

import re
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.fsutil import atomic_write_json
from agenticvbench.harbor.checkjob import check_jobs
from agenticvbench.harbor.trials import Trial, read_trials, str_at, task_id_of
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.trial_outcomes import failure_text

OUTPUT_PARTS = ("artifacts", "workspace", "output")
MAX_OUTPUT_BYTES = 64 * 1024**3
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
INFRA_POLICIES = ("zero", "exclude")


@dataclass
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
        """A short report for the command line."""
        lines = [f"imported {self.trials} trials into {len(self.runs)} run directories"]
        lines += [f"  {p}" for p in self.runs]
        if self.outcomes:
            lines.append("trial outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items())))
        if self.infra:
            how = "left out (--infra-policy exclude)" if self.infra_policy == "exclude" else "counted 0"
            lines.append(f"{len(self.infra)} infrastructure failure(s), {how}; rerun these trials:")
            lines += [f"  {t}" for t in self.infra]
        lines += [f"skipped: {s}" for s in self.skipped]
        return "\n".join(lines)


def _copy_outputs(job: JobDir, trial: Trial, dest: Path, notes: dict[str, str]) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    parts = (trial.name, *OUTPUT_PARTS)
    for name in job.listdir(*parts):
        try:
            job.copy_file((*parts, name), dest / name, max_bytes=MAX_OUTPUT_BYTES)
        except OSError as exc:
            note = f"{trial.name}: output {name!r} not imported ({exc.strerror or exc})"
            _add_note(notes, trial.task_id, note)


def _add_note(notes: dict[str, str], tid: int, text: str, *, first: bool = False) -> None:
    old = notes.get(str(tid))
    notes[str(tid)] = "; ".join(filter(None, [text, old] if first else [old, text]))


def import_jobs(
    job_dirs: list[str | Path], out: str | Path, *, force: bool = False, infra_policy: str = "zero"
) -> ImportSummary:
    """Import Harbor job directories into run directories under `out` (see the module docstring)."""
    if infra_policy not in INFRA_POLICIES:
        raise ValueError(f"infra_policy must be one of {INFRA_POLICIES}, not {infra_policy!r}")
    summary = ImportSummary(infra_policy=infra_policy)
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    for job_path in job_dirs:
        with JobDir(job_path) as job:
            try:
                config = job.read_json("config.json")
            except SubmissionError:
                config = {}
            job_name = str_at(config, "job_name") or job.path.name
            try:
                job_id = str_at(job.read_json("result.json"), "id")
            except SubmissionError:
                job_id = ""
            comparability = check_jobs([job.path])[0]
            groups: dict[tuple[str, str], list[Trial]] = defaultdict(list)
            for t in read_trials(job, summary.skipped, trajectories=True):
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
                    outcomes: dict[str, dict[str, str]] = {}
                    excluded: dict[str, str] = {}
                    facts: dict[str, dict[str, Any]] = {}
                    for tid, ts in sorted(by_task.items()):
                        if len(ts) < rep:
                            continue
                        t = ts[rep - 1]
                        summary.trials += 1
                        summary.outcomes[t.outcome.kind] = summary.outcomes.get(t.outcome.kind, 0) + 1
                        outcomes[str(tid)] = {"outcome": t.outcome.kind, "reason": t.outcome.reason}
                        if t.outcome.kind == "infra_failure":
                            summary.infra.append(f"{job.path / t.name} (task {tid}): {t.outcome.reason}")
                            if infra_policy == "exclude":
                                excluded[str(tid)] = t.name
                                continue
                        _copy_outputs(job, t, run / str(tid), notes)
                        rewards[str(tid)] = t.reward
                        if t.facts is not None:
                            facts[str(tid)] = t.facts.to_dict()
                        for problem in t.problems:
                            _add_note(notes, tid, problem)
                        if t.outcome.kind != "scored":
                            _add_note(notes, tid, failure_text(t.outcome), first=True)
                    atomic_write_json(
                        run / "run.json",
                        {
                            "harness": agent,
                            "model": model,
                            "rep": rep,
                            "source": "harbor",
                            "harbor": {
                                "job_name": job_name,
                                "job_id": job_id,
                                "job_dir": str(job.path.resolve()),
                                "trials": {
                                    str(tid): ts[rep - 1].name
                                    for tid, ts in sorted(by_task.items())
                                    if len(ts) >= rep
                                },
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
                            "usage": {
                                str(tid): ts[rep - 1].usage
                                for tid, ts in sorted(by_task.items())
                                if len(ts) >= rep
                            },
                        },
                    )
                    summary.runs.append(run)
    return summary


__all__ = ["ImportSummary", "Trial", "import_jobs", "read_trials", "task_id_of"]
