"""The floor beside a leaderboard or report: the baselines of the same task set, computed or read, and its row.

Where the baseline results come from, first match wins:
1. `baselines_dir`: a baselines root written by `avb baselines --out DIR` (its results are read, nothing is scored);
2. `tasks`: the dataset's tasks (`--dataset`): the baselines are written and scored (cached) for the universe's
   tasks;
3. the results' own provenance: when every result names the same local dataset (a mirror folder or parquet file
   that exists here), its tasks are loaded and scored as in 2. A Hub dataset is never fetched implicitly.
Otherwise there is no floor, and the note says how to get one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agenticvbench.analysis.clusters import local_dataset
from agenticvbench.analysis.task_universe import TaskUniverse
from agenticvbench.baselines.table import HARNESS, BaselineTable, Floor, restrict
from agenticvbench.errors import AVBError
from agenticvbench.results.model import Result

FLOOR_HARNESS = HARNESS
FLOOR_MODEL = "floor: best trivial strategy"
NO_FLOOR = (
    "no floor: pass --dataset (the baselines are scored and cached) or --baselines DIR (from "
    "`avb baselines --out DIR`)"
)


def read_baselines(root: str | Path) -> list[Result]:
    """The baseline results under a baselines root (each subfolder is a strategy's run)."""
    from agenticvbench.results.model import iter_results
    from agenticvbench.runs.submission import RESULTS_DIRNAME

    base = Path(root)
    if not base.is_dir():
        raise AVBError(f"{base}: no such baselines folder (write one with `avb baselines --out {base}`)")
    runs: list[str | Path] = sorted(p for p in base.iterdir() if (p / RESULTS_DIRNAME).is_dir())
    return [r for r in iter_results(runs) if (r.run or {}).get("harness") == HARNESS] if runs else []


def floor_for(
    universe: TaskUniverse,
    *,
    results: Sequence[Result] = (),
    tasks: Any = None,
    baselines_dir: str | Path | None = None,
    cache_dir: str | Path | None = None,
    jobs: int | None = None,
) -> tuple[Floor | None, str]:
    """(the floor for `universe`'s tasks, a note saying where it came from or why there is none)."""
    from agenticvbench.baselines.run import baselines

    if baselines_dir is not None:
        found = restrict(read_baselines(baselines_dir), universe.tasks)
        table = BaselineTable(found, dict(universe.tasks), str(baselines_dir))
        missing = sorted(
            {(f, t) for f, ids in universe.tasks.items() for t in ids}
            - {(r.family, int(r.task_id)) for r in found}
        )
        note = f"floor read from {baselines_dir}"
        if missing:
            note += f"; {len(missing)} task(s) of this table have no baseline there and count 0 in the floor"
        return table.floor(), note
    wanted = {(f, int(t)) for f, ids in universe.tasks.items() for t in ids}
    loaded = (
        [t for t in tasks if (t.family, int(t.task_id)) in wanted]
        if tasks is not None and not isinstance(tasks, dict)
        else None
    )
    dataset: str | None = None
    if loaded is None:
        dataset = local_dataset(results)
        if dataset is None:
            return None, NO_FLOOR
        from agenticvbench.dataset.loader import load_tasks

        try:
            loaded = [
                t
                for t in load_tasks(dataset=dataset, cache_dir=cache_dir)
                if (t.family, int(t.task_id)) in wanted
            ]
        except (AVBError, OSError) as exc:
            return None, f"no floor: the dataset {dataset} named by the results cannot be read ({exc})"
    if not loaded:
        return None, "no floor: none of the counted tasks is in the dataset"
    table = baselines(tasks=loaded, dataset=dataset or "", cache_dir=cache_dir, jobs=jobs)
    table.tasks = dict(universe.tasks)
    return table.floor(), f"floor computed by `avb baselines` ({table.root})"


def floor_display_row(floor: Floor, headers: Sequence[str], families: Sequence[str]) -> list[str]:
    """The floor's row for a table with `headers`: family cells `0.683 (black_picture)`, macro, micro."""
    cells = {
        "harness": FLOOR_HARNESS,
        "model": FLOOR_MODEL,
        **{f: floor.cell(f) for f in families},
        "macro": "-" if floor.macro is None else f"{floor.macro:.3f}",
        "micro": "-" if floor.micro is None else f"{floor.micro:.3f}",
    }
    return [cells.get(h, "") for h in headers]


def floor_frame_row(floor: Floor, families: Sequence[str]) -> dict[str, Any]:
    """The floor's row for a leaderboard DataFrame (rank empty; `<family>_marks` names the strategy)."""
    row: dict[str, Any] = {"rank": None, "harness": FLOOR_HARNESS, "model": FLOOR_MODEL}
    for f in families:
        e = floor.families.get(f)
        row[f] = None if e is None else e.mean
        row[f"{f}_marks"] = "" if e is None else e.strategy
    row.update({"macro": floor.macro, "micro": floor.micro})
    return row
