"""Agent cost beside the scores: $ per task, total $, points per $, the score-versus-cost Pareto frontier; the report draws
and renders them (`report.cost_section`).

Costs come from the run directories' usage (`avb import harbor`) priced by `agenticvbench.cost.pricing`; a row is matched
to its cost by (harness, model). $ per task = cost over the trials with usage (the cell says how many of how many
trials had usage); points per $ = 100 x macro / ($ per task). A row is on the Pareto frontier when no other priced
row has a macro at least as high for at most its $ per task (one of the two strictly better). Rows without usage,
or with an unpriced model, have no cost: they are listed, never plotted at $0, and never on the frontier.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agenticvbench.analysis.aggregate import GroupHeadline
from agenticvbench.cost.pricing import PriceTable, load_prices
from agenticvbench.cost.table import build_cost_table
from agenticvbench.results.model import RESULTS_DIRNAME


@dataclass(kw_only=True)
class GroupCost:
    """One leaderboard row's agent cost."""

    harness: str
    model: str
    macro: float
    macro_ci: tuple[float | None, float | None]
    trials: int
    extracted: int
    total_usd: float | None
    unpriced_models: list[str]
    pareto: bool = False

    @property
    def per_task(self) -> float | None:
        """$ per trial with usage."""
        return None if self.total_usd is None or not self.extracted else self.total_usd / self.extracted

    @property
    def points_per_usd(self) -> float | None:
        """100 x macro per $ per task."""
        pt = self.per_task
        return None if not pt else 100 * self.macro / pt

    @property
    def why_no_cost(self) -> str:
        """'' when priced; else why there is no cost."""
        if self.unpriced_models:
            return "unpriced: " + ", ".join(self.unpriced_models)
        if not self.extracted:
            return f"no usage recorded ({self.trials} trial(s))" if self.trials else "no usage recorded"
        return ""


def _run_dir(path: str) -> Path:
    p = Path(path)
    return p.parent if p.name == RESULTS_DIRNAME else p


def group_costs(groups: Sequence[GroupHeadline], prices: PriceTable | None = None) -> list[GroupCost]:
    """A `GroupCost` per group, from its runs' directories, with the Pareto marks set."""
    prices = prices or load_prices()
    paths: list[str | Path] = sorted(
        {str(_run_dir(r.path)) for g in groups for r in g.runs if r.path and _run_dir(r.path).is_dir()}
    )
    rows = (
        {(r.harness, r.model): r for r in build_cost_table(paths, prices).rows if r.slice == "all"}
        if paths
        else {}
    )
    out = []
    for g in groups:
        r = rows.get((g.harness, g.model))
        out.append(
            GroupCost(
                harness=g.harness,
                model=g.model,
                macro=g.macro,
                macro_ci=g.macro_ci,
                trials=r.trials if r else 0,
                extracted=r.extracted if r else 0,
                total_usd=r.cost_usd if r else None,
                unpriced_models=r.unpriced_models if r else [],
            )
        )
    mark_pareto(out)
    return out


def mark_pareto(costs: Iterable[GroupCost]) -> None:
    """Set `pareto` on every priced row no other priced row dominates (module docstring)."""
    priced = [c for c in costs if c.per_task is not None]
    for c in priced:
        c.pareto = not any(
            o is not c
            and o.macro >= c.macro
            and o.per_task <= c.per_task  # type: ignore[operator]
            and (o.macro > c.macro or o.per_task < c.per_task)  # type: ignore[operator]
            for o in priced
        )


def any_usage(costs: Iterable[GroupCost]) -> bool:
    """True when some row has usage (otherwise cost columns would only say 'no usage')."""
    return any(c.extracted for c in costs)


def leaderboard_columns(costs: Sequence[GroupCost]) -> dict[str, dict[tuple[str, str], str]]:
    """Display columns for the leaderboard: '$/task (k/n)', 'total $', 'pts/$', 'Pareto'."""
    cols: dict[str, dict[tuple[str, str], str]] = {"$/task": {}, "total $": {}, "pts/$": {}, "Pareto": {}}
    for c in costs:
        key = (c.harness, c.model)
        cover = f" ({c.extracted}/{c.trials})"
        cols["$/task"][key] = f"{c.per_task:.4f}{cover}" if c.per_task is not None else c.why_no_cost
        cols["total $"][key] = "" if c.total_usd is None else f"{c.total_usd:.2f}"
        cols["pts/$"][key] = "" if c.points_per_usd is None else f"{c.points_per_usd:.1f}"
        cols["Pareto"][key] = "*" if c.pareto else ""
    return cols


CAPTION = (
    "Agent cost: $/task = agent cost (tokens x list prices) over the trials with usage (k/n = trials with "
    "usage / trials); pts/$ = 100 x macro / ($/task); * = on the score-versus-cost Pareto frontier. A row "
    "without usage or with an unpriced model has no cost and is never on the frontier."
)


def to_dicts(costs: Sequence[GroupCost]) -> list[dict[str, Any]]:
    """JSON-ready rows."""
    return [{**asdict(c), "per_task": c.per_task, "points_per_usd": c.points_per_usd} for c in costs]
