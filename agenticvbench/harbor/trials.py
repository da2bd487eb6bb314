"""The trials of a Harbor job directory: task, agent, model, start, Harbor's reward and the outcome of each.

Shared by `avb import harbor`, `avb harbor metric` and `avb harbor check-job`; each `result.json` is read
through its strict reader (`files.TrialResult`: finite numbers, capped one-line names, a reward in [0, 1] or
the trial invalid). The task id comes from the exported task name `<family>-<NNN>` (id within its family's
range).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.cost.pricing import TrialCost, family_of
from agenticvbench.cost.usage import trial_usage
from agenticvbench.dataset.tasks import FAMILY_ID_RANGES
from agenticvbench.errors import SubmissionError
from agenticvbench.harbor.files import read_trial_result, value_at
from agenticvbench.harbor.trajectory import TrajectoryFacts, trial_facts
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.trial_outcomes import Outcome, classify

_TASK_RE = re.compile(r"(?:^|/)(recap|sequencing|repair|assembly)-0*(\d{1,3})(?:__[^/]*)?$")


@dataclass(kw_only=True)
class Trial:
    """What one trial contributes: where it sits, its task, agent, model and outcome."""

    job: str
    name: str
    task_id: int
    agent: str
    model: str
    started: str
    reward: float | None
    outcome: Outcome = field(default_factory=lambda: Outcome("scored"))
    facts: TrajectoryFacts | None = None
    problems: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)  # `usage.TrialUsage` as a dict
    #: Why the trial's recorded reward is not a reward (not a number, outside [0, 1]); '' when it is valid.
    invalid: str = ""


def task_id_of(result: dict[str, Any], trial_name: str) -> int | None:
    """The AgenticVBench task id of a trial, from the exported task name `<family>-<NNN>` (id in its family)."""
    for text in (value_at(result, "task_name"), value_at(result, "config", "task", "path"), trial_name):
        m = _TASK_RE.search(text) if isinstance(text, str) else None
        if m and int(m.group(2)) in FAMILY_ID_RANGES[m.group(1)]:
            return int(m.group(2))
    return None


def read_trials(job: JobDir, skipped: list[str], *, trajectories: bool = False) -> list[Trial]:
    """Every trial of one job directory (a subfolder with a `result.json`); with `trajectories`, each trial's
    trajectory facts too (`trajectory.py`)."""
    trials = []
    for name in job.listdir():
        if not job.is_dir(name) or "result.json" not in job.listdir(name):
            continue
        try:
            checked = read_trial_result(job, name)
        except SubmissionError as exc:
            skipped.append(str(exc))
            continue
        result = checked.data
        tid = task_id_of(result, name)
        if tid is None:
            skipped.append(
                f"{job.path / name}: task_name {checked.task_name[:80]!r} is not an exported "
                "AgenticVBench task (<family>-<id>)"
            )
            continue
        trial = Trial(
            job=job.path.name,
            name=name,
            task_id=tid,
            agent=checked.agent,
            model=checked.model,
            started=checked.started_at,
            reward=checked.reward,
            outcome=classify(result),
            problems=list(checked.notes),
            usage=trial_usage(job, name, result).to_dict(),
            invalid=checked.invalid,
        )
        if trajectories:
            trial.facts = trial_facts(job, name, result, trial.problems)
        trials.append(trial)
    return trials


def job_trial_costs(path: Path, notes: list[str]) -> list[TrialCost]:
    """The trials of a Harbor job directory as `avb cost` rows (usage unpriced), notes for unreadable trials."""
    with JobDir(path) as job:
        trials = read_trials(job, notes)
    return [
        TrialCost(
            harness=t.agent,
            model=t.model,
            rep="",
            task_id=t.task_id,
            family=family_of(t.task_id),
            usage=t.usage or None,
        )
        for t in trials
    ]
