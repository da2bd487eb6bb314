"""The per-task memory cap every executor applies (`executors`, `dask_executor`): its setting and how it holds.

A task may grow its process's data segment (heap, anonymous mappings: where decoded frames, arrays and decoder
buffers live) by at most the cap: `RLIMIT_DATA` is set to the process's current data size plus the cap while the
task runs, and put back afterwards. An allocation past it fails inside the task: Python and numpy raise
`MemoryError`, libav returns ENOMEM, and the engine turns that into the task's `error` result naming the cap
(`over_cap_reason`), while the other tasks score. A watchdog thread reads the data size every 20 ms: a task
that came within 64 MiB of its limit is an `error` too (`cap_hit`), even when a verifier caught the failed
allocation and carried on (the repair edit drops a chunk whose worker raised), so no number computed short
of memory is kept. A worker killed outright (a native allocator that aborts) is named with the cap as well. `RLIMIT_AS` does not fit: an
honest task's virtual size (thread stacks, reserved glibc arenas, mapped libraries) is far above what it uses,
whereas the data segment grows with what it allocates.

Setting: `make_executor(memory_mb=)`, else `$AVB_TASK_MEMORY_MB`, else `DEFAULT_TASK_MEMORY_MB`; 0 turns the
cap off. The default is about three times the largest growth measured on honest tasks (docs/performance/memory.md).
Linux only (elsewhere, and where the limit cannot be set, tasks run uncapped).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from agenticvbench.errors import ConfigError

DEFAULT_TASK_MEMORY_MB = 6144
TASK_MEMORY_ENV = "AVB_TASK_MEMORY_MB"
MAX_TASK_MEMORY_MB = 1 << 30  # 1 PiB: anything larger is a typo
WATCH_S = 0.02  # how often the watchdog reads the data size
HEADROOM = 64 * 1024 * 1024  # the cap counts as reached this close to the limit
_ACTIVE: dict[str, int | bool] = {"cap_mb": 0, "hit": False}


def task_memory_mb(value: float | None = None) -> int:
    """The per-task memory cap in MiB (0 = off): `value`, else `$AVB_TASK_MEMORY_MB`, else the default;
    `ConfigError` (one line) for anything but a whole number from 0 to 2**30."""
    source = "the per-task memory cap"
    if value is None:
        env = os.environ.get(TASK_MEMORY_ENV, "").strip()
        if not env:
            return DEFAULT_TASK_MEMORY_MB
        source = f"${TASK_MEMORY_ENV}={env!r}"
        try:
            value = float(env)
        except ValueError:
            raise ConfigError(f"{source}: expected a whole number of MiB (0 turns the cap off)") from None
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value == int(value)):
        raise ConfigError(f"{source}: expected a whole number of MiB (0 turns the cap off), got {value}")
    if not 0 <= value <= MAX_TASK_MEMORY_MB:
        raise ConfigError(f"{source}: expected 0 to {MAX_TASK_MEMORY_MB} MiB, got {int(value)}")
    return int(value)


def cap_hit() -> bool:
    """True when the task running under `memory_cap` came within `HEADROOM` of its limit: an allocation may
    have failed there even if a verifier caught the `MemoryError` and carried on, so its number is not trusted."""
    return bool(_ACTIVE["hit"])


def over_cap_reason(cap_mb: int | None = None) -> str:
    """The `error` reason of a task that ran out of memory under the cap in force (or without one)."""
    cap = int(_ACTIVE["cap_mb"]) if cap_mb is None else cap_mb
    if cap:
        return (
            f"the task went over its memory cap of {cap} MiB (${TASK_MEMORY_ENV}); "
            "its submission is likely built to exhaust memory, or the cap is too low for its size"
        )
    return "the task ran out of memory (no per-task cap is set)"


def _data_bytes() -> int | None:
    """This process's data segment size (VmData), or None where /proc is not available."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


@contextmanager
def memory_cap(cap_mb: int) -> Iterator[bool]:
    """Run the body with the data segment limited to its current size plus `cap_mb` MiB; yields whether the
    cap holds (False when off or not supported). The previous limit is restored afterwards."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        yield False
        return
    now = _data_bytes() if cap_mb else None
    if now is None:
        yield False
        return
    previous = resource.getrlimit(resource.RLIMIT_DATA)
    hard = previous[1]
    soft = now + cap_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
    except (ValueError, OSError):
        yield False
        return
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(WATCH_S):
            size = _data_bytes()
            if size is not None and size >= soft - HEADROOM:
                _ACTIVE["hit"] = True

    _ACTIVE.update(cap_mb=cap_mb, hit=False)
    watchdog = threading.Thread(target=watch, name="avb-memory-watchdog", daemon=True)
    watchdog.start()
    try:
        yield True
    finally:
        stop.set()
        watchdog.join()
        _ACTIVE.update(cap_mb=0, hit=False)
        resource.setrlimit(resource.RLIMIT_DATA, previous)


class CappedCall:
    """`fn(job)` with the task's memory cap in force (`memory_cap`; 0 = off); picklable, so pool workers and Dask
    workers run it as it is."""

    def __init__(self, fn: Callable[[Any], Any], cap_mb: int = 0) -> None:
        self.fn = fn
        self.cap_mb = cap_mb

    def __call__(self, job: Any) -> Any:
        with memory_cap(self.cap_mb):
            return self.fn(job)
