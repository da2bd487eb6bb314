"""Run the ffmpeg binary shipped by `imageio-ffmpeg` (no system ffmpeg needed) for filter-based measurements.

A tool that fails is never read as a measurement: a missing or unrunnable binary, or an ffmpeg killed by a
signal (a negative return code, or a shell-style 128+N exit such as 137 after the OOM killer), raises `ToolError`
(the task becomes an `error`) instead of handing its truncated log to a parser, where no black frame found would
have read as "no black gap". Every such failure is also recorded in the current task's collector
(`collect_tool_failures`, which the engine wraps around each verifier call), so a verifier that turns exceptions
into failed checks cannot hide one. The collector lives in a `contextvars.ContextVar`, so tasks scored at once on
the threads of one process (Dask with several threads per worker) each see only their own failures; a verifier
that calls ffmpeg on a thread of its own runs that thread in a copy of its context
(`contextvars.copy_context().run`). ffmpeg's own exit codes for a bad input (1, 69, or an error code such as 183
for invalid data) are the tool's verdict on the file and are left to the caller.

Submitted files pinned for the job (`agenticvbench.runs.pinned`) are passed to ffmpeg as their pinned descriptor path,
and that path is mapped back to the file's name in what ffmpeg prints.
"""

from __future__ import annotations

import logging
import signal
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

import imageio_ffmpeg

from agenticvbench.errors import MediaError, ToolError
from agenticvbench.runs.pinned import pinned, shown_as

#: Exit codes a shell gives a child killed by SIGINT, SIGQUIT, SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGKILL, SIGSEGV,
#: SIGTERM (128 + N). ffmpeg's own error exits map libav error tags to other values (e.g. 183, 254).
SIGNAL_EXITS: frozenset[int] = frozenset(
    128 + int(s)
    for s in (
        signal.SIGINT,
        signal.SIGQUIT,
        signal.SIGILL,
        signal.SIGABRT,
        signal.SIGBUS,
        signal.SIGFPE,
        signal.SIGKILL,
        signal.SIGSEGV,
        signal.SIGTERM,
    )
)
LOG = logging.getLogger(__name__)
#: The failure lists of the collectors open in this context, innermost last (empty: no task is collecting).
_COLLECTORS: ContextVar[tuple[list[str], ...]] = ContextVar("avb_tool_failures", default=())


@contextmanager
def collect_tool_failures() -> Iterator[list[str]]:
    """Collect the tool failures of the code run inside (one task): yields the list they are appended to.

    Each failure goes to every collector open in the current context (nested ones included), never to another
    thread's or task's collector. Threads started inside see it only when run in a copy of this context."""
    failures: list[str] = []
    token = _COLLECTORS.set((*_COLLECTORS.get(), failures))
    try:
        yield failures
    finally:
        _COLLECTORS.reset(token)


def record_tool_failure(message: str) -> None:
    """Add `message` to the current context's open collectors; with none open (no task), only log it."""
    collectors = _COLLECTORS.get()
    for failures in collectors:
        failures.append(message)
    if not collectors:
        LOG.warning("tool failure outside any task: %s", message)


def _fail(message: str) -> ToolError:
    record_tool_failure(message)
    return ToolError(message)


@lru_cache(maxsize=1)
def ffmpeg_exe() -> str:
    """Path of the ffmpeg binary bundled with imageio-ffmpeg (`IMAGEIO_FFMPEG_EXE` overrides it)."""
    try:
        return imageio_ffmpeg.get_ffmpeg_exe()
    except (RuntimeError, OSError) as exc:
        raise _fail(f"no ffmpeg binary: {exc}") from None


def _arg(value: object) -> str:
    text = str(value)
    pin = pinned(text) if "/" in text else None
    return pin.source if pin is not None else text


def run_ffmpeg(
    args: Sequence[str], *, timeout: float = 600.0, check: bool = False, input_bytes: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run `ffmpeg -hide_banner -nostdin ARGS`; returns the completed process (stdout/stderr as bytes).

    Raises `ToolError` when the binary is missing or cannot run, or ffmpeg was killed (see the module docstring).
    With `check=True` any other non-zero exit raises `MediaError` carrying the tail of stderr.
    """
    cmd = [ffmpeg_exe(), "-hide_banner", *(["-nostdin"] if input_bytes is None else []), *map(_arg, args)]
    try:
        proc = subprocess.run(cmd, input=input_bytes, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise MediaError(f"ffmpeg timed out after {timeout:.0f}s: {' '.join(map(str, args))}") from None
    except OSError as exc:  # missing, not executable, no memory to fork
        raise _fail(f"ffmpeg could not be run ({cmd[0]}: {exc.strerror or exc})") from None
    if b"/fd/" in proc.stderr:
        proc.stderr = shown_as(proc.stderr.decode("utf-8", "surrogateescape")).encode(
            "utf-8", "surrogateescape"
        )
    if proc.returncode < 0 or proc.returncode in SIGNAL_EXITS:
        how = (
            f"killed by signal {-proc.returncode}"
            if proc.returncode < 0
            else f"exit {proc.returncode}, killed by signal {proc.returncode - 128}"
        )
        raise _fail(
            f"ffmpeg failed ({how}) running {' '.join(map(str, args))[:200]}; its output is not a measurement"
        )
    if check and proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise MediaError(f"ffmpeg failed ({proc.returncode}): {' | '.join(tail)}")
    return proc
