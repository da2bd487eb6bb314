"""Previous/next links of the viewer's pages: the task before and after in the grid's order and, on a task page,
the run before and after in the order the runs were given. The script (`static/view.js`) binds them to keys."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenticvbench.view.model import ViewModel


def neighbours(order: Sequence[int], here: int) -> tuple[int | None, int | None]:
    """The items before and after `here` in `order` (None at either end)."""
    k = order.index(here)
    return (order[k - 1] if k > 0 else None, order[k + 1] if k + 1 < len(order) else None)


def navigation(model: ViewModel, kind: str, task_id: int, *, run: int = 0, stack: int = 0) -> dict[str, Any]:
    """The previous/next links of a page (`kind`: task, stack or compare): the task before and after in the grid's
    order, and for a task page the run before and after (the order given); `pattern` is the page of another task
    ({} for its id), which the script uses to follow the overview's filtered order instead."""
    pattern = {
        "task": f"task-{run}-{{}}.html",
        "stack": f"stack-{stack}-{{}}.html",
        "compare": "compare-{}.html",
    }[kind]
    prev_t, next_t = neighbours(model.task_order, task_id)
    nav: dict[str, Any] = {
        "kind": kind,
        "task_id": task_id,
        "pattern": pattern,
        "prev_task": pattern.format(prev_t) if prev_t is not None else None,
        "next_task": pattern.format(next_t) if next_t is not None else None,
        "prev_run": None,
        "next_run": None,
        "stack": None,
        "compare": None,
    }
    if kind == "task":
        prev_r, next_r = neighbours([r.index for r in model.runs], run)
        nav["prev_run"] = f"task-{prev_r}-{task_id}.html" if prev_r is not None else None
        nav["next_run"] = f"task-{next_r}-{task_id}.html" if next_r is not None else None
        st = model.stack_of(run)
        nav["stack"] = st.page(task_id) if len(st.runs) > 1 else None
    return nav
