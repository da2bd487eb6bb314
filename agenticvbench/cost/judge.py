"""`avb cost`'s judge section: the recap judge's calls, tokens and cost per modality, for each run.

Each recap result records what its judge spent in `extra["judge"]`: totals (`prompt_tokens`, `completion_tokens`,
`cost_usd`, `unpriced_calls`) and, per modality (visual, audio, audio_visual, video: the route of the items,
`judge.routing`), `by_modality[m]` with the calls answered, tokens, cost and the models asked. The cost was priced
when the call was made, with the judge's price table (`JudgeSettings.prices`, by default the list prices in
`judge.settings.DEFAULT_PRICES`): a call of a model without a price adds no dollars and counts as unpriced, so a
cost with unpriced calls is a lower bound and says so. A result written before the per-modality split, or whose
split does not add up to its totals, puts the difference under `unknown`, so the modalities of a run always sum to
the totals its results recorded.

Read as hostile input: counts and costs go through `cost.tokens`'s validating readers (a bad field is dropped with
a note naming the file and field).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.analysis.aggregate import run_ref
from agenticvbench.cost.table import is_job_dir, strict_json
from agenticvbench.cost.tokens import token_count, usd_amount
from agenticvbench.judge.routing import MODALITIES
from agenticvbench.results.model import Result, scan_results
from agenticvbench.sanitize import one_line
from agenticvbench.tables import latex_table, md_table

COUNTS = ("calls", "prompt_tokens", "completion_tokens", "unpriced_calls")
UNKNOWN = "unknown"
MAX_MODELS = 16


@dataclass(kw_only=True)
class JudgeModalityRow:
    """One run's judge spending on one modality (or `all`)."""

    run: str
    modality: str
    results: int = 0  # results that spent something on it
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0  # priced calls only
    unpriced_calls: int = 0
    models: list[str] = field(default_factory=list)

    def add(self, values: dict[str, Any], models: Sequence[str] = ()) -> None:
        """Add one result's (already validated) counts and cost."""
        self.results += 1
        for k in COUNTS:
            setattr(self, k, getattr(self, k) + int(values.get(k) or 0))
        self.cost_usd += float(values.get("cost_usd") or 0.0)
        new = [m for m in dict.fromkeys(models) if m not in self.models]  # once each, first seen first
        self.models += new[: MAX_MODELS - len(self.models)]

    def cells(self) -> list[str]:
        """Display cells: run, modality, models, results, calls, prompt, completion, cost."""
        cost = f"{self.cost_usd:.4f}" + (f" (+{self.unpriced_calls} unpriced)" if self.unpriced_calls else "")
        return [
            self.run,
            self.modality,
            ", ".join(self.models) or "-",
            str(self.results),
            f"{self.calls:,}",
            f"{self.prompt_tokens:,}",
            f"{self.completion_tokens:,}",
            cost,
        ]


HEADERS = ["run", "modality", "judge models", "results", "calls", "prompt", "completion", "cost ($)"]
CAPTION = (
    "Recap judge per run and modality (the items' route): calls answered, prompt and completion tokens, and cost "
    "as priced when each call was made with the judge's price table (judge.settings.DEFAULT_PRICES unless "
    "configured); '+N unpriced' = calls of a model without a price (the cost is then a lower bound); 'all' sums "
    "the modalities and equals the totals the results recorded; 'unknown' = results written before the "
    "per-modality split."
)


def _values(raw: Any, where: str, notes: list[str]) -> dict[str, Any]:
    raw = raw if isinstance(raw, dict) else {}
    out: dict[str, Any] = {k: token_count(raw.get(k), f"{where}.{k}", notes) or 0 for k in COUNTS}
    out["cost_usd"] = usd_amount(raw.get("cost_usd"), f"{where}.cost_usd", notes) or 0.0
    return out


def result_modalities(r: Result, where: str, notes: list[str]) -> dict[str, tuple[dict[str, Any], list[str]]]:
    """Modality -> (calls, tokens, cost, unpriced calls; models) one result's judge spent, with `unknown`
    holding whatever its totals have that its per-modality split does not (module docstring)."""
    judge = (r.extra or {}).get("judge") if isinstance(r.extra, dict) else None
    if not isinstance(judge, dict):
        return {}
    out: dict[str, tuple[dict[str, Any], list[str]]] = {}
    split = judge.get("by_modality")
    for m, row in (split if isinstance(split, dict) else {}).items():
        if m not in MODALITIES:
            notes.append(f"{where}: extra.judge.by_modality.{one_line(str(m))[:40]}: not a modality; ignored")
            continue
        models = row.get("models") if isinstance(row, dict) else None
        names = [one_line(x)[:100] for x in models if isinstance(x, str)] if isinstance(models, list) else []
        out[m] = (_values(row, f"{where}: extra.judge.by_modality.{m}", notes), names[:MAX_MODELS])
    # the totals' `calls` also count retried requests: with a split, the answered calls are the split's
    calls = judge.get("calls") if not out else sum(v["calls"] for v, _ in out.values())
    total = _values({**judge, "calls": calls}, f"{where}: extra.judge", notes)
    rest = {k: total[k] - sum(v[k] for v, _ in out.values()) for k in (*COUNTS, "cost_usd")}
    if any(rest[k] for k in COUNTS) or abs(rest["cost_usd"]) > 1e-6:
        out[UNKNOWN] = (rest, [])
    return out


def judge_rows(paths: Sequence[str | Path], notes: list[str]) -> list[JudgeModalityRow]:
    """Per run (in the order given) its modalities, then `all`; runs whose judge spent nothing have no rows.
    Harbor job directories hold no results and are skipped."""
    rows: list[JudgeModalityRow] = []
    for p in map(Path, paths):
        if not p.is_dir() or is_job_dir(p):
            continue
        by_mod: dict[str, JudgeModalityRow] = {}
        total: JudgeModalityRow | None = None
        for r in sorted(scan_results(p).results, key=lambda r: int(r.task_id)):
            where = f"{p}: task {r.task_id}"
            spent = result_modalities(r, where, notes)
            if not spent:
                continue
            label = run_ref(r).short
            total = total or JudgeModalityRow(run=label, modality="all")
            for m, (values, models) in spent.items():
                by_mod.setdefault(m, JudgeModalityRow(run=label, modality=m)).add(values, models)
            total.add(
                {k: sum(v[k] for v, _ in spent.values()) for k in (*COUNTS, "cost_usd")},
                [m for _, ms in spent.values() for m in ms],
            )
        order = [*MODALITIES, UNKNOWN]
        rows += [by_mod[m] for m in order if m in by_mod] + ([total] if total else [])
    return rows


def attach(text: str, fmt_name: str, rows: Sequence[JudgeModalityRow]) -> str:
    """`avb cost`'s output with the judge section added: a second table (md, latex), a `judge_by_modality` field
    (json); csv stays the agents' table alone. Unchanged when there are no rows."""
    if not rows:
        return text
    cells = [r.cells() for r in rows]
    if fmt_name == "md":
        return text + "\n" + md_table(HEADERS, cells, "lll" + "r" * 5) + f"\n\n{CAPTION}\n"
    if fmt_name == "latex":
        return text + latex_table(HEADERS, cells, caption=CAPTION, label="tab:judge-cost-modality")
    if fmt_name == "json":
        doc = json.loads(text)
        doc["judge_by_modality"] = {"caption": CAPTION, "rows": [asdict(r) for r in rows]}
        return strict_json(doc)
    return text
