"""The baselines table (strategy x family mean headline) and the floor: the best trivial strategy per family.

A cell is the mean `headline_score` of one strategy over its runs x the family's tasks, with the leaderboard's
rule (a task without a result, or missing/malformed/error, counts 0). The floor of a family is the strategy with
the highest cell (ties go to the strategy listed first, the simpler one); its macro is the unweighted mean of the
family floors and its micro the task-weighted mean, as the leaderboard computes its own.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from agenticvbench.baselines.strategies import STRATEGIES
from agenticvbench.dataset.tasks import FAMILIES
from agenticvbench.results.model import Result

FORMATS = ("md", "json", "csv")
HARNESS = "baseline"
#: The columns of the per-task rows (`BaselineTable.per_task`), in CSV order.
PER_TASK_COLUMNS = ("strategy", "family", "task_id", "runs", "headline", "status", "integrity")


@dataclass(kw_only=True, frozen=True)
class Cell:
    """One strategy x family: mean headline over runs x tasks, and what it was computed over."""

    strategy: str
    family: str
    mean: float
    n_tasks: int
    n_runs: int
    flagged: int = 0  # results of the cell carrying an integrity flag


@dataclass(frozen=True)
class FloorEntry:
    """The floor of one family: the best trivial strategy and its mean."""

    family: str
    strategy: str
    mean: float
    n_tasks: int


@dataclass
class Floor:
    """The best trivial strategy per family, for one task set; `macro`/`micro` as the leaderboard's."""

    families: dict[str, FloorEntry] = field(default_factory=dict)
    macro: float | None = None
    micro: float | None = None
    source: str = ""  # where the baseline results were read from
    #: family (and macro/micro) -> mark keys of `analysis.comparability.MARKS` (filled by `floor.floor_for`)
    marks: dict[str, list[str]] = field(default_factory=dict)

    def cell(self, family: str) -> str:
        """`0.333 (numeric_order)` (`0.681! (...)` when marked), or '-' when the family has no floor."""
        from agenticvbench.analysis.comparability import symbols

        e = self.families.get(family)
        return "-" if e is None else f"{e.mean:.3f}{symbols(self.marks.get(family, []))} ({e.strategy})"

    def line(self) -> str:
        """One sentence for reports: the floor per family, named."""
        parts = [f"{f} {self.cell(f)}" for f in self.families]
        overall = (
            f"; macro {self.macro:.3f}, micro {self.micro:.3f}"
            if self.macro is not None and self.micro is not None
            else ""
        )
        return f"Floor (best trivial strategy per family, `avb baselines`, same tasks): {', '.join(parts)}{overall}."

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "families": {f: asdict(e) for f, e in self.families.items()},
            "macro": self.macro,
            "micro": self.micro,
            "source": self.source,
            "marks": {k: list(v) for k, v in self.marks.items()},
        }


def _strategy_of(r: Result) -> str:
    return str((r.run or {}).get("model", ""))


def _run_of(r: Result) -> str:
    return str((r.run or {}).get("path", ""))


@dataclass
class BaselineTable:
    """Baseline results over a task set (`tasks`: family -> ids), and the table and floor drawn from them."""

    results: list[Result]
    tasks: dict[str, tuple[int, ...]]
    root: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def families(self) -> list[str]:
        """Families with tasks, in benchmark order."""
        return [f for f in FAMILIES if self.tasks.get(f)]

    @property
    def strategies(self) -> list[str]:
        """Strategies with results, in `STRATEGIES` order."""
        present = {_strategy_of(r) for r in self.results}
        return [s.name for s in STRATEGIES if s.name in present]

    def cells(self) -> list[Cell]:
        """Every strategy x family with results (a strategy that does not apply to a family has no cell)."""
        out = []
        for s in self.strategies:
            for f in self.families:
                mine = [r for r in self.results if _strategy_of(r) == s and r.family == f]
                if not mine:
                    continue
                runs = sorted({_run_of(r) for r in mine})
                ids = self.tasks[f]
                by = {(_run_of(r), int(r.task_id)): r for r in mine}
                scores = [
                    by[(run, t)].headline_score if (run, t) in by and by[(run, t)].status == "scored" else 0.0
                    for run in runs
                    for t in ids
                ]
                out.append(
                    Cell(
                        strategy=s,
                        family=f,
                        mean=sum(scores) / len(scores),
                        n_tasks=len(ids),
                        n_runs=len(runs),
                        flagged=sum(1 for r in mine if r.integrity),
                    )
                )
        return out

    def floor(self) -> Floor:
        """The best strategy per family (first listed wins a tie), macro and micro over the family floors."""
        best: dict[str, FloorEntry] = {}
        for c in self.cells():
            if c.family not in best or c.mean > best[c.family].mean:
                best[c.family] = FloorEntry(c.family, c.strategy, c.mean, c.n_tasks)
        ordered = {f: best[f] for f in self.families if f in best}
        if not ordered:
            return Floor(source=self.root)
        macro = sum(e.mean for e in ordered.values()) / len(ordered)
        n = sum(e.n_tasks for e in ordered.values())
        micro = sum(e.mean * e.n_tasks for e in ordered.values()) / n if n else None
        return Floor(ordered, macro, micro, self.root)

    def marks(self, strategy: str, family: str) -> list[str]:
        """The leaderboard's mark keys (`analysis.comparability`) of one strategy x family: `unscored` (†) for
        recap without a judge, `integrity` (!) when some result carries a flag. Never `mixed`: a strategy's runs
        mix nothing of theirs."""
        from agenticvbench.analysis.comparability import cell_marks

        mine = [r for r in self.results if r.family == family and _strategy_of(r) == strategy]
        return [m for m in cell_marks(mine)[0] if m != "mixed"]

    def marked_floor(self) -> Floor:
        """`floor()` with the marks of the chosen strategy's cell per family, and their union on macro/micro (as a
        leaderboard row carries them)."""
        from agenticvbench.analysis.comparability import MARKS

        floor = self.floor()
        row: set[str] = set()
        for f, e in floor.families.items():
            if marks := self.marks(e.strategy, f):
                floor.marks[f] = marks
                row.update(marks)
        if row:
            floor.marks["macro"] = floor.marks["micro"] = sorted(row, key=list(MARKS).index)
        return floor

    def per_task(self) -> list[dict[str, Any]]:
        """One row per strategy x task: mean headline over the strategy's runs, status, integrity flags."""
        rows = []
        for s in self.strategies:
            for f in self.families:
                for t in self.tasks[f]:
                    mine = [r for r in self.results if _strategy_of(r) == s and int(r.task_id) == t]
                    if not mine:
                        continue
                    scores = [r.headline_score if r.status == "scored" else 0.0 for r in mine]
                    rows.append(
                        {
                            "strategy": s,
                            "family": f,
                            "task_id": t,
                            "runs": len(mine),
                            "headline": sum(scores) / len(scores),
                            "status": ",".join(sorted({r.status for r in mine})),
                            "integrity": ",".join(sorted({x for r in mine for x in r.integrity})),
                        }
                    )
        return rows

    def to_dict(self, per_task: bool = False) -> dict[str, Any]:
        """JSON-ready: the cells, the floor, the task set, and (with `per_task`) the per-task rows."""
        doc: dict[str, Any] = {
            "root": self.root,
            "tasks": {k: list(v) for k, v in self.tasks.items()},
            "cells": [asdict(c) for c in self.cells()],
            "floor": self.floor().to_dict(),
            "notes": self.notes,
        }
        if per_task:
            doc["per_task"] = self.per_task()
        return doc

    def render(self, fmt: str, *, per_task: bool = False, quiet: bool = False) -> str:
        """The table in `md`, `json` or `csv` (`quiet`: in md, the table alone, no legend or notes)."""
        if fmt == "json":
            return json.dumps(self.to_dict(per_task), indent=2) + "\n"
        if fmt == "csv":
            return self._csv(per_task)
        if fmt == "md" and quiet:
            from agenticvbench.tables import md_table

            headers, rows, _ = self._grid()
            return md_table(headers, rows, "l" + "r" * len(self.families)) + "\n"
        if fmt == "md":
            return self._markdown(per_task)
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")

    def _grid(self) -> tuple[list[str], list[list[str]], set[str]]:
        """Headers, rows (the floor row last, with the same marks as its strategy's cell) and the marks used."""
        from agenticvbench.analysis.comparability import symbols

        by = {(c.strategy, c.family): c for c in self.cells()}
        headers = ["strategy", *self.families]
        used: set[str] = set()
        rows = []
        for s in self.strategies:
            row = [s]
            for f in self.families:
                if (s, f) not in by:
                    row.append("-")
                    continue
                marks = self.marks(s, f)
                used.update(marks)
                row.append(f"{by[(s, f)].mean:.3f}{symbols(marks)}")
            rows.append(row)
        floor = self.marked_floor()
        rows.append(["floor (best trivial)", *(floor.cell(f) for f in self.families)])
        return headers, rows, used

    def _markdown(self, per_task: bool) -> str:
        from agenticvbench.tables import md_table

        headers, rows, used = self._grid()
        counts = ", ".join(f"{f} {len(self.tasks[f])}" for f in self.families)
        floor = self.floor()
        legend = {
            "unscored": "† = recap llm items unscored (no judge): the python checks only",
            "integrity": "! = some results carry integrity flags (official score kept)",
        }
        marks = "; ".join(text for key, text in legend.items() if key in used or key == "integrity")
        out = [
            md_table(headers, rows, "l" + "r" * len(self.families)),
            "",
            f"Mean headline score over runs x tasks ({counts} tasks); '-' = the strategy does not apply; "
            f"{marks}. "
            + (
                f"Floor macro {floor.macro:.3f}, micro {floor.micro:.3f}."
                if floor.macro is not None and floor.micro is not None
                else ""
            ),
        ]
        if per_task:
            keys = ("strategy", "family", "task_id", "headline", "status", "integrity")
            rows_t = [
                [str({**r, "headline": f"{r['headline']:.4f}"}[k]) for k in keys] for r in self.per_task()
            ]
            headers = ["strategy", "family", "task", "headline", "status", "integrity"]
            out += ["", md_table(headers, rows_t, "lllrll")]
        out += [f"- {n}" for n in self.notes]
        return "\n".join(out) + "\n"

    def _csv(self, per_task: bool) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        if per_task:
            w.writerow(PER_TASK_COLUMNS)
            w.writerows(
                [{**r, "headline": repr(r["headline"])}[k] for k in PER_TASK_COLUMNS] for r in self.per_task()
            )
            return buf.getvalue()
        w.writerow(["strategy", "family", "mean", "n_tasks", "n_runs", "flagged"])
        for c in self.cells():
            w.writerow([c.strategy, c.family, repr(c.mean), c.n_tasks, c.n_runs, c.flagged])
        for e in self.floor().families.values():
            w.writerow([f"floor:{e.strategy}", e.family, repr(e.mean), e.n_tasks, "", ""])
        return buf.getvalue()


def restrict(results: Iterable[Result], tasks: Mapping[str, Sequence[int]]) -> list[Result]:
    """The baseline results of the tasks in `tasks` (family -> ids) only."""
    keep = {(f, int(t)) for f, ids in tasks.items() for t in ids}
    return [
        r for r in results if (r.family, int(r.task_id)) in keep and (r.run or {}).get("harness") == HARNESS
    ]
