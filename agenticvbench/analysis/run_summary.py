"""The end-of-run summary: per run and family, the headline (missing = 0 over all dataset tasks of the family),
counts by status, and the macro and micro overall."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agenticvbench.analysis.explain import explain_result, judge_line
from agenticvbench.dataset.tasks import Task
from agenticvbench.results.model import STATUSES, Result
from agenticvbench.sanitize import one_line
from agenticvbench.verifiers import unscored_items


@dataclass
class FamilySummary:
    """One family within one run."""

    family: str
    n_tasks: int
    headline: float
    counts: dict[str, int]


@dataclass(kw_only=True)
class RunSummary:
    """Everything `avb verify` prints: per-run, per-family headlines and the problems to look at."""

    runs: list[str]
    per_run: dict[str, list[FamilySummary]] = field(default_factory=dict)
    macro: dict[str, float] = field(default_factory=dict)
    micro: dict[str, float] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)
    n_resumed: int = 0
    unscored_items: int = 0
    notes: list[str] = field(default_factory=list)
    unscored_reasons: dict[str, int] = field(default_factory=dict)
    judge: dict[str, Any] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)  # one line per run that could not be scored at all

    @property
    def n_errors(self) -> int:
        """How many tasks ended in `error` (non-zero exit code when > 0)."""
        return sum(r.status == "error" for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        """JSON form for `avb verify --json`."""
        return {
            "runs": self.runs,
            "per_run": {run: [fs.__dict__ for fs in fams] for run, fams in self.per_run.items()},
            "macro": self.macro,
            "micro": self.micro,
            "n_results": len(self.results),
            "n_resumed": self.n_resumed,
            "n_errors": self.n_errors,
            "unscored_items": self.unscored_items,
            "problems": [
                {
                    "run": r.run.get("path"),
                    "task_id": r.task_id,
                    "family": r.family,
                    "status": r.status,
                    "reason": r.reason,
                }
                for r in self.problems()
            ],
            "lost_everything": [
                {"run": r.run.get("path"), "task_id": r.task_id, "family": r.family, "why": _one_line(r)}
                for r in self.lost_everything()
            ],
            "unscored_reasons": self.unscored_reasons,
            "judge": self.judge,
            "notes": self.notes,
            "refused": self.refused,
        }

    def lost_everything(self) -> list[Result]:
        """Scored results with headline 0 (e.g. a sequencing manifest whose ids are formatted differently)."""
        zero = [r for r in self.results if r.status == "scored" and float(r.headline_score) == 0.0]
        return sorted(zero, key=lambda r: (str(r.run.get("path")), r.task_id))

    def task_lines(self) -> list[str]:
        """`avb verify -v`: one line per (run, task) saying what lost points."""
        ordered = sorted(self.results, key=lambda r: (str(r.run.get("path")), r.task_id))
        return [
            one_line(f"{r.run.get('path')} {_one_line(r)}" if len(self.runs) > 1 else _one_line(r))
            for r in ordered
        ]

    def problems(self) -> list[Result]:
        """Results that are missing, malformed or error, in run/task order."""
        bad = [r for r in self.results if r.status != "scored"]
        return sorted(bad, key=lambda r: (str(r.run.get("path")), r.task_id))

    def to_text(self, *, quiet: bool = False, notes: bool = True) -> str:
        """Human table: one block per run, then the problems (`quiet`: the tables and totals only; `notes=False`
        leaves out the `note:` lines, for a caller that logs `self.notes` itself)."""
        lines: list[str] = []
        for run, fams in self.per_run.items():
            lines.append(f"run {run}")
            lines.append(
                f"  {'family':<11} {'tasks':>5} {'headline':>9}  " + "  ".join(f"{s:>9}" for s in STATUSES)
            )
            lines += [
                f"  {fs.family:<11} {fs.n_tasks:>5} {fs.headline:>9.4f}  "
                + "  ".join(f"{fs.counts.get(s, 0):>9}" for s in STATUSES)
                for fs in fams
            ]
            lines.append(
                f"  overall macro (mean of family headlines) {self.macro[run]:.4f}; "
                f"micro (mean over tasks) {self.micro[run]:.4f}"
            )
        probs = [] if quiet else self.problems()
        if probs:
            lines.append(f"{len(probs)} task(s) not scored:")
            lines += [
                f"  [{r.status}] {r.family} {r.task_id} ({r.run.get('path')}): {r.reason}" for r in probs
            ]
        zero = [] if quiet else self.lost_everything()
        if zero:
            lines.append(
                f"{len(zero)} scored task(s) lost every point (`avb explain RUN TASK_ID` for details):"
            )
            lines += [f"  {one_line(_one_line(r))} ({r.run.get('path')})" for r in zero]
        if self.unscored_items:
            lines.append(f"{self.unscored_items} judge item(s) unscored; top reasons:")
            lines += [f"  {n}x {why}" for why, n in list(self.unscored_reasons.items())[:3]]
        if self.judge.get("calls"):
            lines.append(judge_line(self.judge))
        lines.append(
            f"{len(self.results)} result(s), {self.n_resumed} reused from a previous run"
            + (f", {self.n_errors} ERROR(s)" if self.n_errors else "")
        )
        if notes and not quiet:
            lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines)


def _one_line(result: Result) -> str:
    return explain_result(result).one_line()


def summarize(
    results: list[Result], tasks: list[Task], *, runs: list[str], notes: list[str] | None = None
) -> RunSummary:
    """Aggregate results per run with the report's rules (`agenticvbench.analysis.aggregate`): family headline = mean of
    headline_score over the family's dataset tasks, missing = 0; macro over families, micro over tasks."""
    from agenticvbench.analysis.aggregate import group_headline
    from agenticvbench.analysis.task_universe import task_universe

    by_run: dict[str, list[Result]] = {run: [] for run in runs}
    for r in results:
        by_run.setdefault(str(r.run.get("path")), []).append(r)
    summary = RunSummary(runs=runs, results=results, notes=list(notes or []))
    summary.n_resumed = sum(r.resumed for r in results)
    summary.unscored_items = sum(unscored_items(r) for r in results)
    from agenticvbench.verifiers.recap.explain import judge_usage, unscored_reasons

    summary.unscored_reasons = unscored_reasons(results)
    summary.judge = judge_usage(results)
    universe = task_universe(results, tasks=tasks)
    for run, res in by_run.items():
        if not res:
            continue
        head = group_headline(res, universe, resamples=0)
        summary.per_run[run] = [
            FamilySummary(f.family, f.n_tasks, f.mean, {k: v for k, v in f.status_counts.items() if v})
            for f in head.families.values()
        ]
        summary.macro[run] = head.macro
        summary.micro[run] = head.micro
    return summary
