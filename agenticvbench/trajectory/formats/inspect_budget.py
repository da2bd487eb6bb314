"""What one task folder's Inspect logs may cost, all of them together: a budget of samples, JSON values and
unpacked bytes handed to inspect_ai's reader.

The caps of `inspect_log` bound one sample (`MAX_VALUES`, `MAX_SAMPLE_BYTES`) and one log (`MAX_SAMPLES`), and
`locate` reads up to `locate.MAX_LOGS` logs per task folder. A sample at its caps costs seconds, so two small
archives of 32 such samples each held one task for two minutes. The budget is spent across the task's logs, in
`locate.candidates` order: a sample is read only when it fits in what is left (its declared unpacked size
checked before it is inflated, its values, `fsutil.json_values`, before it is parsed); a JSON log, read whole,
is charged its whole document. Once a sample does not fit, the rest of the task's samples are not read: a
one-line note, and the log is listed among the task's unreadable ones (`unread_part`), so a task whose logs were
over budget is never clean.

The budget belongs to one open run (`JobDir`) and one task: `avb audit`, `avb verify` and each `avb view` request
open their own. Reading the same log again for the same task first gives back what its previous reading spent,
so a second reading (the viewer's) comes out as the first.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from agenticvbench.runs.jobdir import JobDir

#: Samples of one task read across its logs: 32 epochs in each of two logs.
MAX_TASK_SAMPLES = 64
#: JSON values of one task's samples: five epochs of a realistic 5,000-call sample (770,000 values each).
MAX_TASK_VALUES = 4_000_000
#: Unpacked bytes of one task's samples: five epochs of that sample (40 MiB each), and some.
MAX_TASK_BYTES = 256 * 1024 * 1024
_UNITS = ("samples", "JSON values", "unpacked bytes")


class BudgetSpent(Exception):
    """A sample (or a JSON log) does not fit in what is left of the task's budget; its text says which part."""


@dataclass(kw_only=True)
class TaskBudget:
    """What the task's logs have spent, per log path: (samples, JSON values, unpacked bytes); and, per log, why
    part of it was not read."""

    spent: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    cut: dict[str, str] = field(default_factory=dict)

    def open(self, path: str) -> None:
        """Start reading log `path`: what an earlier reading of it spent is given back."""
        self.spent.pop(path, None)
        self.cut.pop(path, None)

    def take(
        self, path: str, *, samples: int = 0, values: int = 0, nbytes: int = 0, charge: bool = True
    ) -> None:
        """Charge log `path` with a sample's (or a document's) cost; `BudgetSpent`, nothing charged, when it does
        not fit in what is left. `charge` False only checks."""
        cost, limits = (samples, values, nbytes), (MAX_TASK_SAMPLES, MAX_TASK_VALUES, MAX_TASK_BYTES)
        used = [sum(s[i] for s in self.spent.values()) for i in range(3)]
        for i in range(3):
            if used[i] + cost[i] > limits[i]:
                raise BudgetSpent(
                    f"the task's budget of {limits[i]:,} {_UNITS[i]} for its Inspect logs is spent "
                    f"({used[i]:,} read, {cost[i]:,} more wanted)"
                )
        if charge:
            had = self.spent.get(path, (0, 0, 0))
            self.spent[path] = (had[0] + samples, had[1] + values, had[2] + nbytes)

    def stop(self, path: str, why: str) -> None:
        """Log `path` was not read to its end: `why` (one line), for `unread_part`."""
        self.cut[path] = why


_budgets: weakref.WeakKeyDictionary[JobDir, dict[int | None, TaskBudget]] = weakref.WeakKeyDictionary()


def of(job: JobDir, task_id: int | None) -> TaskBudget:
    """The budget of task `task_id` in the open run `job` (a new one for a new `JobDir`)."""
    return _budgets.setdefault(job, {}).setdefault(task_id, TaskBudget())


def unread_part(job: JobDir, task_id: int | None, path: str) -> str | None:
    """Why log `path`, read for task `task_id`, was not read to its end (its budget spent), or None."""
    return _budgets.get(job, {}).get(task_id, TaskBudget()).cut.get(path)
