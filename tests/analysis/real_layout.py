"""A generated 100-task dataset laid out like the real AgenticVBench one, for tests that need its source structure.

`real_layout_tasks()` builds the 100 tasks through `task_from_row` (so they are the real `Task` classes, with the
attributes the verifiers and `source_clusters` read) from rows in the real column layout:

- recap 1-36: one film per task, `recap/materials/<id>/film.mp4`; the rubric is a list of items and names no
  film (as the real recap rubric), so nothing ties two recap tasks together;
- sequencing 37-64: 28 tasks from 27 source films (`provenance.film`), the last two tasks cut from one film;
- repair 65-82: 18 cells over 6 source videos, the first 18 of the 22 cells of `ground_truth/repair/cells.json`
  (v1-v4 three cells each, v5 four, v6 two), each row naming its verifier-only source the way the demo does;
- assembly 83-100: 18 stories from 9 films (`film`), two stories per film.

Which 18 of the 22 repair cells the real dataset uses, and which sequencing film gives two tasks, is not
published; the choices here only reproduce the counts (27 sequencing sources, 6 repair sources, 9 assembly
films). The sequencing and assembly film titles are disjoint. Deterministic: no randomness, same rows every call.
"""

from __future__ import annotations

import json
from typing import Any

from agenticvbench.dataset.tasks import Task, load_cells, task_from_row

HUB_RESOLVE = "https://huggingface.co/datasets/Anonymous47621123/AgenticVBench_100/resolve/main/"
RECAP_IDS = range(1, 37)
SEQUENCING_IDS = range(37, 65)
REPAIR_IDS = range(65, 83)
ASSEMBLY_IDS = range(83, 101)
#: Clusters per family that the real layout has (recap: every task its own film).
EXPECTED_CLUSTERS: dict[str, int] = {"recap": 36, "sequencing": 27, "repair": 6, "assembly": 9}


def _row(
    task_id: int, family: str, refs: list[str], rubric: Any, vrefs: list[str] | None = None
) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "task_family": family,
        "prompt": f"{family} task {task_id}",
        "reference_file_urls": refs,
        "verifier_reference_urls": vrefs,
        "rubric_json": json.dumps(rubric),
    }


def sequencing_film(task_id: int) -> str:
    """The film sequencing task `task_id` is cut from: one per task, except that 63 and 64 share one."""
    return f"Sequencing Film {min(task_id, 63) - 36:02d}"


def assembly_film(task_id: int) -> str:
    """The film assembly task `task_id` is cut from: tasks 83/84 from film 1, 85/86 from film 2, ..."""
    return f"Assembly Film {(task_id - 83) // 2 + 1}"


def repair_cells() -> list[str]:
    """The 18 cells of the layout: the first 18 of `cells.json` (the real selection is unpublished)."""
    return list(load_cells())[:18]


def real_layout_rows() -> list[dict[str, Any]]:
    """The 100 dataset rows (real columns, `rubric_json` a JSON string) in task-id order."""
    rows = []
    for tid in RECAP_IDS:
        items = [{"id": "duration", "dispatch": "python", "weight": 1.0, "criterion": "Lasts 30-60 s."}]
        rows.append(_row(tid, "recap", [f"recap/materials/{tid}/film.mp4"], items))
    for tid in SEQUENCING_IDS:
        order = [str(i) for i in (3, 1, 4, 2, 5)]
        prov = {"film": sequencing_film(tid), "n_shots": len(order), "shuffle_seed": tid}
        rubric = {"correct_order": order, "n_slots": len(order), "provenance": prov}
        rows.append(_row(tid, "sequencing", [f"sequencing/materials/{tid}.zip"], rubric))
    cells = load_cells()
    for tid, cell in zip(REPAIR_IDS, repair_cells(), strict=True):
        source = HUB_RESOLVE + "repair/" + cells[cell]["source_path"]
        broken = f"repair/{cells[cell]['broken_path']}"
        rows.append(_row(tid, "repair", [broken], {"cell": cell}, [source]))
    for tid in ASSEMBLY_IDS:
        slots = ["3.mp4", "7.mp4", "5.mp4", "11.mp4"]
        durs = [2.0, 1.5, 1.5, 2.0]
        rubric = {
            "correct_assembly_in_slot_order": slots,
            "correct_assembly_durations": durs,
            "n_slots": len(slots),
            "film": assembly_film(tid),
            "duration_sec": sum(durs),
        }
        rows.append(_row(tid, "assembly", [f"assembly/materials/{tid}.zip"], rubric))
    return rows


def real_layout_tasks() -> list[Task]:
    """The 100 typed tasks (`RecapTask`, `SequencingTask`, `RepairTask`, `AssemblyTask`) of the real layout."""
    return [task_from_row(r) for r in real_layout_rows()]
