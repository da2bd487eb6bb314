"""The task universe: which tasks count in a comparison, per family, and a label saying why.

Which tasks count is explicit and labelled, because it decides what a missing task costs (it counts 0 in
`agenticvbench.analysis.aggregate`):
- ``dataset``: the task list of a dataset (pass `tasks=`: Task objects or {family: ids});
- ``full-benchmark``: the families' published id ranges (`FAMILY_ID_RANGES`) plus any id found in the results;
- ``observed`` (default): every task that has a result in any run of the comparison.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agenticvbench.dataset.tasks import FAMILIES, FAMILY_ID_RANGES
from agenticvbench.results.model import Result


@dataclass(frozen=True)
class TaskUniverse:
    """The tasks that count, per family (in `FAMILIES` order), and how they were chosen (`basis`)."""

    tasks: dict[str, tuple[int, ...]]
    basis: str
    source: str = ""

    @property
    def families(self) -> list[str]:
        """Families with at least one task."""
        return [f for f in FAMILIES if self.tasks.get(f)] + [f for f in self.tasks if f not in FAMILIES]

    @property
    def n_tasks(self) -> int:
        """Total number of tasks."""
        return sum(len(v) for v in self.tasks.values())

    @property
    def label(self) -> str:
        """One line saying which tasks count and why (shown beside every table)."""
        counts = ", ".join(f"{f} {len(self.tasks[f])}" for f in self.families)
        why = {
            "dataset": f"every task of the dataset {self.source}".rstrip(),
            "full-benchmark": "the full benchmark (published id ranges 1-100, plus any id found in the results)",
            "observed": "every task that has a result in at least one run of this comparison",
        }.get(self.basis, self.basis)
        return f"Tasks counted: {why} ({self.n_tasks}: {counts}); a task without a result counts 0."


def task_universe(
    results: Iterable[Result], *, tasks: Any = None, full_benchmark: bool = False, source: str = ""
) -> TaskUniverse:
    """Decide which tasks count. `tasks` (Task objects or {family: ids}) wins over `full_benchmark`."""
    results = list(results)
    found: dict[str, set[int]] = {}
    if tasks is not None:
        basis = "dataset"
        if isinstance(tasks, Mapping):
            for fam, ids in tasks.items():
                found.setdefault(str(fam), set()).update(int(i) for i in ids)
        else:
            for t in tasks:
                found.setdefault(str(t.family), set()).add(int(t.task_id))
    else:
        basis = "full-benchmark" if full_benchmark else "observed"
        if full_benchmark:
            for fam, ids in FAMILY_ID_RANGES.items():
                found.setdefault(fam, set()).update(ids)
        for r in results:
            found.setdefault(r.family, set()).add(int(r.task_id))
    order = [f for f in FAMILIES if f in found] + sorted(f for f in found if f not in FAMILIES)
    return TaskUniverse({f: tuple(sorted(found[f])) for f in order if found[f]}, basis, source)


def split_by_universe(results: Iterable[Result], universe: TaskUniverse) -> tuple[list[Result], list[Result]]:
    """(results whose task counts, results outside the universe) - the latter are reported, never averaged."""
    counted = {(f, t) for f, ids in universe.tasks.items() for t in ids}
    kept: list[Result] = []
    outside: list[Result] = []
    for r in results:
        (kept if (r.family, int(r.task_id)) in counted else outside).append(r)
    return kept, outside
