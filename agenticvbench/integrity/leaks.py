"""Boundary leaks across tasks: a submitted file byte-identical to a verifier-only reference of *any* task.

The verifier-only references (the repair `sources/*_source.mp4`) are never given to agents. A submission holding
a copy of one is evidence the agent reached material it should not have seen. A copy of the task's *own*
reference is `malformed` (`integrity.screen.screen_inputs`, it would score 0.99999); a copy of another task's
reference scores what the official scorer gives it and is flagged `verifier_reference`.

Cost is bounded: the client lists the dataset's references once per `avb verify` (path and size; nothing is
read), jobs carry that small index, and a submitted file is hashed against a reference only when their sizes
are equal. A reference is hashed at most once per process (`integrity.screen.reference_sha256`, cached by
path, size, mtime and inode). For a Hub dataset only references already in the local Hub cache are listed
(nothing is downloaded for this check); mirrors and parquet files list them all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from agenticvbench.dataset.loader import DatasetSource, repo_relative
from agenticvbench.dataset.tasks import Task
from agenticvbench.errors import AVBError


@dataclass(frozen=True)
class DatasetReference:
    """One verifier-only reference file of the dataset: which tasks it belongs to, its local path and size."""

    task_ids: tuple[int, ...]
    name: str
    path: str
    size: int


def _local_path(task: Task, url: str) -> Path | None:
    """Where the reference is on this machine without downloading it (None when it is not here)."""
    src = task.source
    if not isinstance(src, DatasetSource):
        return None
    if src.kind != "hub":
        try:
            return Path(src.fetch(url))
        except (AVBError, OSError):
            return None
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(
        src.dataset,
        repo_relative(url),
        cache_dir=src.hf_cache_dir,
        revision=src.resolved_revision,
        repo_type="dataset",
    )
    return Path(found) if isinstance(found, str) else None


def dataset_references(tasks: Iterable[Task]) -> tuple[tuple[DatasetReference, ...], int]:
    """(every verifier-only reference of `tasks` found on this machine, how many are not here). Files shared by
    several tasks are listed once, with all their task ids."""
    by_path: dict[str, tuple[list[int], str, int]] = {}
    absent = 0
    for task in tasks:
        for url in task.verifier_reference_urls or []:
            p = _local_path(task, url)
            real = os.path.realpath(p) if p is not None else ""
            try:
                size = os.stat(real).st_size  # "" (not on this machine) raises FileNotFoundError too
            except OSError:
                absent += 1
                continue
            ids, _name, _size = by_path.setdefault(real, ([], Path(repo_relative(url)).name, size))
            if task.task_id not in ids:
                ids.append(task.task_id)
    refs = tuple(
        DatasetReference(tuple(sorted(ids)), name, real, size)
        for real, (ids, name, size) in sorted(by_path.items())
    )
    return refs, absent


def leaked_references(
    task_id: int, submitted: dict[Path, str], refs: Iterable[DatasetReference], sha_of: Callable[[Path], str]
) -> list[tuple[Path, DatasetReference]]:
    """(submitted file, reference) pairs where the file is byte-identical to a reference of another task.

    `submitted` maps the task's own submitted files to their SHA-256; `sha_of(path)` hashes a reference (cached).
    References of `task_id` itself are skipped (the own-reference rule makes them `malformed` first).
    """
    out: list[tuple[Path, DatasetReference]] = []
    others = [r for r in refs if task_id not in r.task_ids]
    if not others:
        return out
    for p, sha in submitted.items():
        try:
            size = p.stat().st_size
        except OSError:
            continue
        for ref in others:
            if ref.size != size:
                continue
            try:
                if sha_of(Path(ref.path)) == sha:
                    out.append((p, ref))
                    break
            except OSError:
                continue
    return out
