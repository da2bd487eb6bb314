"""Typed tasks: one dataclass per family, built from a dataset row with `rubric_json` parsed and validated.

A malformed row raises `TaskError` whose message names the task id and the field, so a broken mirror is
diagnosed in one line instead of a traceback deep inside a verifier.
"""

from __future__ import annotations

import json
import math
import operator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from agenticvbench.errors import TaskError
from agenticvbench.fsutil import JSON_MAX_DEPTH, json_depth


class TaskSource(Protocol):
    """Where a task's media come from (implemented by `agenticvbench.dataset.loader.DatasetSource`)."""

    resolved_revision: str  # the commit sha of a Hub dataset; "local" for a mirror or parquet file

    def fetch_materials(self, task: Task) -> list[Path]:
        """The agent-visible inputs of `task`."""
        ...

    def fetch_verifier_references(self, task: Task) -> list[Path]:
        """The verifier-only references of `task`."""
        ...

    def provenance(self) -> dict[str, Any]:
        """Dataset identity for result provenance."""
        ...


FAMILIES: tuple[str, ...] = ("recap", "sequencing", "repair", "assembly")
FAMILY_ID_RANGES: dict[str, range] = {
    "recap": range(1, 37),
    "sequencing": range(37, 65),
    "repair": range(65, 83),
    "assembly": range(83, 101),
}
#: The files each family's verifier reads from a task's output folder (the first is the primary one): the one
#: statement of the output contract, used by the Harbor instructions, the layout hints and the CLI's guards.
OUTPUT_FILES: dict[str, tuple[str, ...]] = {
    "recap": ("final.mp4",),
    "sequencing": ("solution.json", "solution.mp4"),
    "repair": ("fixed.mp4", "report.md"),
    "assembly": ("solution.json", "solution.mp4"),
}
GROUND_TRUTH_DIR = Path(__file__).parents[1] / "ground_truth" / "repair"
RUBRIC_MAX_CHARS = 5 * 1024 * 1024


@dataclass
class Task:
    """One benchmark task (a dataset row). Subclasses add the parsed `rubric_json` of their family."""

    family: ClassVar[str] = ""
    task_id: int
    prompt: str
    reference_file_urls: list[str]
    verifier_reference_urls: list[str] | None
    rubric_json: str
    source: TaskSource | None = field(default=None, repr=False, compare=False)

    def materials(self) -> list[Path]:
        """Fetch (cached) and return the agent's input files; zips are extracted safely into a folder."""
        return self._require_source().fetch_materials(self)

    def verifier_references(self) -> list[Path]:
        """Fetch the verifier-only references (repair sources). Never give these to an agent."""
        return self._require_source().fetch_verifier_references(self)

    def _require_source(self) -> TaskSource:
        if self.source is None:
            raise TaskError(self.task_id, "source", "task was not loaded from a dataset; cannot fetch media")
        return self.source

    def summary(self) -> dict[str, Any]:
        """A JSON-friendly description for `avb tasks show`."""
        return {
            "task_id": self.task_id,
            "task_family": self.family,
            "prompt": self.prompt,
            "reference_file_urls": self.reference_file_urls,
            "verifier_reference_urls": self.verifier_reference_urls,
            "rubric": json.loads(self.rubric_json),
        }


def _need(task_id: int, obj: dict[str, Any], key: str) -> Any:
    if key not in obj:
        raise TaskError(task_id, f"rubric_json.{key}", "missing")
    return obj[key]


def _id_list(task_id: int, value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not value:
        raise TaskError(task_id, f"rubric_json.{name}", "must be a non-empty list")
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            raise TaskError(
                task_id, f"rubric_json.{name}[{i}]", f"must be a string or int, got {type(v).__name__}"
            )
    return [str(v) for v in value]


def _positive_int(task_id: int, value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TaskError(task_id, f"rubric_json.{name}", f"must be a non-negative integer, got {value!r}")
    return value


def _finite(task_id: int, value: Any, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise TaskError(
            task_id, f"rubric_json.{name}", f"must be a finite non-negative number, got {value!r}"
        )
    return float(value)


@dataclass
class SequencingTask(Task):
    """Reorder shuffled shots. `correct_order` holds the clip ids as strings, exactly as the official scorer sees them."""

    family: ClassVar[str] = "sequencing"
    correct_order: list[str] = field(default_factory=list)
    n_slots: int = 0
    provenance: dict[str, Any] = field(default_factory=dict)

    def _parse(self, rubric: Any) -> None:
        if not isinstance(rubric, dict):
            raise TaskError(self.task_id, "rubric_json", "must be a JSON object for sequencing")
        self.correct_order = _id_list(
            self.task_id, _need(self.task_id, rubric, "correct_order"), "correct_order"
        )
        self.n_slots = _positive_int(self.task_id, rubric.get("n_slots", len(self.correct_order)), "n_slots")
        if self.n_slots != len(self.correct_order):
            raise TaskError(
                self.task_id,
                "rubric_json.n_slots",
                f"{self.n_slots} != len(correct_order) {len(self.correct_order)}",
            )
        prov = rubric.get("provenance", {})
        self.provenance = prov if isinstance(prov, dict) else {}


@dataclass
class AssemblyTask(Task):
    """Pick one clip per storyboard slot."""

    family: ClassVar[str] = "assembly"
    correct_assembly_in_slot_order: list[str] = field(default_factory=list)
    correct_assembly_durations: list[float] = field(default_factory=list)
    n_slots: int = 0
    film: str = ""
    duration_sec: float = 0.0

    def _parse(self, rubric: Any) -> None:
        tid = self.task_id
        if not isinstance(rubric, dict):
            raise TaskError(tid, "rubric_json", "must be a JSON object for assembly")
        self.correct_assembly_in_slot_order = _id_list(
            tid, _need(tid, rubric, "correct_assembly_in_slot_order"), "correct_assembly_in_slot_order"
        )
        durs = _need(tid, rubric, "correct_assembly_durations")
        if not isinstance(durs, list):
            raise TaskError(tid, "rubric_json.correct_assembly_durations", "must be a list")
        self.correct_assembly_durations = [
            _finite(tid, d, f"correct_assembly_durations[{i}]") for i, d in enumerate(durs)
        ]
        self.n_slots = _positive_int(tid, _need(tid, rubric, "n_slots"), "n_slots")
        for name in ("correct_assembly_in_slot_order", "correct_assembly_durations"):
            n = len(getattr(self, name))
            if n != self.n_slots:
                raise TaskError(tid, f"rubric_json.{name}", f"has {n} entries, n_slots is {self.n_slots}")
        film = rubric.get("film", "")
        if not isinstance(film, str):
            raise TaskError(tid, "rubric_json.film", "must be a string")
        self.film = film
        self.duration_sec = _finite(tid, _need(tid, rubric, "duration_sec"), "duration_sec")


@dataclass
class RepairTask(Task):
    """Fix a corrupted video. `cell` ("vN/sM") resolves to a variant and a ground-truth profile."""

    family: ClassVar[str] = "repair"
    cell: str = ""
    variant: str = ""
    profile: dict[str, Any] = field(default_factory=dict, repr=False)

    def _parse(self, rubric: Any) -> None:
        if not isinstance(rubric, dict):
            raise TaskError(self.task_id, "rubric_json", "must be a JSON object for repair")
        cell = _need(self.task_id, rubric, "cell")
        if not isinstance(cell, str):
            raise TaskError(self.task_id, "rubric_json.cell", "must be a string like 'v1/s1'")
        try:
            self.variant, self.profile = resolve_cell(cell, rubric.get("profile"))
        except KeyError as exc:
            raise TaskError(self.task_id, "rubric_json.cell", str(exc.args[0])) from None
        self.cell = cell


@dataclass
class RecapTask(Task):
    """Cut a recap to a brief. `items` is the validated rubric (see `verifiers.recap.rubric`)."""

    family: ClassVar[str] = "recap"
    items: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def _parse(self, rubric: Any) -> None:
        if not isinstance(rubric, list):
            raise TaskError(self.task_id, "rubric_json", "must be a JSON list of rubric items for recap")
        for i, item in enumerate(rubric):
            if not isinstance(item, dict):
                raise TaskError(self.task_id, f"rubric_json[{i}]", "must be an object")
            if not isinstance(item.get("id"), str) or not item["id"]:
                raise TaskError(self.task_id, f"rubric_json[{i}].id", "missing or not a non-empty string")
            if item.get("dispatch") not in ("python", "llm", "compound"):
                raise TaskError(
                    self.task_id,
                    f"rubric_json[{i}].dispatch",
                    f"must be python, llm or compound, got {item.get('dispatch')!r}",
                )
            w = item.get("weight", 1.0)
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
                raise TaskError(
                    self.task_id, f"rubric_json[{i}].weight", f"must be a finite number, got {w!r}"
                )
        self.items = rubric


TASK_CLASSES: dict[str, type[Task]] = {
    cls.family: cls for cls in (RecapTask, SequencingTask, RepairTask, AssemblyTask)
}


def load_cells() -> dict[str, dict[str, Any]]:
    """The 22 repair cells of `ground_truth/repair/cells.json`."""
    with open(GROUND_TRUTH_DIR / "cells.json", encoding="utf-8") as fh:
        return json.load(fh)["cells"]


def resolve_cell(cell: str, inline_profile: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """Return (variant, profile) for a cell key; an inline profile (demo tasks) overrides the shipped one."""
    if isinstance(inline_profile, dict):
        return (inline_profile.get("injection") or {}).get("variant") or "_combined", inline_profile
    cells = load_cells()
    if cell not in cells:
        raise KeyError(f"unknown cell {cell!r} (known: {', '.join(sorted(cells))})")
    path = GROUND_TRUTH_DIR / "ground_truth" / cell / "profile.json"
    with open(path, encoding="utf-8") as fh:
        return cells[cell]["variant"], json.load(fh)


def _str_list(task_id: int, value: Any, name: str, *, nullable: bool) -> list[str] | None:
    if value is None:
        if nullable:
            return None
        raise TaskError(task_id, name, "must be a list of strings, got null")
    if hasattr(value, "tolist"):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TaskError(task_id, name, f"must be a list of strings, got {type(value).__name__}")
    return list(value)


def task_from_row(row: dict[str, Any], source: TaskSource | None = None) -> Task:
    """Build the typed task for one dataset row, validating every column and the family's `rubric_json`."""
    raw_id: Any = row.get("task_id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, int) and not hasattr(raw_id, "__index__"):
        raise TaskError(raw_id, "task_id", f"must be an integer, got {raw_id!r}")
    task_id = operator.index(raw_id)
    if task_id <= 0:
        raise TaskError(task_id, "task_id", "must be a positive integer")
    family = row.get("task_family")
    if family not in TASK_CLASSES:
        raise TaskError(task_id, "task_family", f"must be one of {', '.join(FAMILIES)}, got {family!r}")
    prompt = row.get("prompt")
    if not isinstance(prompt, str):
        raise TaskError(task_id, "prompt", "must be a string")
    refs = _str_list(task_id, row.get("reference_file_urls"), "reference_file_urls", nullable=False)
    vrefs = _str_list(task_id, row.get("verifier_reference_urls"), "verifier_reference_urls", nullable=True)
    rubric_json = row.get("rubric_json")
    if not isinstance(rubric_json, str):
        raise TaskError(task_id, "rubric_json", "must be a JSON string")
    if len(rubric_json) > RUBRIC_MAX_CHARS:
        raise TaskError(
            task_id, "rubric_json", f"{len(rubric_json)} characters, over the {RUBRIC_MAX_CHARS} limit"
        )
    try:
        rubric = json.loads(rubric_json)
    except json.JSONDecodeError as exc:
        raise TaskError(task_id, "rubric_json", f"invalid JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:
        raise TaskError(task_id, "rubric_json", "nested too deeply") from None
    except ValueError as exc:  # an integer past Python's 4300-digit conversion limit
        raise TaskError(task_id, "rubric_json", f"invalid JSON ({str(exc)[:120]})") from None
    if json_depth(rubric, JSON_MAX_DEPTH) > JSON_MAX_DEPTH:
        raise TaskError(task_id, "rubric_json", f"nested deeper than {JSON_MAX_DEPTH} levels")
    cls = TASK_CLASSES[family]
    task = cls(
        task_id=task_id,
        prompt=prompt,
        reference_file_urls=refs or [],
        verifier_reference_urls=vrefs,
        rubric_json=rubric_json,
        source=source,
    )
    task._parse(rubric)  # type: ignore[attr-defined]
    return task
