"""Why a task lost points: the status, the headline and how it was computed, the warnings, and what the result's
family says cost points.

Each family explains its own results (`verifiers.family_explainer`, e.g. recap: failed and unscored items with
their measured values; sequencing: misplaced clips; assembly: wrong slots; repair: the rubric breakdown, the
report.md lines read or ignored, the worst chunks); this module adds what every result has and lays it out.
Everything is read from the result file: nothing is rescored. `explain_result` builds an `Explanation` (used by
`avb explain`, `avb verify -v` and the reports); `lost_points` is the short list the family-report notebook shows.
Every line of an explanation is one line (`sanitize.one_line`): a clip id, a report.md line or a file name the
agent wrote with a line break in it never starts a line of its own in any of those outputs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agenticvbench.results.model import Result
from agenticvbench.sanitize import one_line
from agenticvbench.verifiers import explanation_leads_with_arithmetic, family_explainer, headline_name
from agenticvbench.verifiers.base import FamilyExplanation


def _not_scored(result: Result) -> str:
    return "left out of the means" if result.status == "excluded" else "counts 0"


#: Status words a scorer's message may start with; beside a `scored` status they read as a contradiction.
_STATUS_WORDS = ("malformed", "missing", "error", "invalid", "excluded")


def scorer_note(reason: str, headline: float) -> str:
    """The message a scored result carries, worded so it cannot read as a second status: the official scorers
    report e.g. `malformed: expected 4 segments, got 1` and score the task (0), which counts as scored."""
    word = reason.split(":", 1)[0].strip().lower()
    if word in _STATUS_WORDS:
        return (
            f"the official scorer's message {reason!r}; it scores this {headline:.4f}, so the task counts as "
            "scored (not rejected)"
        )
    return reason


def _family(result: Result) -> FamilyExplanation:
    """The family's explanation of a scored result; the generic one for a family that has none."""
    fn = family_explainer(result.family)
    if fn is None:
        return FamilyExplanation(computation=f"headline_score = {result.headline_score:.4f}")
    return fn(result)


def lost_points(result: Result) -> list[str]:
    """Lines explaining the points a result lost: its status reason, the family's deductions, its warnings."""
    if result.status != "scored":
        return [one_line(f"{result.status}: {result.reason or 'no reason given'}")]
    lines = list(_family(result).lost)
    if result.reason:
        lines.append(f"note: {scorer_note(result.reason, float(result.headline_score))}")
    return [one_line(x) for x in lines + [f"warning: {w}" for w in result.warnings]]


@dataclass(kw_only=True)
class Explanation:
    """Everything `avb explain` shows for one (run, task) result."""

    run: str
    task_id: int
    family: str
    status: str
    headline: float
    headline_field: str
    computation: str
    reason: str
    lost: list[str]
    sections: dict[str, list[str]] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)
    judge: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`avb explain --json`)."""
        return asdict(self)

    def one_line(self) -> str:
        """`avb verify -v`: status, task, headline and the first things that lost points, on one line."""
        head = f"[{self.status}] {self.family} {self.task_id} {self.headline:.4f}"
        if self.status != "scored":
            return f"{head}: {self.reason or 'no reason given'}"
        what = self.lost[1:] or self.lost[:1] if explanation_leads_with_arithmetic(self.family) else self.lost
        ids = sorted({w.split(":", 1)[0] for w in self.warnings if w[:2] in ("D-", "d-")})
        tail = (
            clip_words("; ".join(what), 200, f" … (more: avb explain RUN {self.task_id})") or "nothing lost"
        )
        extra = (f" [warnings {', '.join(ids)}]" if ids else "") + (
            f" [integrity {', '.join(self.integrity)}]" if self.integrity else ""
        )
        return f"{head}: {tail}{extra}"

    def to_text(self) -> str:
        """Human-readable, one block."""
        lines = [
            f"run {self.run}, task {self.task_id} ({self.family}): {self.status}, "
            f"{self.headline_field} {self.headline:.4f}",
            f"  how: {self.computation}",
        ]
        if self.reason and self.status == "scored":
            lines.append(f"  note: {scorer_note(self.reason, self.headline)}")
        elif self.reason:
            lines.append(f"  reason: {self.reason}")
        if self.integrity:
            lines.append(f"  integrity flags (not comparable): {', '.join(self.integrity)}")
        lines.append("  lost points:" if self.lost else "  lost points: none")
        lines += [f"    - {x}" for x in self.lost]
        for name, body in self.sections.items():
            lines.append(f"  {name}:")
            lines += [f"    - {x}" for x in body]
        if self.items:
            lines.append("  items:")
            lines += [
                f"    {it['outcome']:<9} {it['item_id']:<24} w {it['weight']:>5g}  {it['reason']}"
                for it in self.items
            ]
        if self.judge.get("calls") or self.judge.get("prompt_tokens"):
            lines.append(f"  {judge_line(self.judge)}")
        lines.append("  warnings:" if self.warnings else "  warnings: none")
        lines += [f"    - {w}" for w in self.warnings]
        return "\n".join(lines)


def judge_line(usage: dict[str, Any]) -> str:
    """'judge: 3 call(s), 1200 prompt + 80 completion tokens, $0.0012' (judge usage as `avb verify` and
    `avb explain` print it)."""
    cost = f", ${usage['cost_usd']:.4f}" if usage.get("cost_usd") is not None else ""
    return (
        f"judge: {usage['calls']} call(s), {usage['prompt_tokens']} prompt + {usage['completion_tokens']} "
        f"completion tokens{cost}"
    )


def clip_words(text: str, limit: int, more: str) -> str:
    """`text` if it fits in `limit` characters, else cut at the last word boundary before it, plus `more`."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ;,") + more


def explain_result(result: Result) -> Explanation:
    """The explanation of one result (see the module docstring for what each family shows)."""
    from agenticvbench.analysis.aggregate import integrity_of, run_ref

    fam = _family(result)  # a result that is not scored keeps the family's item table and judge usage only
    if result.status != "scored":
        why = _not_scored(result)
        fam = FamilyExplanation(
            computation=f"{result.status}: {why} ({result.reason or 'no reason given'})",
            lost=[f"{result.status}: {why}"],
            items=fam.items,
            judge=fam.judge,
        )
    return Explanation(
        run=one_line(run_ref(result).short),
        task_id=int(result.task_id),
        family=one_line(result.family),
        status=one_line(result.status),
        headline=float(result.headline_score),
        headline_field=headline_name(result.family),
        computation=one_line(fam.computation),
        reason=one_line(result.reason),
        lost=[one_line(x) for x in fam.lost],
        sections={one_line(k): [one_line(x) for x in v] for k, v in fam.sections.items()},
        items=[{k: one_line(v) if isinstance(v, str) else v for k, v in it.items()} for it in fam.items],
        warnings=[one_line(w) for w in result.warnings],
        integrity=[one_line(f) for f in integrity_of(result)],
        judge=fam.judge,
    )
