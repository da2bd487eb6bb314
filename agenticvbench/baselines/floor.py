"""The floor beside a leaderboard or report: the baselines of the same task set, computed or read, and its row.

Where the baseline results come from, first match wins:
1. `baselines_dir`: a baselines root written by `avb baselines --out DIR` (its results are read, nothing is scored);
2. `tasks`: the dataset's tasks (`--dataset`): the baselines are written and scored (cached) for the universe's
   tasks;
3. the results' own provenance: when every result names the same local dataset (a mirror folder or parquet file
   that exists here), its tasks are loaded and scored as in 2. A Hub dataset is never fetched implicitly.
Otherwise there is no floor, and the note says how to get one.

Scoring (2 and 3) is work the user did not ask for by name, so `notify` is first given one line saying what is
scored, roughly how long it takes here, where it is cached and that `--no-floor` skips it (only when some baseline
result is not cached yet); `progress` draws the scoring bar.

The floor carries the marks of the leaderboard's rows (`analysis.comparability`): its recap cell is † when the
strategy's recap results have llm items unscored (the baselines are scored without a judge), a cell is ! when the
strategy's results there carry integrity flags, and macro/micro carry the union, as a row's do.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agenticvbench.analysis.clusters import local_dataset
from agenticvbench.analysis.task_universe import TaskUniverse
from agenticvbench.baselines.table import HARNESS, BaselineTable, Floor, restrict
from agenticvbench.errors import AVBError
from agenticvbench.results.model import Result

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


def about(seconds: float) -> str:
    """A rough duration for a notice: 'about 20 s', 'about 4 min', 'about 2.5 h'."""
    if seconds < 90:
        return f"about {max(5, round(seconds / 5) * 5):.0f} s"
    if seconds < 5400:
        return f"about {round(seconds / 60):.0f} min"
    return f"about {seconds / 3600:.1f} h"


def scoring_notice(tasks: Sequence[Any], cache_dir: str | Path | None, jobs: int | None = None) -> str | None:
    """The one line printed before the floor is scored implicitly, or None when every baseline is cached."""
    from agenticvbench.baselines.run import default_root, pending_jobs, scoring_estimate
    from agenticvbench.scoring.executors import default_jobs

    root = default_root(list(tasks), "", cache_dir)
    pending = pending_jobs(list(tasks), root)
    if not pending:
        return None
    workers = jobs or default_jobs()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - not on every platform
        load = 0.0
    src = next((t.source for t in tasks if t.source is not None), None)
    ident = src.provenance() if src is not None else {}
    rev = ident.get("resolved_revision") or ident.get("revision")
    where = f"{ident.get('dataset', 'the dataset')}" + (f"@{str(rev)[:12]}" if rev and rev != "local" else "")
    return (
        f"scoring the floor first (trivial strategies, for the floor row): {len(pending)} baseline job(s) on "
        f"{len(tasks)} task(s) of {where}, {about(scoring_estimate(pending, workers, cores=default_jobs(), load=load))} "
        f"with {workers} worker(s) at load {load:.1f}; "
        f"cached under {root}, so later calls reuse it; --no-floor skips it"
    )


def floor_for(
    universe: TaskUniverse,
    *,
    results: Sequence[Result] = (),
    tasks: Any = None,
    baselines_dir: str | Path | None = None,
    cache_dir: str | Path | None = None,
    jobs: int | None = None,
    notify: Callable[[str], None] | None = None,
    progress: bool | Callable[[int], Any] = False,
) -> tuple[Floor | None, str]:
    """(the floor for `universe`'s tasks, a note saying where it came from or why there is none).

    `notify` gets `scoring_notice` before any baseline is scored; `progress` shows the scoring bar."""
    from agenticvbench.baselines.run import baselines

    wanted = {(f, int(t)) for f, ids in universe.tasks.items() for t in ids}
    if baselines_dir is not None:
        found = restrict(read_baselines(baselines_dir), universe.tasks)
        table = BaselineTable(found, dict(universe.tasks), str(baselines_dir))
        missing = wanted - {(r.family, int(r.task_id)) for r in found}
        note = f"floor read from {baselines_dir}"
        if missing:
            note += f"; {len(missing)} task(s) of this table have no baseline there and count 0 in the floor"
        floor = _marked(table)
        return floor, _with_legend(note, floor)
    dataset: str | None = None
    if tasks is None or isinstance(tasks, dict):  # no loaded tasks: those of the dataset the results name
        dataset = local_dataset(results)
        if dataset is None:
            return None, NO_FLOOR
        from agenticvbench.dataset.loader import load_tasks

        try:
            tasks = load_tasks(dataset=dataset, cache_dir=cache_dir)
        except (AVBError, OSError) as exc:
            return None, f"no floor: the dataset {dataset} named by the results cannot be read ({exc})"
    loaded = [t for t in tasks if (t.family, int(t.task_id)) in wanted]
    if not loaded:
        return None, "no floor: none of the counted tasks is in the dataset"
    if notify is not None and (line := scoring_notice(loaded, cache_dir, jobs)):
        notify(line)
    table = baselines(tasks=loaded, dataset=dataset or "", cache_dir=cache_dir, jobs=jobs, progress=progress)
    table.tasks = dict(universe.tasks)
    floor = _marked(table)
    return floor, _with_legend(f"floor computed by `avb baselines` ({table.root})", floor)


def _with_legend(note: str, floor: Floor) -> str:
    """`note`, then the legend of the marks the floor carries when it has any."""
    from agenticvbench.analysis.comparability import MARKS

    used = {m for ms in floor.marks.values() for m in ms}
    legend = "; ".join(f"floor {MARKS[k][0]} = {MARKS[k][1]}" for k in MARKS if k in used)
    return f"{note}; {legend}" if legend else note


def _marked(table: BaselineTable) -> Floor:
    """`table.floor()` with the marks of its cells: those of the chosen strategy's results per family."""
    return table.marked_floor()


def _score(x: float | None, marks: Sequence[str]) -> str:
    """A floor number at the rows' precision (4 decimals) with its mark symbols: `0.6820 !`."""
    from agenticvbench.analysis.comparability import symbols
    from agenticvbench.tables import joined

    return "-" if x is None else joined(f"{x:.4f}", symbols(marks))


def floor_display_row(floor: Floor, headers: Sequence[str], families: Sequence[str]) -> list[str]:
    """The floor's row for a table with `headers`: family cells `0.6830 † (black_picture)`, macro, micro, at the
    rows' precision and with their marks."""
    cells: dict[str, str] = {"harness": HARNESS, "model": FLOOR_MODEL}
    for f in families:
        e = floor.families.get(f)
        cells[f] = "-" if e is None else f"{_score(e.mean, floor.marks.get(f, []))} ({e.strategy})"
    cells["macro"] = _score(floor.macro, floor.marks.get("macro", []))
    cells["micro"] = _score(floor.micro, floor.marks.get("micro", []))
    return [cells.get(h, "") for h in headers]


def floor_frame_row(floor: Floor, families: Sequence[str]) -> dict[str, Any]:
    """The floor's row for a leaderboard DataFrame (rank empty; `<family>_marks` names the strategy)."""
    from agenticvbench.analysis.comparability import symbols

    row: dict[str, Any] = {"rank": None, "harness": HARNESS, "model": FLOOR_MODEL}
    for f in families:
        e = floor.families.get(f)
        row[f] = None if e is None else e.mean
        row[f"{f}_marks"] = "" if e is None else f"{symbols(floor.marks.get(f, []))} {e.strategy}".strip()
    row.update({"macro": floor.macro, "micro": floor.micro})
    row["macro_marks"] = symbols(floor.marks.get("macro", []))
    row["micro_marks"] = symbols(floor.marks.get("micro", []))
    return row
