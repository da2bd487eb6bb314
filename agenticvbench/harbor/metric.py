"""`avb harbor metric JOB...`: the dataset's headline numbers straight from Harbor job directories.

Harbor 0.26 hands a dataset metric (`metric.py`, a uv script) only the list of reward mappings, not which task
each came from, so a metric that groups by family would need the family inside `reward.json`, and Harbor's
default mean would then average that key over every trial again. The family metric is therefore computed here,
from the trials' `result.json` (task name and the reward Harbor recorded, which is our headline), exactly as
`avb leaderboard` defines it: per (agent, model), attempt k of every task is run k; a family's headline is the
mean over runs x the family's tasks, a task without a reward (no trial, a crash) counts 0; macro = mean of the
family headlines; micro = mean over all run x task cells. With `infra_policy="exclude"` an infrastructure
failure's cell is left out of the means instead (the counts say how many). A trial whose recorded reward is
not a reward (not a number, outside [0, 1]: `files.TrialResult`) is invalid: its cell counts 0 and it is
listed, so 1e6 and -3 never enter a mean. Names are printed one line each (`sanitize.one_line`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.dataset.tasks import FAMILIES, FAMILY_ID_RANGES
from agenticvbench.errors import SubmissionError
from agenticvbench.harbor.trials import Trial, read_trials
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.sanitize import one_line, tsv_cell
from agenticvbench.tables import md_table


@dataclass(kw_only=True)
class GroupMetric:
    """One (agent, model): the headlines and how many cells each rests on."""

    agent: str
    model: str
    runs: int
    families: dict[str, float]
    macro: float
    micro: float
    cells: int
    excluded: int = 0
    infra_failures: list[str] = field(default_factory=list)
    #: Trials whose reward is not a reward: "job/trial (task N): why"; their cells count 0.
    invalid: list[str] = field(default_factory=list)
    #: Cells counted 0 because no reward was recorded (no trial for the task in that run, or no reward in it).
    no_reward: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form (what `--json` prints)."""
        return asdict(self)


def _universe(trials: list[Trial], listing: dict[str, Any] | None) -> dict[str, list[int]]:
    ids: set[int] = {t.task_id for t in trials}
    if listing is not None:
        ids = {
            int(t["task_id"])
            for t in listing.get("tasks", [])
            if isinstance(t, dict) and isinstance(t.get("task_id"), int)
        }
    return {f: ids_f for f in FAMILIES if (ids_f := [i for i in sorted(ids) if i in FAMILY_ID_RANGES[f]])}


def group_metrics(
    trials: list[Trial], *, listing: dict[str, Any] | None = None, infra_policy: str = "zero"
) -> list[GroupMetric]:
    """The metric per (agent, model) over `trials` (all jobs together), tasks from `listing` or observed."""
    universe = _universe(trials, listing)
    groups: dict[tuple[str, str], list[Trial]] = defaultdict(list)
    for trial in trials:
        groups[(trial.agent, trial.model)].append(trial)
    out = []
    for (agent, model), ts in sorted(groups.items()):
        by_task: dict[int, list[Trial]] = defaultdict(list)
        for trial in sorted(ts, key=lambda t: (t.started, t.name)):
            by_task[trial.task_id].append(trial)
        runs = max(len(v) for v in by_task.values())
        fams: dict[str, float] = {}
        sizes: dict[str, int] = {}
        infra: list[str] = []
        invalid: list[str] = []
        excluded = no_reward = 0
        for fam, ids in universe.items():
            cells: list[float] = []
            for rep in range(runs):
                for tid in ids:
                    t = by_task[tid][rep] if len(by_task.get(tid, ())) > rep else None
                    if t is not None and t.outcome.kind == "infra_failure":
                        infra.append(f"{t.job}/{t.name} (task {tid})")
                        if infra_policy == "exclude":
                            excluded += 1
                            continue
                    if t is not None and t.invalid:
                        invalid.append(f"{t.job}/{t.name} (task {tid}): {t.invalid}")
                    if t is None or t.reward is None:
                        no_reward += 1
                    cells.append(t.reward if t is not None and t.reward is not None else 0.0)
            fams[fam] = sum(cells) / len(cells) if cells else 0.0
            sizes[fam] = len(cells)
        total = sum(sizes.values())
        out.append(
            GroupMetric(
                agent=agent,
                model=model,
                runs=runs,
                families=fams,
                macro=sum(fams.values()) / len(fams) if fams else 0.0,
                micro=sum(fams[f] * sizes[f] for f in fams) / total if total else 0.0,
                cells=total,
                infra_failures=infra,
                excluded=excluded,
                invalid=invalid,
                no_reward=no_reward,
            )
        )
    return out


def job_metrics(
    job_dirs: list[str | Path], *, tasks_dir: str | Path | None = None, infra_policy: str = "zero"
) -> tuple[list[GroupMetric], list[str]]:
    """Read the jobs (hostile input, as `avb import harbor`) and compute `group_metrics`; returns the skipped."""
    skipped: list[str] = []
    trials: list[Trial] = []
    for path in job_dirs:
        with JobDir(path) as job:
            trials += read_trials(job, skipped)
    listing = None
    if tasks_dir is not None:
        from agenticvbench.harbor.export import LISTING

        with JobDir(tasks_dir) as export:
            listing = export.read_json(LISTING)
        if not isinstance(listing, dict):
            raise SubmissionError(f"{Path(tasks_dir) / LISTING}: top level is not an object")
    return group_metrics(trials, listing=listing, infra_policy=infra_policy), skipped


FORMATS = ("tsv", "md", "json")


def _table(
    groups: list[GroupMetric], cell: Callable[[str], str] = one_line
) -> tuple[list[str], list[list[str]]]:
    """Headers and one-line cells: agent, model, runs, each family, macro, micro, the counted problems; the
    agent-chosen names go through `cell` (`sanitize.tsv_cell` for TSV: no formula, no tab)."""
    fams = [f for f in FAMILIES if any(f in g.families for g in groups)]
    headers = ["agent", "model", "runs", *fams, "macro", "micro", "infra_failures", "invalid", "no_reward"]
    rows = [
        [
            cell(g.agent),
            cell(g.model),
            str(g.runs),
            *(f"{g.families.get(f, 0.0):.4f}" for f in fams),
            f"{g.macro:.4f}",
            f"{g.micro:.4f}",
            str(len(g.infra_failures)),
            str(len(g.invalid)),
            str(g.no_reward),
        ]
        for g in groups
    ]
    return headers, rows


def notes(groups: list[GroupMetric]) -> list[str]:
    """One line per invalid trial, and one per row with cells that had no reward (each counted 0)."""
    out = []
    for g in groups:
        name = f"{one_line(g.agent)}/{one_line(g.model)}"
        out += [f"invalid (counted 0): {name}: {one_line(i)}" for i in g.invalid]
        if g.no_reward:
            out.append(
                f"no reward (counted 0): {name}: {g.no_reward} of {g.cells} cell(s) (no trial for the task in "
                "that run, or Harbor recorded no reward)"
            )
    return out


def to_text(groups: list[GroupMetric], fmt_name: str = "tsv") -> str:
    """The table as TSV (default) or Markdown, then the notes (`notes`); `json` is the list of `to_dict`s.
    Every cell is one line (`sanitize.one_line`; Markdown cells through `tables.md_table`); a TSV name cell
    starting with a formula character is defused as in CSV (`sanitize.tsv_cell`)."""
    if fmt_name == "json":
        return json.dumps([g.to_dict() for g in groups], indent=2, allow_nan=False)
    if fmt_name == "md":
        body = md_table(*_table(groups))
    elif fmt_name == "tsv":
        headers, rows = _table(groups, cell=tsv_cell)
        body = "\n".join("\t".join(r) for r in [headers, *rows])
    else:
        raise ValueError(f"unknown format {fmt_name!r}; expected one of {', '.join(FORMATS)}")
    return "\n".join([body, *notes(groups)])
