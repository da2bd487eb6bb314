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
from urllib.parse import urlsplit

from agenticvbench.dataset.loader import (
    DEFAULT_DATASET,
    DatasetSource,
    default_cache_dir,
    default_dataset,
    repo_relative,
)
from agenticvbench.dataset.tasks import GROUND_TRUTH_DIR, Task
from agenticvbench.errors import DatasetError
from agenticvbench.trajectory.extract import through_links

#: Repository names whose every copy is answer material, whatever its owner (a mirror on another account).
MIRROR_NAMES = frozenset({DEFAULT_DATASET.split("/")[1].lower()})
#: The parquet's columns that hold answers: a call that names them is reaching for the answer key.
ANSWER_FIELDS = ("correct_order", "rubric_json", "verifier_reference_urls")
#: Folders that hold nothing but tasks' inputs: listing one names no answer.
_INPUT_FOLDERS = re.compile(r"(?:recap|sequencing|repair|assembly)(?:/materials)?")
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
    #: (spelling given, resolved) for each folder above given through a symlink: a path under the spelling is
    #: read under the resolved folder (`AuditContext.resolved`).
    aliases: tuple[tuple[str, str], ...] = ()

    @classmethod
    def build(
        cls,
        tasks: list[Task],
        *,
        runs: Sequence[Path] = (),
        cache_dir: str | Path | None = None,
        dataset: str | os.PathLike[str] | None = None,
    ) -> AuditContext:
        """The context of `tasks` (loaded from one dataset: its source says where it lives) and the runs;
        `dataset` is the dataset as it was given (a symlink to a mirror is kept next to the mirror it leads to)."""
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
        given_cache = Path(cache_dir or default_cache_dir()).expanduser()
        cache = str(given_cache.resolve())
        env = {"HOME": os.path.expanduser("~"), "AVB_CACHE": cache}
        given = [(given_cache, cache), *((Path(r), str(Path(r).resolve())) for r in runs)]
        dataset = default_dataset() if dataset is None else dataset
        if root is not None:
            spelt = Path(dataset).expanduser()
            given.append((spelt if spelt.is_dir() else _root_of(spelt), root))
            if parquet is not None:
                given.append((spelt, parquet))
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
            aliases=_aliases(given),
        )

    def resolved(self, path: str) -> str:
        """`path` (normalised) with a folder given through a symlink (`aliases`) replaced by where it leads."""
        return through_links(path, dict(self.aliases))

    @property
    def repo_names(self) -> frozenset[str]:
        """The repository names matched under any owner."""
        return MIRROR_NAMES | {r.split("/", 1)[-1] for r in self.repos}

    def classify(self, tail: str, task_id: int) -> tuple[str, str] | None:
        """What a place inside the dataset repository is for task `task_id`: None for its own inputs, else
        ("answer_access" | "foreign_task", why). `tail` is the part of a path or URL after the repository. A family's
        folder or its `materials/` (inputs only: a listing of them names no answer) is None too. The why names the
        kind of place, never the tail itself (the agent's text, which could spell anything)."""
        tail = tail.strip("/")
        if _INPUT_FOLDERS.fullmatch(tail):
            return None
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
        return "answer_access", REPO_WHY


def _root_of(parquet: Path) -> Path:
    """The mirror folder of a parquet file's path, as the loader finds it (`data/<file>` in a mirror)."""
    return parquet.parent.parent if parquet.parent.name == "data" else parquet.parent


def _aliases(given: list[tuple[Path, str]]) -> tuple[tuple[str, str], ...]:
    """(the spelling made absolute without resolving links, the resolved path) of each given place whose
    spelling differs from where it leads and that does lead there (longest spelling first)."""
    out: dict[str, str] = {}
    for spelt, real in given:
        lexical = os.path.normpath(os.path.abspath(spelt))
        try:
            same = str(Path(lexical).resolve()) == real
        except (OSError, RuntimeError):
            same = False
        if same and lexical != real:
            out[lexical] = real
    return tuple(sorted(out.items(), key=lambda x: -len(x[0])))


def _rel(url: str) -> str:
    try:
        return repo_relative(url)
    except DatasetError:
        return url.strip().lstrip("/")


_FIELDS = "|".join(ANSWER_FIELDS)
#: An answer column read by a call: its name as a string (`df['correct_order']`, `row.get("rubric_json")`, a
#: column list), after a `.` (`row.correct_order`, jq's `.correct_order`) or selected in SQL (`SELECT
#: correct_order`).
_FIELD_READ = re.compile(
    rf"(?i)(?:['\"]({_FIELDS})\\?['\"]|\.({_FIELDS})(?!\w))|\bselect\s[^;\n]{{0,300}}?(?<!\w)({_FIELDS})(?!\w)"
)
#: An answer column's name anywhere in what a call returned: the agent saw the column.
_FIELD_SEEN = re.compile(rf"(?i)(?<![a-z0-9_])({_FIELDS})(?![a-z0-9_])")


def answer_field(call: str, result: str) -> str | None:
    """The answer column (`ANSWER_FIELDS`) a call reads or its result shows, or None. In the call, the name
    counts only as read (`_FIELD_READ`): a bare identifier (`correct_order = [3, 1, 2]`, a comment) is a name
    the agent chose, not the column. In the result, any mention counts."""
    m = _FIELD_READ.search(call) or _FIELD_SEEN.search(result)
    return next(g for g in m.groups() if g).lower() if m else None
