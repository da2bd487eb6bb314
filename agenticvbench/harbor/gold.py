"""Gold (oracle) outputs: for each task where one can be derived, the files a perfect agent would write.

- sequencing: `solution.json` listing the clips in `correct_order`;
- assembly: `solution.json` with one segment per slot, the correct take and its duration;
- repair: `fixed.mp4` = the verifier-only source's pictures and sound, its video re-encoded losslessly (a
  byte copy or a remux of a verifier-only reference is `malformed`), and a `report.md` whose `## Diagnosis` windows are the
  truth regions derived from the cell's profile (numbered window lines for the multi-region variants);
- recap: none. Its rubric is checked by python checks and a judge against the brief; there is no reference video.

`avb verify` on a gold run scores 1.0 wherever the official rubric allows it: a user's check that the install,
the dataset revision and the scorer agree. `solve.sh` in the Harbor export writes the same files.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.dataset.tasks import AssemblyTask, RecapTask, RepairTask, SequencingTask, Task
from agenticvbench.demo.media_gen import oracle_copy
from agenticvbench.fsutil import atomic_write_json, atomic_write_text

RECAP_NONE = (
    "recap has no gold output: its rubric is judged against the brief and there is no reference video"
)


@dataclass(frozen=True)
class GoldOutput:
    """One task's gold files: text files by name, plus files copied from a local path (the repair source)."""

    task_id: int
    family: str
    texts: dict[str, str] = field(default_factory=dict)
    copies: dict[str, Path] = field(default_factory=dict)
    note: str = ""

    def write(self, folder: Path) -> list[Path]:
        """Write the files into `folder` (created); returns the paths written."""
        folder.mkdir(parents=True, exist_ok=True)
        out = []
        for name, text in sorted(self.texts.items()):
            atomic_write_text(folder / name, text)
            out.append(folder / name)
        for name, src in sorted(self.copies.items()):
            tmp = folder / f".{name}.partial{Path(name).suffix}"
            try:
                if Path(name).suffix.lower() == ".mp4":  # a byte copy or remux of a reference is malformed
                    oracle_copy(src, tmp, "agenticvbench gold output")
                else:
                    shutil.copyfile(src, tmp)
                tmp.replace(folder / name)
            except BaseException:  # a full disk, a failed copy, an interrupt: no partial file is left
                tmp.unlink(missing_ok=True)
                raise
            out.append(folder / name)
        return out


def seconds_text(t: float) -> str:
    """A time in the report grammar's bare `S.f` form that parses back to exactly `t` (no exponent)."""
    text = repr(float(t))
    if "e" in text or "E" in text:
        text = f"{float(t):.17f}".rstrip("0").rstrip(".")
    return text


def _manifest(sources: list[str], durations: list[float] | None) -> str:
    segments: list[dict[str, Any]] = []
    t = 0.0
    for i, src in enumerate(sources):
        seg: dict[str, Any] = {"source": src}
        if durations is not None:
            d = durations[i]
            seg = {"output": [round(t, 6), round(t + d, 6)], "source": src, "source_range": [0.0, d]}
            t += d
        segments.append(seg)
    return json.dumps({"segments": segments}, indent=2) + "\n"


def repair_report(task: RepairTask) -> tuple[str, str]:
    """The gold `report.md` text for a repair task, and a note when the rubric caps its localisation score."""
    from agenticvbench.verifiers.repair.profiles import derive

    spec = derive(task.profile, task.variant)
    lines = [
        f"# Repair report, task {task.task_id} (gold, derived from the ground-truth profile)",
        "",
        "## Diagnosis",
        f"- type: {task.variant}",
    ]
    if spec.multi_region:
        for k, region in enumerate(spec.regions, start=1):
            lines += [
                f"- window_{k}_start: {seconds_text(region.truth[0])}",
                f"- window_{k}_end: {seconds_text(region.truth[1])}",
            ]
    elif spec.regions:
        lines += [
            f"- start: {seconds_text(spec.regions[0].truth[0])}",
            f"- end: {seconds_text(spec.regions[0].truth[1])}",
        ]
    lines += ["", "## Repair trajectory", "Replaced the whole video with the undamaged source.", ""]
    note = (
        f"localisation scores 0 by the official rubric: {spec.localization_error}"
        if spec.localization_error
        else ""
    )
    return "\n".join(lines), note


def gold_output(task: Task, *, source: Path | None = None) -> GoldOutput | None:
    """The gold files for `task`, or None when the family has none (recap).

    For repair, `source` is the verifier-only source video; when omitted it is fetched with the task's
    `verifier_references()`.
    """
    if isinstance(task, RecapTask):
        return None
    if isinstance(task, SequencingTask):
        return GoldOutput(task.task_id, task.family, {"solution.json": _manifest(task.correct_order, None)})
    if isinstance(task, AssemblyTask):
        manifest = _manifest(task.correct_assembly_in_slot_order, task.correct_assembly_durations)
        return GoldOutput(task.task_id, task.family, {"solution.json": manifest})
    if isinstance(task, RepairTask):
        from agenticvbench.verifiers.repair import source_of

        report, note = repair_report(task)
        return GoldOutput(
            task.task_id, task.family, {"report.md": report}, {"fixed.mp4": source or source_of(task)}, note
        )
    return None


@dataclass
class GoldSummary:
    """What `write_gold` did: tasks written, tasks without gold (with the reason), notes per task."""

    written: list[int] = field(default_factory=list)
    none: dict[int, str] = field(default_factory=dict)
    notes: dict[int, str] = field(default_factory=dict)

    def to_text(self) -> str:
        """A short human summary."""
        lines = [f"gold outputs for {len(self.written)} tasks"]
        if self.none:
            ids = ",".join(str(i) for i in sorted(self.none))
            reasons = sorted(set(self.none.values()))
            lines.append(f"no gold output for {len(self.none)} tasks ({ids}): {'; '.join(reasons)}")
        lines += [f"task {tid}: {note}" for tid, note in sorted(self.notes.items())]
        return "\n".join(lines)


def write_gold(tasks: list[Task], out: str | Path) -> GoldSummary:
    """Write a gold run directory: `OUT/<task_id>/` per task with gold files, and `OUT/run.json`."""
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    summary = GoldSummary()
    for task in sorted(tasks, key=lambda t: t.task_id):
        gold = gold_output(task)
        if gold is None:
            summary.none[task.task_id] = RECAP_NONE
            continue
        gold.write(root / str(task.task_id))
        summary.written.append(task.task_id)
        if gold.note:
            summary.notes[task.task_id] = gold.note
    atomic_write_json(
        root / "run.json",
        {
            "harness": "gold",
            "model": "oracle",
            "rep": 1,
            "notes": {str(k): v for k, v in sorted(summary.notes.items())},
        },
    )
    return summary
