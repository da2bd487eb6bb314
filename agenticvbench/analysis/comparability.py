"""Which leaderboard and report cells are not comparable, and how much of each row has results (coverage).

A cell (one (harness, model) x family, or its macro/micro) is marked when its number cannot be put beside other
rows or beside a published reference as it is:

- `unscored` (†): recap results with llm items left unscored (judge off, failed, or a replay miss), so the score
  covers only the python checks;
- `mixed` (‡): the cell's results mix dataset revisions, verifier versions or (recap) judge settings, or come
  from a Harbor job that is not leaderboard-grade (a timeout multiplier or resource override, recorded by
  `avb import harbor` from `avb harbor check-job`);
- `integrity` (!): some result carries integrity flags (e.g. `audio_only`, `identical_to_input`);
- `uncalibrated` (◊): recap results scored by a model judge that has no passing calibration against human grades
  on this benchmark for a modality it judged (`analysis.calibration`; † was taken, so the mark is ◊).

Coverage is stated beside every row: cells with a result file / cells counted (runs x tasks of the universe).
Judge usage (calls, tokens, cost) is summed per run; signatures (`results.signatures`) are counted per row.
Infrastructure failures (cells whose Harbor trial failed in the sandbox, not the agent; `aggregate.infra_failures`)
are counted per row and listed for rerun.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from agenticvbench.analysis.aggregate import NO_RESULT, GroupHeadline, group_results, integrity_of, run_ref
from agenticvbench.analysis.reward_agreement import harbor_job_problems
from agenticvbench.judge.calibration import KAPPA_LOWER, MIN_ITEMS
from agenticvbench.results.model import INVALID_STATUS, Result
from agenticvbench.results.signatures import signature_counts
from agenticvbench.verifiers import unscored_items, uses_judge
from agenticvbench.verifiers.recap.explain import judge_usage

#: mark key -> (symbol, legend sentence)
MARKS: dict[str, tuple[str, str]] = {
    "unscored": (
        "†",
        "recap llm items unscored (judge off or failed): the score covers the python checks only and "
        "is not comparable with judged scores or the published reference",
    ),
    "mixed": (
        "‡",
        "the cell mixes dataset revisions, verifier versions or judge settings, or comes from a Harbor "
        "job with a timeout multiplier or resource override",
    ),
    "integrity": ("!", "some results carry integrity flags (e.g. audio_only, identical_to_input)"),
    "uncalibrated": (
        "◊",
        "judge not calibrated: recap items judged by a model judge without a passing calibration against human "
        f"grades on this benchmark (avb judge agree --write-calibration: kappa's 95% lower bound >= {KAPPA_LOWER} "
        f"over >= {MIN_ITEMS} human-graded items of each judged modality); read these recap numbers as the "
        "judge's, not as grades",
    ),
}

#: Why a cell's results are not calibrated (`analysis.calibration.CalibrationGate.uncalibrated`); [] when they are.
Uncalibrated = Callable[[Sequence[Result]], list[str]]


def judge_identity(prov: dict[str, Any]) -> dict[str, Any] | None:
    """The judge identity of a result: a `judge` block, or the recap verifier's flat `judge_*` keys."""
    if isinstance(prov.get("judge"), dict):
        return prov["judge"]
    if "judge_mode" not in prov and "judge_model" not in prov:
        return None
    off = prov.get("judge_mode") == "off"  # older results of mode off named the unused default model
    return {
        "mode": prov.get("judge_mode"),
        "model": None if off else prov.get("judge_model"),
        "prompt_hash": prov.get("prompt_hash"),
        "prompt_template_version": prov.get("prompt_template_version"),
        "profile": None if off else prov.get("judge_profile") or "legacy",  # results before profiles: legacy
    }


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def dataset_key(r: Result) -> str:
    """The dataset (name and resolved revision) a result was scored against, as a comparable string."""
    d = (r.provenance or {}).get("dataset")
    if isinstance(d, dict):
        return _key([d.get("dataset"), d.get("resolved_revision") or d.get("revision")])
    return _key(d)


def verifier_key(r: Result) -> str:
    """The verifier version a result was scored with, as a comparable string."""
    return _key((r.provenance or {}).get("verifier_version"))


def cell_marks(
    results: Sequence[Result], uncalibrated: Uncalibrated | None = None
) -> tuple[list[str], list[str]]:
    """(mark keys, human-readable reasons) for the results of one cell; `uncalibrated` (the command's calibration
    gate) decides the `uncalibrated` mark (without it the mark is never set)."""
    marks: list[str] = []
    why: list[str] = []
    unscored = [r for r in results if unscored_items(r) > 0]
    if unscored:
        marks.append("unscored")
        why.append(f"{len(unscored)} recap result(s) with llm items unscored")
    mixed = []
    datasets = {dataset_key(r) for r in results if (r.provenance or {}).get("dataset") is not None}
    if len(datasets) > 1:
        mixed.append(f"{len(datasets)} dataset revisions")
    scored = [r for r in results if r.status == "scored"]
    for fam in sorted({r.family for r in scored}):  # versions and judges differ between families by design
        of_fam = [r for r in scored if r.family == fam]
        versions = {verifier_key(r) for r in of_fam}
        if len(versions) > 1:
            mixed.append(f"{len(versions)} {fam} verifier versions")
        if uses_judge(fam):
            judges = {_key(judge_identity(r.provenance or {})) for r in of_fam}
            if len(judges) > 1:
                mixed.append(f"{len(judges)} judge settings")
    overridden = {p for r in results for p in harbor_job_problems(run_ref(r).path)}
    if overridden:
        mixed.append("a Harbor job that is not comparable (" + "; ".join(sorted(overridden)[:3]) + ")")
    if mixed:
        marks.append("mixed")
        why.append("mixes " + ", ".join(mixed))
    flagged = [r for r in results if integrity_of(r)]
    if flagged:
        marks.append("integrity")
        flags = sorted({f for r in flagged for f in integrity_of(r)})
        why.append(f"{len(flagged)} result(s) with integrity flags ({', '.join(flags)})")
    missing = uncalibrated(results) if uncalibrated is not None else []
    if missing:
        marks.append("uncalibrated")
        why.append(
            "judge not calibrated (" + "; ".join(missing[:4]) + (", ..." if len(missing) > 4 else "") + ")"
        )
    return marks, why


def annotate(
    groups: Iterable[GroupHeadline], results: Sequence[Result], uncalibrated: Uncalibrated | None = None
) -> None:
    """Fill each group's `marks`, `mark_notes`, `coverage` and `judge` (per run) from its results; `uncalibrated`
    is the command's calibration gate (`Aggregation.calibration.uncalibrated`)."""
    by_group = group_results(results)
    for g in groups:
        rs = by_group.get((g.harness, g.model), [])
        g.marks, g.mark_notes = {}, []
        for fam in g.families:
            marks, why = cell_marks([r for r in rs if r.family == fam], uncalibrated)
            if marks:
                g.marks[fam] = marks
                g.mark_notes += [f"{fam}: {w}" for w in why]
        row_marks, row_why = cell_marks(rs, uncalibrated)
        row_marks = sorted(set(row_marks) | {m for ms in g.marks.values() for m in ms}, key=list(MARKS).index)
        if row_marks:
            g.marks["macro"] = g.marks["micro"] = row_marks
            g.mark_notes += [f"row: {w}" for w in row_why if not any(w in n for n in g.mark_notes)]
        total = sum(g.status_counts.values())
        # an invalid result file is no result: it counts 0 and does not cover its cell
        no_result = g.status_counts.get(NO_RESULT, 0) + g.status_counts.get(INVALID_STATUS, 0)
        g.coverage = {"with_result": total - no_result, "counted": total}
        g.judge = {run.path: judge_usage([r for r in rs if run_ref(r).path == run.path]) for run in g.runs}
        g.signatures = signature_counts(rs)


def symbols(keys: Sequence[str]) -> str:
    """The mark symbols of a cell ('' when comparable)."""
    return "".join(MARKS[k][0] for k in keys if k in MARKS)


def coverage_text(g: GroupHeadline) -> str:
    """'17/20' (cells with a result / cells counted)."""
    c = getattr(g, "coverage", None) or {}
    return f"{c.get('with_result', '?')}/{c.get('counted', '?')}"


def infra_text(g: GroupHeadline) -> str:
    """The infra column: infrastructure failures in the row, and how many of them are left out (excluded; a cell
    left out by --exclude-flagged is not one)."""
    n = len(g.infra)
    excl = sum(1 for line in g.infra if line.endswith("(excluded)"))
    return f"{n} ({excl} excl.)" if excl else str(n)


def infra_lines(groups: Iterable[GroupHeadline]) -> list[str]:
    """Footer lines listing every row's infrastructure failures for rerun (excluded, or counted 0)."""
    return [
        f"Infrastructure failures to rerun, {g.harness}/{g.model} ({len(g.infra)}, "
        f"{g.n_excluded} excluded from the means): " + "; ".join(g.infra)
        for g in groups
        if g.infra
    ]


def judge_total(g: GroupHeadline) -> dict[str, Any]:
    """Judge usage of a group, summed over its runs."""
    out: dict[str, Any] = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None}
    for u in (getattr(g, "judge", None) or {}).values():
        for k in ("calls", "prompt_tokens", "completion_tokens"):
            out[k] += int(u.get(k) or 0)
        if u.get("cost_usd") is not None:
            out["cost_usd"] = (out["cost_usd"] or 0.0) + float(u["cost_usd"])
    return out


def judge_text(usage: dict[str, Any]) -> str:
    """'3 calls, 1200+80 tok, $0.0012' ('' when the judge was not called)."""
    if not usage.get("calls") and not usage.get("prompt_tokens"):
        return ""
    cost = f", ${usage['cost_usd']:.4f}" if usage.get("cost_usd") is not None else ""
    return f"{usage['calls']} calls, {usage['prompt_tokens']}+{usage['completion_tokens']} tok{cost}"


def legend(groups: Iterable[GroupHeadline]) -> list[str]:
    """Legend sentences for the marks that appear in `groups`."""
    used = {m for g in groups for ms in (getattr(g, "marks", None) or {}).values() for m in ms}
    return [f"{sym} = {text}" for key, (sym, text) in MARKS.items() if key in used]
