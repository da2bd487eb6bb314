"""What the rules need to know about the benchmark and the runs, gathered once per audit: the dataset's answer
material (its repository names, local mirror, parquet, verifier-only references), every task's own inputs, the
scorer's cache and the run folders being audited.

Repository-relative paths (`recap/materials/1/film.mp4`) are the common currency: a Hub URL, a Hub cache path, a
mirror path and a cache path each lead back to one (`AuditContext.classify`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agenticvbench.dataset.loader import DEFAULT_DATASET, DatasetSource, default_cache_dir, repo_relative
from agenticvbench.dataset.tasks import GROUND_TRUTH_DIR, Task
from agenticvbench.errors import DatasetError

#: Repository names whose every copy is answer material, whatever its owner (a mirror on another account).
MIRROR_NAMES = frozenset({DEFAULT_DATASET.split("/")[1].lower()})
#: The parquet's columns that hold answers: a call that names them is reaching for the answer key.
ANSWER_FIELDS = ("correct_order", "rubric_json", "verifier_reference_urls")
_MATERIALS = re.compile(r"(?:^|/)(recap|sequencing|repair|assembly)/materials/0*([0-9]+)(?:[/.]|$)")
_HUB_HOST = "huggingface.co"
#: Why a place in the repository that is neither an input, a verifier-only reference nor the table is flagged.
REPO_WHY = "the dataset repository"
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})


def _stem(rel: str) -> str:
    return rel[: -len(".zip")] if rel.lower().endswith(".zip") else rel


@dataclass(kw_only=True)
class AuditContext:
    """The dataset and runs one audit looks at (build it with `AuditContext.build`)."""

    repos: frozenset[str]  # "owner/name", lower case: the official repo and the Hub dataset being scored
    inputs: dict[int, tuple[str, ...]]  # task id -> its input files, repository-relative
    hosts: dict[int, frozenset[str]]  # task id -> hosts its input URLs are on
    references: frozenset[str]  # every verifier-only reference, repository-relative
    dataset_root: str | None = None  # the local mirror being scored (absolute)
    parquet: str | None = None  # the parquet being scored (absolute)
    cache_dir: str | None = None  # the scorer's cache ($AVB_CACHE or the package's cache folder)
    ground_truth: str = str(GROUND_TRUTH_DIR)
    runs: tuple[str, ...] = ()  # the run folders being audited (absolute)
    env: dict[str, str] = field(default_factory=dict)  # for `~` and `$VAR` in paths

    @classmethod
    def build(
        cls, tasks: list[Task], *, runs: Sequence[Path] = (), cache_dir: str | Path | None = None
    ) -> AuditContext:
        """The context of `tasks` (loaded from one dataset: its source says where it lives) and the runs."""
        inputs: dict[int, tuple[str, ...]] = {}
        hosts: dict[int, frozenset[str]] = {}
        refs: set[str] = set()
        repos = {DEFAULT_DATASET.lower()}
        root = parquet = None
        for t in tasks:
            inputs[t.task_id] = tuple(_rel(u) for u in t.reference_file_urls)
            hosts[t.task_id] = frozenset(
                (urlsplit(u).hostname or _HUB_HOST).lower() if "://" in u else _HUB_HOST
                for u in t.reference_file_urls
            ) | {_HUB_HOST, "hf.co"}
            refs.update(_rel(u) for u in t.verifier_reference_urls or [])
            src = t.source
            if isinstance(src, DatasetSource):
                if src.kind == "hub":
                    repos.add(src.dataset.lower())
                elif src.root is not None:
                    root = str(src.root.resolve())
                    if src.kind == "parquet":
                        parquet = str(Path(src.dataset).resolve())
                cache_dir = cache_dir or src.cache_dir
        cache = str(Path(cache_dir or default_cache_dir()).expanduser().resolve())
        env = {"HOME": os.path.expanduser("~"), "AVB_CACHE": cache}
        return cls(
            repos=frozenset(repos),
            inputs=inputs,
            hosts=hosts,
            references=frozenset(refs),
            dataset_root=root,
            parquet=parquet,
            cache_dir=cache,
            runs=tuple(str(Path(r).resolve()) for r in runs),
            env=env,
        )

    @property
    def repo_names(self) -> frozenset[str]:
        """The repository names matched under any owner."""
        return MIRROR_NAMES | {r.split("/", 1)[-1] for r in self.repos}

    def classify(self, tail: str, task_id: int) -> tuple[str, str] | None:
        """What a place inside the dataset repository is for task `task_id`: None for its own inputs, else
        ("answer_access" | "foreign_task", why). `tail` is the part of a path or URL after the repository."""
        tail = tail.strip("/")
        for rel in self.inputs.get(task_id, ()):
            for r in {rel, _stem(rel)}:
                if tail == r or tail.endswith("/" + r) or f"/{r}/" in f"/{tail}":
                    return None
        if any(tail == r or tail.endswith("/" + r) for r in self.references) or "sources/" in f"/{tail}":
            return "answer_access", "a verifier-only reference"
        if tail.endswith(".parquet") or tail.startswith("data/") or "/data/" in f"/{tail}":
            return "answer_access", "the dataset's table (answers and rubrics)"
        m = _MATERIALS.search(tail)
        if m and int(m.group(2)) != task_id:
            return "foreign_task", f"task {int(m.group(2))}'s input"
        return "answer_access", REPO_WHY + (f" ({tail[:80]})" if tail else "")


def _rel(url: str) -> str:
    try:
        return repo_relative(url)
    except DatasetError:
        return url.strip().lstrip("/")


def find_text(haystack: str, needles: Any) -> str | None:
    """The first of `needles` found in `haystack` (case-insensitive), or None."""
    low = haystack.lower()
    return next((n for n in needles if n and n.lower() in low), None)
