"""`avb cost --paper`: the cost table laid out as the paper's Table 8, one row for Repurpose (the recap family)
and one for the other three families together, over every harness and model given.

Columns as the paper has them: slice, rows (trials, the missing ones included), extracted (trials with usage),
missing (trials without: kept as zero-token rows, never dropped and never free), input tokens (every prompt
token: uncached input + cache reads + cache writes, as the paper counts input), output tokens, cost (the tokens
priced with the chosen table). The slice label carries the number of families and K, the number of distinct
repetitions of a (harness, model) among its trials ("Non-Repurpose, 3 slices, K=3"). A slice with an unpriced trial has no total
(its cell names the unpriced models), never a partial sum shown as the cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from agenticvbench.cost.pricing import PriceTable, TrialCost, cost_row
from agenticvbench.cost.table import render

#: The paper's two slices: (name, families).
SLICES = (
    ("Non-Repurpose", ("sequencing", "repair", "assembly")),
    ("Repurpose", ("recap",)),
)
HEADERS = ("slice", "rows", "extracted", "missing", "input tokens", "output tokens", "cost")


@dataclass(kw_only=True)
class PaperRow:
    """One row of Table 8."""

    slice: str
    families: list[str]
    reps: int  # K: the most repetitions of one (harness, model) in the slice
    rows: int
    extracted: int
    missing: int
    input_tokens: int  # uncached input + cache reads + cache writes
    output_tokens: int
    cost_usd: float | None  # None when some trial with usage is unpriced, or no trial has usage
    unpriced_trials: int = 0
    unpriced_models: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """'Non-Repurpose, 3 slices, K=3' / 'Repurpose, K=3' (the paper's wording)."""
        n = len(self.families)
        slices = f", {n} slice{'s' if n != 1 else ''}" if self.slice != "Repurpose" else ""
        return f"{self.slice}{slices}, K={self.reps}"


def _reps(ts: Sequence[TrialCost]) -> int:
    """K: the most repetitions any (harness, model) has among `ts`."""
    per: dict[tuple[str, str], set[str]] = {}
    for t in ts:
        per.setdefault((t.harness, t.model), set()).add(t.rep or "")
    return max((len(v) for v in per.values()), default=0)


def paper_rows(trials: Sequence[TrialCost]) -> list[PaperRow]:
    """The two rows of Table 8 from priced trials (module docstring)."""
    out = []
    for name, fams in SLICES:
        ts = [t for t in trials if t.family in fams]
        r = cost_row("", "", name, ts)
        out.append(
            PaperRow(
                slice=name,
                families=[f for f in fams if any(t.family == f for t in ts)] or list(fams),
                reps=_reps(ts),
                rows=r.trials,
                extracted=r.extracted,
                missing=r.missing,
                input_tokens=r.tokens["input_tokens"]
                + r.tokens["cache_read_tokens"]
                + r.tokens["cache_write_tokens"],
                output_tokens=r.tokens["output_tokens"],
                cost_usd=r.cost_usd,
                unpriced_trials=r.unpriced_trials,
                unpriced_models=r.unpriced_models,
            )
        )
    return out


def scaled(n: int) -> str:
    """A token count as the paper prints it: 9.338B, 69.278M, 12.500K, 950."""
    for div, suffix in ((10**9, "B"), (10**6, "M"), (10**3, "K")):
        if n >= div:
            return f"{n / div:.3f}{suffix}"
    return str(n)


def cost_cell(row: PaperRow) -> str:
    """'$4,572.78', or why there is no cost."""
    if row.unpriced_trials:
        return f"unpriced: {', '.join(row.unpriced_models)} ({row.unpriced_trials} trial(s))"
    return "-" if row.cost_usd is None else f"${row.cost_usd:,.2f}"


@dataclass
class PaperTable:
    """Table 8: its rows, the prices, notes, and the trials of no family (left out, counted)."""

    rows: list[PaperRow]
    prices: PriceTable
    notes: list[str] = field(default_factory=list)
    other_trials: int = 0

    @property
    def caption(self) -> str:
        """What every figure is over, and the total when both slices are priced."""
        costs = [r.cost_usd for r in self.rows]
        total = (
            f" The two costs sum to ${sum(c for c in costs if c is not None):,.2f}."
            if all(c is not None for c in costs)
            else ""
        )
        return (
            "Agent cost laid out as the paper's Table 8: Repurpose = the recap family; Non-Repurpose = "
            "sequencing, repair and assembly; K = repetitions per (harness, model). rows = trials, extracted = trials with token "
            "usage, missing = trials without (zero-token rows, never free); input tokens = uncached + cache "
            f"reads + cache writes; cost = tokens x {self.prices.label}, over the extracted trials.{total}"
        )

    def render(self, fmt_name: str) -> str:
        """md, csv, json or latex (`cost.table.render`)."""
        rows = [
            [
                r.label,
                f"{r.rows:,}",
                f"{r.extracted:,}",
                f"{r.missing:,}",
                scaled(r.input_tokens),
                scaled(r.output_tokens),
                cost_cell(r),
            ]
            for r in self.rows
        ]
        dicts: list[dict[str, Any]] = [{"label": r.label, **asdict(r)} for r in self.rows]
        doc = {
            "caption": self.caption,
            "prices": {"version": self.prices.version, "origin": self.prices.origin},
            "rows": dicts,
            "trials_of_no_family": self.other_trials,
            "notes": self.notes,
        }
        records = [
            {
                **{k: v for k, v in d.items() if k not in ("families", "unpriced_models")},
                "families": ";".join(d["families"]),
                "unpriced_models": ";".join(d["unpriced_models"]),
            }
            for d in dicts
        ]
        return render(
            fmt_name,
            list(HEADERS),
            rows,
            caption=self.caption,
            notes=self.notes,
            doc=doc,
            records=records,
            label="tab:agent-cost-paper",
            align="l" + "r" * 6,
        )


def build_paper_table(
    trials: Sequence[TrialCost], prices: PriceTable, notes: Sequence[str] = ()
) -> PaperTable:
    """Table 8 of priced trials (`table.build_cost_table(...).trials`)."""
    other = sum(1 for t in trials if t.family == "unknown")
    extra = [f"{other} trial(s) of no family (task id outside 1-100) left out"] if other else []
    return PaperTable(paper_rows(trials), prices, [*notes, *extra], other)
