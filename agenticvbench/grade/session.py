"""What a grading session shows: one entry per (run, recap task) with a `final.mp4`, its brief and llm items.

Only items a person can judge are listed: `llm` items and `compound` items (whose verdict comes from their llm
stage; `avb verify --judge human` asks for it only when the item's python stages passed). For reference, the
python-check results and the model judge's verdicts are read from the run's existing result file when there is
one; the page hides them until asked (no anchoring).

Submissions are hostile: `final.mp4` is accepted exactly when a verifier would read it (`Submission.file`: a
regular file whose real path is inside the run's own task folder, under the media size cap); a symlink out of
the run, a FIFO, a directory, an empty file or a rejected task folder is skipped with a note naming it. `--blind` hides the run, harness and model and shuffles the submissions with a recorded seed.
"""

from __future__ import annotations

import os
import random
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.dataset.tasks import RecapTask
from agenticvbench.fsutil import file_sha256
from agenticvbench.results.model import read_result, result_path, results_dir_for
from agenticvbench.runs.submission import InputRejected, open_run
from agenticvbench.runs.trial_outcomes import get_path
from agenticvbench.verifiers.recap.rubric import pillar_name
from agenticvbench.verifiers.recap.runner import fill_placeholders, placeholder_names

VIDEO_NAME = "final.mp4"
MAX_MATERIALS = 50


@dataclass(kw_only=True)
class GradeItem:
    """One rubric item a person grades."""

    item_id: str
    text: str
    weight: float
    pillar: int
    pillar_name: str
    dispatch: str


@dataclass(kw_only=True)
class GradeSubmission:
    """One video to grade, with everything the page shows about it."""

    index: int
    task_id: int
    run_label: str
    harness: str
    model: str
    video: Path
    video_sha256: str
    size: int
    prompt: str
    items: list[GradeItem]
    reference: dict[str, dict[str, Any]] = field(default_factory=dict)  # item id -> python/model results
    materials: list[tuple[str, Path, int]] = field(
        default_factory=list
    )  # the task's inputs: (name, path, size)

    def public(self, blind: bool) -> dict[str, Any]:
        """The JSON the page gets (no file-system path; run, harness and model hidden when blind)."""
        d: dict[str, Any] = {
            "index": self.index,
            "task_id": self.task_id,
            "video_sha256": self.video_sha256,
            "prompt": self.prompt,
            "items": [vars(i) for i in self.items],
            "reference": self.reference,
            "materials": [m[0] for m in self.materials],
        }
        if not blind:
            d.update({"run": self.run_label, "harness": self.harness, "model": self.model})
        return d


def fill_for_humans(text: str, evidence: dict[str, str] | None) -> str:
    """A compound item's question with its `{placeholders}` filled from the python stages' saved evidence (what
    the model judge is shown), or, with no evidence on record yet, a note saying how to get it."""
    missing = {
        n: f"[{n}: not measured yet; run avb verify on this run first]" for n in placeholder_names(text)
    }
    return fill_placeholders(text, {**missing, **(evidence or {})})


def gradable_items(task: RecapTask, evidence: dict[str, dict[str, str]] | None = None) -> list[GradeItem]:
    """The llm and compound items of a task's rubric, with the question a person answers; `evidence` (item id ->
    saved python evidence, from the run's result) fills compound placeholders such as `{shots}`."""
    out = []
    for raw in task.items:
        if raw.get("dispatch") == "llm":
            text = raw.get("prompt") or raw.get("criterion") or ""
        elif raw.get("dispatch") == "compound":
            raw_stages = raw.get("stages")
            stages: list[Any] = raw_stages if isinstance(raw_stages, list) else []
            llm = [s for s in stages if isinstance(s, dict) and s.get("dispatch") == "llm"]
            if not llm:
                continue
            text = fill_for_humans(
                str(llm[0].get("prompt") or raw.get("criterion") or ""),
                (evidence or {}).get(str(raw.get("id"))),
            )
        else:
            continue
        pillar = raw.get("pillar", 0)
        pillar = pillar if isinstance(pillar, int) and not isinstance(pillar, bool) else 0
        out.append(
            GradeItem(
                item_id=str(raw["id"]),
                text=str(text),
                weight=float(raw.get("weight", 1.0)),
                pillar=pillar,
                pillar_name=pillar_name(pillar),
                dispatch=str(raw["dispatch"]),
            )
        )
    return out


def task_materials(task: RecapTask, notes: list[str]) -> list[tuple[str, Path, int]]:
    """The task's own input files (zips already extracted), as (name, real path, size); regular files only, at
    most `MAX_MATERIALS`. A task whose materials cannot be fetched gets a note and none."""
    try:
        paths = task.materials()
    except Exception as exc:  # offline, no source, a download error: grading works without them
        notes.append(f"task {task.task_id} materials unavailable ({exc})")
        return []
    out: list[tuple[str, Path, int]] = []
    for p in paths:
        files = sorted(x for x in p.rglob("*")) if p.is_dir() else [p]
        for f in files:
            if len(out) >= MAX_MATERIALS:
                return out
            real = Path(os.path.realpath(f))
            try:
                st = os.stat(real)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                out.append((f.name, real, st.st_size))
    return out


def _reference(run_path: Path, task_id: int) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, str]]]:
    """(item id -> {dispatch, outcome, reason}, item id -> saved python evidence) from the run's existing result
    (both empty when there is none)."""
    try:
        res = read_result(result_path(results_dir_for(run_path), task_id))
    except Exception:  # a hand-edited or hostile result file: grade without the reference
        return {}, {}
    if res is None:
        return {}, {}
    items = get_path(res.detail, "items")
    out: dict[str, dict[str, Any]] = {}
    evidence: dict[str, dict[str, str]] = {}
    for it in items if isinstance(items, list) else []:
        if isinstance(it, dict) and isinstance(it.get("item_id"), str):
            out[it["item_id"]] = {
                "dispatch": it.get("dispatch"),
                "outcome": it.get("outcome"),
                "reason": str(it.get("reason", ""))[:300],
            }
            ev = it.get("evidence")
            if isinstance(ev, dict):
                evidence[it["item_id"]] = {str(k): str(v)[:2000] for k, v in ev.items()}
    judge = get_path(res.provenance, "judge_model")
    if out:
        out["_judge"] = {"model": judge, "mode": (res.provenance or {}).get("judge_mode")}
    return out, evidence


def build_submissions(
    runs: list[str | Path],
    tasks: list[RecapTask],
    *,
    blind: bool = False,
    seed: int | None = None,
    materials: bool = False,
) -> tuple[list[GradeSubmission], list[str], int | None]:
    """(submissions, notes, seed used) for the given runs and recap tasks; shuffled with `seed` when blind;
    with `materials`, each submission also lists its task's input files (fetched once per task)."""
    notes: list[str] = []
    fetched: dict[int, list[tuple[str, Path, int]]] = {}
    subs: list[GradeSubmission] = []
    for run_path in runs:
        run = open_run(run_path)
        for task in sorted(tasks, key=lambda t: t.task_id):
            folder = run.task_folders.get(task.task_id)
            if folder is None:
                continue
            try:  # the verifiers' own containment and size checks (`Submission.file`)
                found = run.submission(task.task_id).file(VIDEO_NAME)
            except InputRejected as exc:
                notes.append(str(exc))
                continue
            if found is None:
                continue
            video = Path(os.path.realpath(found))
            if video.stat().st_size == 0:
                notes.append(
                    f"{run.path.name}/{task.task_id}/{VIDEO_NAME}: empty (0 bytes), nothing to grade"
                )
                continue
            reference, evidence = _reference(run.path, task.task_id)
            items = gradable_items(task, evidence)
            if not items:
                continue
            if materials and task.task_id not in fetched:
                fetched[task.task_id] = task_materials(task, notes)
            subs.append(
                GradeSubmission(
                    index=0,
                    task_id=task.task_id,
                    run_label=run.path.name,
                    harness=run.harness,
                    model=run.model,
                    video=video,
                    video_sha256=file_sha256(video),
                    size=video.stat().st_size,
                    prompt=task.prompt,
                    items=items,
                    reference=reference,
                    materials=fetched.get(task.task_id, []),
                )
            )
    if blind:
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        random.Random(seed).shuffle(subs)
    for i, s in enumerate(subs):
        s.index = i
    return subs, notes, seed if blind else None
