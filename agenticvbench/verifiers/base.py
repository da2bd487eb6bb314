"""The verifier protocol, the context a verifier gets, the outcome it returns, and how it explains a result.

A verifier is a pure function of its inputs: it reads files and returns a `VerifierOutcome`. It never writes
results, prints, or decides run-level statuses; the engine (`agenticvbench.scoring.engine`) owns those. Each family also
explains its own stored results (`FamilyExplanation`), so the reports never re-read a family's detail keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from agenticvbench.dataset.tasks import Task
from agenticvbench.results.model import Result
from agenticvbench.runs.submission import Submission
from agenticvbench.verifiers import HeadlineField

OutcomeStatus = Literal["scored", "missing", "malformed"]


@dataclass(kw_only=True)
class VerifierOutcome:
    """What a verifier found for one task.

    `final_score` and `adjusted_final_score` are the official fields (`adjusted_final_score` is None for
    families without one: repair, recap). `official` holds exactly the JSON the official per-task CLI prints,
    `components` the family's named sub-scores, `extra` the metrics the official scorer lacks.
    """

    final_score: float
    adjusted_final_score: float | None = None
    status: OutcomeStatus = "scored"
    reason: str = ""
    components: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    official: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)

    def headline(self, field: HeadlineField) -> float | None:
        """The number the leaderboard averages: the value of `field`, the verifier's `headline_field` (None when
        the outcome lacks it, which the engine refuses as a non-finite score)."""
        return self.adjusted_final_score if field == "adjusted_final_score" else self.final_score


@dataclass
class FamilyExplanation:
    """What a family says about one scored result of its own (read from the stored result; nothing is rescored).

    `computation` is the headline's arithmetic in one line, `lost` the lines that cost points, `sections` named
    groups of further lines (repair: each rubric, the report.md lines read, the worst chunks), `items` a per-item
    table (recap) and `judge` the model judge's calls, tokens and cost (families with a judge).
    """

    computation: str
    lost: list[str] = field(default_factory=list)
    sections: dict[str, list[str]] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    judge: dict[str, Any] = field(default_factory=dict)


def number(value: Any, default: float = 0.0) -> float:
    """`value` as a float when it is a real number (not a bool), else `default`: for reading stored results,
    which may be hand-edited."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


@dataclass
class VerifyContext:
    """Run-wide settings a verifier may need: where caches live and how the judge is configured."""

    cache_dir: Path
    judge: Any = None  # agenticvbench.judge.JudgeSettings, or None when the run has no judge
    threads: int = 1
    options: dict[str, Any] = field(default_factory=dict)


class Verifier(Protocol):
    """One family's scorer. `version` is bumped whenever a score could change, which invalidates resumed results.

    `headline_field` names the result field leaderboards average; built-in verifiers read it from the registry's
    `FAMILY_SPECS` so reports can know it without importing the family's module.
    """

    family: str
    version: str
    headline_field: HeadlineField

    def input_files(self, task: Task, submission: Submission) -> list[Path]:
        """Files whose content determines the score (hashed for provenance and resume)."""
        ...

    def verify(self, task: Task, submission: Submission, ctx: VerifyContext) -> VerifierOutcome:
        """Score one task. Malformed input is an outcome (status `malformed`), never an exception."""
        ...

    def explain(self, result: Result) -> FamilyExplanation:
        """How a scored result of this family was computed and what lost points (optional for a plug-in
        verifier: without it, `avb explain` shows the generic explanation)."""
        ...
