"""One task-selection grammar for every command and the Python API: a family, task ids with ranges, a limit.

`--tasks 37-40,83` means 37, 38, 39, 40 and 83; `--family repair` keeps one family; `--limit N` keeps the first
N selected tasks in id order. The CLI parses text with `parse_task_ids`; the Python API validates what it is given
with `validate_task_ids` (a list of ints, never a string read digit by digit) and `validate_jobs`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: Largest span one range may cover: the benchmark has 100 tasks, so `1-999999999` is a typo, not a request.
MAX_RANGE = 10_000


class TaskIds(list[int]):
    """Parsed `--tasks`: the ids, plus `required`, the ids named singly (a range only filters what exists)."""

    required: list[int]


def parse_task_ids(text: str) -> TaskIds:
    """Parse `37-40,83` into [37, 38, 39, 40, 83] (order kept, duplicates dropped); ValueError on bad input.

    Ids named singly are `required` (absent from the dataset is an error); ids from a range only select.
    """
    ids = TaskIds()
    ids.required = []
    for raw in str(text).split(","):
        part = raw.strip()
        if not part:
            continue
        lo_text, sep, hi_text = part.partition("-")
        try:
            lo = int(lo_text)
            hi = int(hi_text) if sep else lo
        except ValueError:
            raise ValueError(f"expected task ids like 37-40,83, got {part!r}") from None
        if lo < 0 or hi < lo:
            raise ValueError(f"bad task range {part!r} (expected LOW-HIGH with LOW <= HIGH)")
        if hi - lo >= MAX_RANGE:
            raise ValueError(f"task range {part!r} spans more than {MAX_RANGE} ids")
        if not sep:
            ids.required.append(lo)
        ids.extend(i for i in range(lo, hi + 1) if i not in ids)
    if not ids:
        raise ValueError("no task id given")
    return ids


def validate_task_ids(task_ids: Any) -> list[int] | None:
    """The API's check: None, or an iterable of ints (a string such as "65" is a TypeError, not digits 6 and 5)."""
    if task_ids is None:
        return None
    if isinstance(task_ids, (str, bytes)) or not isinstance(task_ids, Iterable):
        raise TypeError(
            f"task_ids must be a list of ints (e.g. [65]), got {type(task_ids).__name__} "
            f"{task_ids!r}; the command line's '37-40,83' form is parse_task_ids()"
        )
    out: list[int] = []
    for v in task_ids:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"task_ids must be a list of ints, got an element {v!r} ({type(v).__name__})")
        out.append(int(v))
    return out


def validate_jobs(jobs: Any) -> int | None:
    """None (one worker per core) or an int >= 1; anything else is a ValueError (TypeError for a non-int)."""
    if jobs is None:
        return None
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise TypeError(f"jobs must be an int >= 1 or None, got {jobs!r}")
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    return jobs


def apply_limit(items: Sequence[T], limit: int | None) -> list[T]:
    """The first `limit` items (all when None)."""
    return list(items) if limit is None else list(items)[:limit]


def select_ids(
    pairs: Iterable[tuple[str, int]],
    *,
    family: str | None = None,
    task_ids: Sequence[int] | None = None,
    limit: int | None = None,
) -> set[tuple[str, int]]:
    """The (family, task id) pairs kept by the selection (id order before the limit)."""
    wanted = set(task_ids) if task_ids is not None else None
    kept = sorted(
        {
            (f, int(t))
            for f, t in pairs
            if (family is None or f == family) and (wanted is None or int(t) in wanted)
        },
        key=lambda p: (p[1], p[0]),
    )
    return set(apply_limit(kept, limit))
