"""Build the embedded demo benchmark: a local Hub-layout mirror plus a perfect, a partial and a broken run.

The build is deterministic (same bytes on every build with the same ffmpeg/library versions) and atomic: it
is written into a staging folder next to `dest`, the completion marker is written last, and the folder is
then renamed into place, so `dest` is either a complete build or absent. A complete build of the same
generator version is reused unless `force=True`.
"""

from __future__ import annotations

import json
import os
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
from agenticvbench.fsutil import atomic_write_json
from agenticvbench.loader import PARQUET_PATH, default_cache_dir
from agenticvbench.version import __version__

#: Bump when the generated content changes, so cached builds are rebuilt.
GENERATOR_VERSION = "2"
MARKER = ".avb-demo.json"

SCHEMA = pa.schema([
    pa.field("task_id", pa.int64(), nullable=False),
    pa.field("task_family", pa.string(), nullable=False),
    pa.field("prompt", pa.string(), nullable=False),
    pa.field("reference_file_urls", pa.list_(pa.string()), nullable=False),
    pa.field("verifier_reference_urls", pa.list_(pa.string()), nullable=True),
    pa.field("rubric_json", pa.string(), nullable=False),
])


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
    m = _marker(Path(dest))
    return (m is not None and m.get("generator_version") == GENERATOR_VERSION
            and m.get("size", "small") == get_size(size).name)


def _layout(root: Path) -> DemoBenchmark:
    return DemoBenchmark(root=root, mirror=root / "mirror", runs={n: root / "runs" / n for n in RUN_NAMES})


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write dataset rows with the real column schema (pyarrow, no pandas metadata)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(sorted(rows, key=lambda r: r["task_id"]), schema=SCHEMA)
    pq.write_table(table, path)
    return path


Progress = Callable[[str], None]


def _populate(root: Path, size: DemoSize = SMALL, progress: Progress | None = None) -> None:
    ctx = BuildContext(mirror=root / "mirror", runs=root / "runs", work=root / ".work")
    sources, repairs = repair_plan(size)
    total = sum(size.counts) + len(sources)
    done = [0]
    lock = threading.Lock()
    t_start = time.perf_counter()

    def step(label: str, fn: Callable[..., Any], *args: Any) -> Any:
        t0 = time.perf_counter()
        out = fn(*args)
        if progress is not None:
            with lock:
                done[0] += 1
                progress(f"[{done[0]}/{total}] {label} {time.perf_counter() - t0:.1f} s "
                         f"(elapsed {time.perf_counter() - t_start:.0f} s)")
        return out

    # ffmpeg runs in subprocesses, so `workers` threads keep that many cores busy; outputs do not depend on
    # scheduling (every task writes its own files). Repair sources first: their cells need the profiles.
    with ThreadPoolExecutor(max_workers=size.workers) as pool:
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
            futs.append(pool.submit(step, f"repair {rp.task_id}", build_repair_task, ctx, rp, i,
                                    sources[rp.source][0], base[rp.source]))
        rows = [f.result() for f in futs]
    write_parquet(ctx.mirror / PARQUET_PATH, rows)
    write_text_readme(ctx.mirror / "README.md", size)
    for name in RUN_NAMES:
        write_json(ctx.runs / name / "run.json", {"harness": "demo", "model": name, "rep": 1})
    shutil.rmtree(ctx.work)


def write_text_readme(path: Path, size: DemoSize = SMALL) -> None:
    """A dataset card for the mirror, so it reads like the Hub repo it imitates."""
    what = ("2-3 tasks per family" if size.name == "small" else
            f"size `{size.name}`: {', '.join(str(c) for c in size.counts)} recap/sequencing/repair/assembly tasks")
    path.write_text(
        "# AgenticVBench demo mirror\n\nSynthetic, generated by `agenticvbench.demo` (generator version "
        f"{GENERATOR_VERSION}). Same layout and schema as the Hub dataset; {what}.\n",
        encoding="utf-8")


def _replaceable(dest: Path) -> bool:
    return not dest.exists() or _marker(dest) is not None or (dest.is_dir() and not any(dest.iterdir()))


def build_demo(dest: str | os.PathLike[str], *, force: bool = False, size: str | DemoSize = SMALL,
               progress: Progress | None = None) -> DemoBenchmark:
    """Build (or reuse) the demo benchmark of `size` in `dest` and return where its mirror and runs are.

    `progress`, if given, is called with one line per finished task. Refuses to replace a non-empty folder
    that is not a demo build (raises `AVBError`).
    """
    dest = Path(dest).absolute()
    size = get_size(size)
    if not force and is_complete(dest, size):
        return _layout(dest)
    if not _replaceable(dest):
        raise AVBError(f"{dest} exists and is not a demo build; refusing to overwrite it")
    tag = f"{os.getpid()}-{threading.get_ident()}"
    staging = dest.with_name(f".{dest.name}.building-{tag}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        _populate(staging, size, progress)
        marker: dict[str, Any] = {"generator": "agenticvbench.demo", "generator_version": GENERATOR_VERSION}
        if size.name != "small":
            marker["size"] = size.name
        atomic_write_json(staging / MARKER, marker)
        old = dest.with_name(f".{dest.name}.old-{tag}")
        if dest.exists():
            os.replace(dest, old)
        try:
            os.replace(staging, dest)
        except OSError:
            if not is_complete(dest, size):  # another builder won the race with a complete build: keep theirs
                raise
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return _layout(dest)
