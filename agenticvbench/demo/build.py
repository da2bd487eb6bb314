"""Build the embedded demo benchmark: a local Hub-layout mirror plus a perfect, a partial and a broken run.

The build is deterministic (same bytes on every build with the same ffmpeg/library versions) and atomic: it
is written into a staging folder next to `dest`, the completion marker is written last, and the folder is
then renamed into place, so `dest` is either a complete build or absent. A complete build of the same
generator version is reused unless `force=True`.

It is also resumable, because the full size takes hours: every finished step (one task, or one repair source)
leaves a checkpoint in the staging folder with its return value, and a build that was interrupted or failed
keeps its staging folder, so the next `build_demo` of the same generator version, size and library versions
runs only the steps that had not finished. One builder at a time per `dest`: a lock file next to it is held for the whole
build, so a second builder waits and then reuses the first one's result.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from agenticvbench.dataset.loader import PARQUET_PATH, default_cache_dir
from agenticvbench.demo.common import RUN_NAMES, BuildContext, write_json
from agenticvbench.demo.ordering import (
    assembly_specs,
    build_assembly_task,
    build_sequencing_task,
    sequencing_specs,
)
from agenticvbench.demo.recap import build_recap_task, recap_specs
from agenticvbench.demo.repair import build_repair_task, build_sources, repair_plan
from agenticvbench.demo.sizes import SMALL, DemoSize, get_size
from agenticvbench.errors import AVBError
from agenticvbench.fsutil import atomic_write_json, atomic_write_text
from agenticvbench.results.provenance import library_versions
from agenticvbench.version import __version__

#: Bump when the generated content changes, so cached builds are rebuilt (3: Opus through FFmpeg's own encoder;
#: 4: the broken run's outputs come from the task's inputs; 5: recap rubrics gain audio and audio-visual llm items).
GENERATOR_VERSION = "5"
MARKER = ".avb-demo.json"
STEPS = ".steps"  # in the staging folder: one checkpoint per finished step, and what is being built

SCHEMA = pa.schema(
    [
        pa.field("task_id", pa.int64(), nullable=False),
        pa.field("task_family", pa.string(), nullable=False),
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("reference_file_urls", pa.list_(pa.string()), nullable=False),
        pa.field("verifier_reference_urls", pa.list_(pa.string()), nullable=True),
        pa.field("rubric_json", pa.string(), nullable=False),
    ]
)


@dataclass(frozen=True)
class DemoBenchmark:
    """A built demo: `mirror` (load with `load_tasks(dataset=mirror)`) and the runs by name."""

    root: Path
    mirror: Path
    runs: dict[str, Path] = field(default_factory=dict)


def default_demo_dir(size: str | DemoSize = SMALL) -> Path:
    """Where `avb demo` builds by default: `<package cache>/demo/<package version>` (`-<size>` unless small)."""
    name = get_size(size).name
    return default_cache_dir() / "demo" / (__version__ if name == "small" else f"{__version__}-{name}")


def _marker(dest: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((dest / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_complete(dest: Path, size: str | DemoSize = SMALL) -> bool:
    """True when `dest` holds a finished build of this generator version and size."""
    m = _marker(Path(dest)) or {}
    return m.get("generator_version") == GENERATOR_VERSION and m.get("size", "small") == get_size(size).name


def _layout(root: Path) -> DemoBenchmark:
    return DemoBenchmark(root=root, mirror=root / "mirror", runs={n: root / "runs" / n for n in RUN_NAMES})


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write dataset rows with the real column schema (pyarrow, no pandas metadata)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(sorted(rows, key=lambda r: r["task_id"]), schema=SCHEMA)
    pq.write_table(table, path)
    return path


Progress = Callable[[str], None]


def _checkpoint_path(root: Path, label: str) -> Path:
    return root / STEPS / (re.sub(r"[^a-z0-9]+", "-", label.lower()) + ".json")


_MISSING = object()


def _read_checkpoint(path: Path) -> Any:
    """The value a finished step returned, or `_MISSING`."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))["result"]
    except (OSError, ValueError, KeyError, TypeError):
        return _MISSING


def _populate(root: Path, size: DemoSize = SMALL, progress: Progress | None = None) -> None:
    ctx = BuildContext(mirror=root / "mirror", runs=root / "runs", work=root / ".work")
    # scratch of an interrupted build; its finished steps are kept
    shutil.rmtree(ctx.work, ignore_errors=True)
    sources, repairs = repair_plan(size)
    total = sum(size.counts) + len(sources)
    done = [0]
    lock = threading.Lock()
    t_start = time.perf_counter()

    def step(label: str, fn: Callable[..., Any], *args: Any) -> Any:
        t0 = time.perf_counter()
        checkpoint = _checkpoint_path(root, label)
        # finished by an earlier, interrupted build: its files are in place
        out = _read_checkpoint(checkpoint)
        how = "resumed"
        if out is _MISSING:
            # plain JSON (key order kept, no fallback for other types); what later steps get is read back, so a
            # fresh and a resumed build see the same values
            atomic_write_text(checkpoint, json.dumps({"result": fn(*args)}))
            out = _read_checkpoint(checkpoint)
            how = f"{time.perf_counter() - t0:.1f} s"
        if progress is not None:
            with lock:
                done[0] += 1
                progress(f"[{done[0]}/{total}] {label} {how} (elapsed {time.perf_counter() - t_start:.0f} s)")
        return out

    # ffmpeg runs in subprocesses, so `workers` threads keep that many cores busy; outputs do not depend on
    # scheduling (every task writes its own files). Repair sources first: their cells need the profiles.
    pool = ThreadPoolExecutor(max_workers=size.workers)
    try:
        base_f = {n: pool.submit(step, f"repair source {n}", build_sources, ctx, sources, n) for n in sources}
        futs: list[Future[dict[str, Any]]] = []
        for i, rs in enumerate(recap_specs(size)):  # heaviest first
            futs.append(pool.submit(step, f"recap {rs.task_id}", build_recap_task, ctx, rs, i))
        for i, sq in enumerate(sequencing_specs(size)):
            futs.append(pool.submit(step, f"sequencing {sq.task_id}", build_sequencing_task, ctx, sq, i))
        for i, asm in enumerate(assembly_specs(size)):
            futs.append(pool.submit(step, f"assembly {asm.task_id}", build_assembly_task, ctx, asm, i))
        base = {n: f.result() for n, f in base_f.items()}
        for i, rp in enumerate(repairs):
            args = (ctx, rp, i, sources[rp.source][0], base[rp.source])
            futs.append(pool.submit(step, f"repair {rp.task_id}", build_repair_task, *args))
        rows = [f.result() for f in futs]
    except BaseException:
        # a failed step or Ctrl-C: stop now (finished steps are checkpointed), not after the queue
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    write_parquet(ctx.mirror / PARQUET_PATH, rows)
    write_text_readme(ctx.mirror / "README.md", size)
    for name in RUN_NAMES:
        write_json(ctx.runs / name / "run.json", {"harness": "demo", "model": name, "rep": 1})
    shutil.rmtree(ctx.work, ignore_errors=True)  # absent when no step needed scratch space (e.g. all resumed)


def write_text_readme(path: Path, size: DemoSize = SMALL) -> None:
    """A dataset card for the mirror, so it reads like the Hub repo it imitates."""
    what = (
        "2-3 tasks per family"
        if size.name == "small"
        else f"size `{size.name}`: {', '.join(str(c) for c in size.counts)} recap/sequencing/repair/assembly tasks"
    )
    path.write_text(
        "# AgenticVBench demo mirror\n\nSynthetic, generated by `agenticvbench.demo` (generator version "
        f"{GENERATOR_VERSION}). Same layout and schema as the Hub dataset; {what}.\n",
        encoding="utf-8",
    )


def _replaceable(dest: Path) -> bool:
    return not dest.exists() or _marker(dest) is not None or (dest.is_dir() and not any(dest.iterdir()))


class _BuildLock:
    """An exclusive `flock` on `<parent>/.<name>.lock`, removed on release (re-taken if it was replaced meanwhile)."""

    def __init__(self, dest: Path) -> None:
        self.path = dest.with_name(f".{dest.name}.lock")
        self._fd = -1

    def __enter__(self) -> _BuildLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:  # the holder before us unlinks the file on release: then lock the new one instead
                if os.fstat(fd).st_ino == os.stat(self.path).st_ino:
                    self._fd = fd
                    return self
            except FileNotFoundError:
                pass
            os.close(fd)

    def __exit__(self, *exc: object) -> None:
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)


def _staging_for(dest: Path, size: DemoSize, *, fresh: bool) -> Path:
    """The staging folder of `dest`: kept from an interrupted build of the same generator and size made with the
    same package and library versions (ffmpeg, PyAV: they made its bytes), else new."""
    staging = dest.with_name(f".{dest.name}.building")
    what = {"generator_version": GENERATOR_VERSION, "size": size.name, "libraries": library_versions()}
    try:
        same = json.loads((staging / STEPS / "build.json").read_text(encoding="utf-8")) == what
    except (OSError, ValueError):
        same = False
    if fresh or not same:
        shutil.rmtree(staging, ignore_errors=True)
        atomic_write_json(staging / STEPS / "build.json", what)
    return staging


def build_demo(
    dest: str | os.PathLike[str],
    *,
    force: bool = False,
    size: str | DemoSize = SMALL,
    progress: Progress | None = None,
) -> DemoBenchmark:
    """Build (or reuse) the demo benchmark of `size` in `dest` and return where its mirror and runs are.

    `progress`, if given, is called with one line per finished step. An interrupted build resumes from its
    finished steps (`force` starts afresh). Refuses to replace a non-empty folder that is not a demo build
    (raises `AVBError`).
    """
    dest = Path(dest).absolute()
    size = get_size(size)
    if not force and is_complete(dest, size):
        return _layout(dest)
    with _BuildLock(dest):
        if not force and is_complete(dest, size):  # built by the builder we waited for
            return _layout(dest)
        if not _replaceable(dest):
            raise AVBError(f"{dest} exists and is not a demo build; refusing to overwrite it")
        return _build_locked(dest, size, force, progress)


def _build_locked(dest: Path, size: DemoSize, force: bool, progress: Progress | None) -> DemoBenchmark:
    """Populate the staging folder (resuming), then swap it into place; a failure keeps it for the next build."""
    staging = _staging_for(dest, size, fresh=force)
    _populate(staging, size, progress)
    marker: dict[str, Any] = {"generator": "agenticvbench.demo", "generator_version": GENERATOR_VERSION}
    if size.name != "small":
        marker["size"] = size.name
    atomic_write_json(staging / MARKER, marker)
    old = dest.with_name(f".{dest.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if dest.exists():
        os.replace(dest, old)
    os.replace(staging, dest)
    # only now: until the swap the staging folder stays resumable
    shutil.rmtree(dest / STEPS, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    return _layout(dest)
