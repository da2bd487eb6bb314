"""Shared pieces of the demo generator: dataset rows, URLs, deterministic zips and JSON, run folders."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HUB_REPO = "Anonymous47621123/AgenticVBench_100"
HUB_RESOLVE = f"https://huggingface.co/datasets/{HUB_REPO}/resolve/main/"
RUN_NAMES: tuple[str, ...] = ("perfect", "partial", "broken")
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


@dataclass
class BuildContext:
    """Where one family builder writes: the mirror root, the runs root and a private scratch folder."""

    mirror: Path
    runs: Path
    work: Path

    def task_dir(self, run: str, task_id: int, *, output: bool = False) -> Path:
        """`RUN/<task_id>/` (or `RUN/<task_id>/output/`, the harness layout), created."""
        d = self.runs / run / str(task_id)
        if output:
            d = d / "output"
        d.mkdir(parents=True, exist_ok=True)
        return d


def url(path: str, *, full: bool) -> str:
    """A `*_urls` entry for repo path `path`: a full Hub resolve URL or the repo-relative path (both occur)."""
    return HUB_RESOLVE + path if full else path


def row(
    task_id: int,
    family: str,
    prompt: str,
    refs: Sequence[str],
    rubric: Any,
    vrefs: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One dataset row in the real column layout (`rubric_json` is a JSON string)."""
    return {
        "task_id": task_id,
        "task_family": family,
        "prompt": prompt,
        "reference_file_urls": list(refs),
        "verifier_reference_urls": list(vrefs) if vrefs is not None else None,
        "rubric_json": json.dumps(rubric),
    }


def write_json(path: Path, obj: Any) -> Path:
    """Write `obj` as indented JSON (stable key order as given), creating parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2) + "\n", encoding="utf-8")
    return path


def write_text(path: Path, text: str) -> Path:
    """Write a text file, creating parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_zip(path: Path, members: Sequence[tuple[str, Path]]) -> Path:
    """A reproducible zip (fixed timestamps and permissions, stored, members in the given order)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, src in members:
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.create_system = 3
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_STORED
            zf.writestr(info, src.read_bytes())
    return path


def manifest(sources: Sequence[Any], durations: Sequence[float]) -> dict[str, Any]:
    """A `solution.json` manifest: one segment per source, laid end to end, each using the clip from 0."""
    segments, t = [], 0.0
    for src, d in zip(sources, durations, strict=True):
        segments.append({"output": [round(t, 3), round(t + d, 3)], "source": src, "source_range": [0.0, d]})
        t += d
    return {"segments": segments}


def repair_report(task_id: int, kind: str, start: str, end: str, note: str) -> str:
    """A `report.md` with one `## Diagnosis` block in the official line grammar."""
    return (
        f"# Repair report, task {task_id}\n\n## Diagnosis\n- type: {kind}\n- start: {start}\n- end: {end}\n\n"
        f"### Evidence\n{note}\n\n## Repair trajectory\nRebuilt the damaged window from clean footage.\n"
    )
