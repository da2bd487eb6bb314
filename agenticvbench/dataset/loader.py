"""Dataset access: a Hub repo id, a local mirror directory, or a parquet path; lazily fetched, cached media.

`revision` is honoured for the parquet and for every media file: a Hub dataset is resolved once to a commit sha
(recorded in provenance) and all later downloads use that sha, so a run never mixes two versions of the data.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenticvbench.dataset.archive import extract_zip
from agenticvbench.dataset.selection import validate_task_ids
from agenticvbench.dataset.tasks import FAMILIES, Task, task_from_row
from agenticvbench.errors import DatasetError, TaskError
from agenticvbench.fsutil import text_sha256

DEFAULT_DATASET = "Anonymous47621123/AgenticVBench_100"
#: The dataset revision used when none is given. `main` until a release sha is published; pin it here then.
DEFAULT_REVISION = "main"
PARQUET_PATH = "data/train-00000-of-00001.parquet"
_RESOLVE_RE = re.compile(
    r"^https?://[^/]+/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$"
)
_SNAPSHOT_RE = re.compile(r"[/\\]snapshots[/\\](?P<sha>[0-9a-f]{40})[/\\]")


def default_cache_dir() -> Path:
    """The package's own cache (extracted zips, feature caches, judge cache): `$AVB_CACHE`, else the platform's user
    cache folder (`platformdirs`: `$XDG_CACHE_HOME/agenticvbench`, by default ~/.cache/agenticvbench, on Linux).
    Hugging Face files are not kept here: they stay in the Hub cache (`HF_HOME` / `HF_HUB_CACHE`)."""
    from platformdirs import user_cache_dir

    return Path(os.environ.get("AVB_CACHE") or user_cache_dir("agenticvbench", appauthor=False))


def default_dataset() -> str:
    """The dataset used when none is given: `$AVB_DATASET` (a Hub id, mirror folder or parquet), else the Hub id."""
    return os.environ.get("AVB_DATASET", "").strip() or DEFAULT_DATASET


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


#: How long the reachability probe of the Hub may take before the Hub counts as unreachable (seconds).
HUB_PROBE_TIMEOUT_S = 1.5
_HUB_REACHABLE: dict[str, bool] = {}
OFFLINE_HINT = (
    "pass --dataset PATH (a local mirror or parquet file; or set AVB_DATASET), "
    "or try `avb demo`, which needs no network"
)


def hub_reachable(endpoint: str | None = None, timeout: float = HUB_PROBE_TIMEOUT_S) -> bool:
    """Whether a TCP connection to the Hub endpoint (or the HTTPS proxy) opens within `timeout` seconds.

    Cached per endpoint for the process. The probe runs in a daemon thread so a hanging name lookup cannot
    outlast the timeout either; without it an unreachable Hub costs about half a minute of retries.
    """
    import socket
    import threading
    from urllib.parse import urlsplit

    url = endpoint or os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy")
    target = urlsplit(proxy if proxy and url.startswith("https") else url)
    key = f"{target.hostname}:{target.port}"
    if key in _HUB_REACHABLE:
        return _HUB_REACHABLE[key]
    ok: list[bool] = []

    def probe() -> None:
        try:
            port = target.port or (443 if target.scheme == "https" else 80)
            with socket.create_connection((target.hostname or "", port), timeout=timeout):
                ok.append(True)
        except OSError:
            pass

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(timeout + 0.2)
    _HUB_REACHABLE[key] = bool(ok)
    return _HUB_REACHABLE[key]


def repo_relative(url: str) -> str:
    """Turn a `*_urls` entry (full Hub `resolve` URL or repo-relative path) into a repo-relative path."""
    m = _RESOLVE_RE.match(url.strip())
    path = m.group("path") if m else url.strip().lstrip("/")
    if ".." in Path(path).parts:
        raise DatasetError(f"refusing URL with '..': {url}")
    return path


@dataclass(kw_only=True)
class DatasetSource:
    """Where tasks and media come from. Picklable, so worker processes can fetch media themselves."""

    dataset: str
    kind: str  # "hub" | "mirror" | "parquet"
    revision: str
    resolved_revision: str  # commit sha for the Hub; "local" for a mirror or parquet file
    root: Path | None
    cache_dir: Path
    hf_cache_dir: Path | None = None

    @classmethod
    def open(
        cls,
        dataset: str | os.PathLike[str] | None = None,
        revision: str | None = None,
        cache_dir: str | Path | None = None,
    ) -> tuple[DatasetSource, Path]:
        """Resolve `dataset` (None: `default_dataset()`) and return (source, local parquet path)."""
        dataset = default_dataset() if dataset is None else dataset
        cache = (Path(cache_dir).expanduser() if cache_dir else default_cache_dir()).resolve()
        path = Path(dataset).expanduser()
        local = (
            path.exists()
            or str(dataset).startswith((".", "~", os.sep))
            or path.suffix == ".parquet"
            or (path.parent != Path(".") and path.parent.is_dir())
        )
        if local and revision is not None and revision != DEFAULT_REVISION:
            raise DatasetError(
                f"{dataset}: --revision applies to Hub datasets; a local mirror or parquet file "
                "has no revisions (check out the revision you want instead)"
            )
        revision = revision or DEFAULT_REVISION
        path = path.resolve() if path.exists() else path

        def local_source(kind: str, root: Path) -> DatasetSource:
            return cls(
                dataset=str(path),
                kind=kind,
                revision=revision,
                resolved_revision="local",
                root=root,
                cache_dir=cache,
            )

        if path.is_file():
            root = path.parent.parent if path.parent.name == "data" else path.parent
            return local_source("parquet", root), path
        if path.is_dir():
            candidates = [path / PARQUET_PATH, *sorted((path / "data").glob("*.parquet"))]
            parquet = next((c for c in candidates if c.is_file()), None)
            if parquet is None:
                raise DatasetError(f"{path}: no {PARQUET_PATH} in this mirror directory")
            return local_source("mirror", path), parquet
        if local or str(dataset).count("/") != 1:
            raise DatasetError(f"{dataset}: no such file or directory (nor a Hub id of the form owner/name)")
        hf_cache = cache / "hub" if cache_dir else None
        src = cls(
            dataset=str(dataset),
            kind="hub",
            revision=revision,
            resolved_revision=revision,
            root=None,
            cache_dir=cache,
            hf_cache_dir=hf_cache,
        )
        fetched = src._hub_download(PARQUET_PATH, revision)
        m = _SNAPSHOT_RE.search(str(fetched))
        src.resolved_revision = m.group("sha") if m else revision
        return src, fetched

    def _hub_download(self, rel: str, revision: str) -> Path:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

        offline = _offline() or not hub_reachable()
        try:
            return Path(
                hf_hub_download(
                    self.dataset,
                    rel,
                    repo_type="dataset",
                    revision=revision,
                    cache_dir=self.hf_cache_dir,
                    endpoint=os.environ.get("HF_ENDPOINT") or None,
                    local_files_only=offline,
                )
            )
        except LocalEntryNotFoundError:
            why = "offline mode is on (HF_HUB_OFFLINE)" if _offline() else "the Hub is unreachable"
            raise DatasetError(
                f"{self.dataset}@{revision}: {rel} is not cached and {why}; {OFFLINE_HINT}"
            ) from None
        except (HfHubHTTPError, OSError, ValueError) as exc:
            raise DatasetError(f"{self.dataset}@{revision}: cannot fetch {rel}: {exc}") from None

    def fetch(self, url: str) -> Path:
        """Return a local path for one repo file (downloaded and cached for the Hub, pinned to the resolved sha)."""
        rel = repo_relative(url)
        if self.kind == "hub":
            return self._hub_download(rel, self.resolved_revision)
        assert self.root is not None
        p = self.root / rel
        if not p.is_file():
            where = (
                "beside this bare parquet file (pass the dataset mirror folder, which holds the media)"
                if self.kind == "parquet"
                else "in the local mirror"
            )
            raise DatasetError(f"{self.dataset}: {rel} not found {where}")
        return p

    def _materialise(self, urls: list[str]) -> list[Path]:
        out: list[Path] = []
        for url in urls:
            local = self.fetch(url)
            if local.suffix.lower() == ".zip":
                if self.kind == "hub":
                    key = self.resolved_revision
                else:  # local files can change in place: key the extraction by the zip's identity
                    st = local.stat()
                    key = "local-" + text_sha256(f"{local.resolve()}:{st.st_size}:{st.st_mtime_ns}")[:16]
                dest = self.cache_dir / "materials" / key / Path(repo_relative(url)).with_suffix("")
                out.extend(extract_zip(local, dest))
            else:
                out.append(local)
        return out

    def fetch_materials(self, task: Task) -> list[Path]:
        """The agent-visible inputs of `task` (zips extracted)."""
        return self._materialise(task.reference_file_urls)

    def fetch_verifier_references(self, task: Task) -> list[Path]:
        """The verifier-only references of `task` (repair sources)."""
        return self._materialise(task.verifier_reference_urls or [])

    def provenance(self) -> dict[str, Any]:
        """Dataset identity for result provenance."""
        return {
            "dataset": self.dataset,
            "kind": self.kind,
            "revision": self.revision,
            "resolved_revision": self.resolved_revision,
        }


def bare_parquet_note(tasks: list[Task]) -> str | None:
    """A warning when tasks come from a parquet file whose verifier-only media (repair sources) are not beside
    it, so those tasks cannot be scored; None otherwise (a mirror, the Hub, or media present)."""
    lacking: list[int] = []
    dataset = ""
    for t in tasks:
        src = t.source
        if isinstance(src, DatasetSource) and src.kind == "parquet" and src.root is not None:
            if any(not (src.root / repo_relative(u)).is_file() for u in t.verifier_reference_urls or []):
                lacking.append(t.task_id)
                dataset = src.dataset
    if not lacking:
        return None
    shown = ",".join(map(str, lacking[:10])) + (",..." if len(lacking) > 10 else "")
    return (
        f"{dataset} is a bare parquet file without the verifier-only media of task(s) {shown}: they will end "
        f"in error; pass the dataset mirror folder (data/ plus the media) to score them"
    )


def _read_rows(parquet: Path) -> list[dict[str, Any]]:
    """Rows of the task parquet, read with pyarrow (the engine `datasets` itself uses for parquet).

    `datasets` is not imported here on purpose: its import alone takes ~1.2 s, more than the whole 1 s budget for
    loading the task table; the rows are the ones `load_dataset(id, split="train")` yields.
    """
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(parquet).read()  # not read_table: it imports pyarrow.dataset and pandas
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise DatasetError(f"{parquet}: not a readable parquet file ({exc})") from None
    return table.to_pylist()


def _check_unique_ids(rows: list[dict[str, Any]], parquet: Path) -> None:
    """One row per task: a repeated `task_id` would make the answer key depend on row order."""
    counts = Counter(row.get("task_id") for row in rows)
    dups = sorted((k for k, n in counts.items() if n > 1), key=repr)
    if dups:
        raise DatasetError(
            f"{parquet}: field task_id: task {dups[0]!r} appears in {counts[dups[0]]} rows"
            + (f" (and {len(dups) - 1} more repeated id(s))" if len(dups) > 1 else "")
            + "; a dataset has one row per task"
        )


def load_tasks(
    family: str | None = None,
    *,
    task_ids: list[int] | None = None,
    dataset: str | os.PathLike[str] | None = None,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
) -> list[Task]:
    """Load typed tasks, optionally filtered by family and ids, from a Hub id, mirror directory or parquet path.

    `dataset` None means `$AVB_DATASET`, else the Hub id. `task_ids` must be a list of ints (a string is a
    TypeError). Every row's `rubric_json` is parsed and validated; a malformed row raises `TaskError` naming task
    and field.
    """
    task_ids = validate_task_ids(task_ids)
    if family is not None and family not in FAMILIES:
        raise DatasetError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    source, parquet = DatasetSource.open(dataset, revision, cache_dir)
    wanted = set(task_ids) if task_ids is not None else None
    rows = _read_rows(parquet)
    _check_unique_ids(rows, parquet)
    tasks = [
        task_from_row(row, source)
        for row in rows
        if family in (None, row.get("task_family")) and (wanted is None or row.get("task_id") in wanted)
    ]
    if wanted is not None and (missing := wanted - {t.task_id for t in tasks}):
        raise TaskError(
            sorted(missing)[0],
            "task_id",
            f"not in dataset {source.dataset}" + (f" (family {family})" if family else ""),
        )
    return sorted(tasks, key=lambda t: t.task_id)


def load_hf_dataset(
    dataset: str | os.PathLike[str] | None = None,
    *,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
) -> Any:
    """The raw task table as a Hugging Face `datasets.Dataset` (for `.filter`, `.map`, `.to_pandas`, ...).

    The same rows `load_dataset(id, split="train")` gives, but from the parquet this package resolved (pinned
    revision, offline mirrors and caches honoured). `load_tasks` is the typed, validated view of the same table.
    """
    import datasets

    _, parquet = DatasetSource.open(dataset, revision, cache_dir)
    return datasets.Dataset.from_parquet(
        str(parquet), cache_dir=str(Path(cache_dir or default_cache_dir()) / "hf"), keep_in_memory=True
    )
