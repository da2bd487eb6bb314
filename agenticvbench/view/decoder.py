"""The viewer's decoder: thumbnails are made in a separate process, under the per-task memory cap and a time limit.

`avb view` decodes only files that scoring checked (headers, declared sizes, sample tables) and hashed, but a
decoder still meets agent bytes. So the viewer never decodes in its own process: one spawned process makes the
frames of one video per job, with its data segment limited like a scoring task's (`scoring.memory_cap`:
`$AVB_TASK_MEMORY_MB`, 6144 MiB by default) and `DECODE_TIMEOUT_S` to finish. A job that goes over the cap, runs
out of time or kills its process (a native abort) makes no frames and names why; the page says so, the process is
replaced, and every other page is served as before.

The job reads the video by the path the viewer hands it: the checked descriptor's `/proc/<viewer pid>/fd/<n>`
(the bytes scoring hashed, opened by the viewer for the duration of the job), which a child of the same user
may open.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

DECODE_TIMEOUT_S = 120.0
#: Under the cap, a decoder that cannot allocate says ENOMEM, or EAGAIN when its threads' stacks do not fit.
OUT_OF_MEMORY = (errno.ENOMEM, errno.EAGAIN)


def make_frames(video: str, todo: Sequence[tuple[float, str]], width: int, folder: str, cap_mb: int) -> int:
    """In the decoder process: write the JPEG frame of `video` at each (time, name) of `todo` into `folder`, with
    the data segment capped at `cap_mb` MiB more than now; returns how many were made. Raises `MemoryError` when
    the cap was reached (the frames made under it are removed: nothing decoded short of memory is kept)."""
    import av
    import cv2  # noqa: F401 - imported before the cap: the cap bounds decoding, not the libraries

    from agenticvbench.scoring.memory_cap import cap_hit, memory_cap

    made: list[Path] = []
    try:
        with memory_cap(cap_mb):
            try:
                write_frames(Path(video), todo, width, Path(folder), made)
            except MemoryError:  # libav's ENOMEM is an FFmpegError as well: over the cap, not undecodable
                raise
            except (av.error.FFmpegError, OSError, ValueError) as exc:
                if cap_mb and getattr(exc, "errno", None) in OUT_OF_MEMORY:
                    raise MemoryError from exc
                # otherwise not a video we can decode: the page shows the player (or nothing) instead
            if cap_hit():
                raise MemoryError
    except MemoryError:
        for p in made:
            p.unlink(missing_ok=True)
        raise
    return len(made)


class Decoder:
    """One decoder process, started on first use and replaced after a job that broke it or ran out of time."""

    def __init__(self, cap_mb: int | None = None, timeout_s: float = DECODE_TIMEOUT_S) -> None:
        from agenticvbench.scoring.memory_cap import task_memory_mb

        self.cap_mb = task_memory_mb(cap_mb)
        self.timeout_s = timeout_s
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn")
                )
            return self._pool

    def _replace(self, pool: ProcessPoolExecutor) -> None:
        """Kill `pool`'s process (a job past its time, or a dead process) so the next job starts a new one."""
        with self._lock:
            if self._pool is pool:
                self._pool = None
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def frames(
        self, video: str, todo: Sequence[tuple[float, str]], width: int, folder: Path
    ) -> tuple[int, str]:
        """Make the frames of `todo` (time, name) of `video` in `folder`; (how many were made, why none were when
        the job failed: over the memory cap, out of time, or the process died; "" when it ran)."""
        from agenticvbench.scoring.memory_cap import over_cap_reason

        for attempt in range(2):  # a job queued behind one that broke the process gets one new process
            pool = self._executor()
            try:
                future = pool.submit(make_frames, video, list(todo), width, str(folder), self.cap_mb)
                return future.result(timeout=self.timeout_s), ""
            except MemoryError:
                return 0, f"not decoded: {over_cap_reason(self.cap_mb)}"
            except FutureTimeout:
                self._replace(pool)
                return 0, f"not decoded: the decoder took longer than {self.timeout_s:g} s"
            except BrokenProcessPool:
                self._replace(pool)
                if attempt:
                    return 0, "not decoded: the decoder process died on this file"
            except (OSError, ValueError, RuntimeError) as exc:
                return 0, f"not decoded: {type(exc).__name__}"
        return 0, "not decoded"  # pragma: no cover - the loop returns

    def close(self) -> None:
        """Stop the decoder process (if one was started)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def write_frames(
    video: Path, todo: Sequence[tuple[float, str]], width: int, folder: Path, written: list[Path]
) -> None:
    """Decode `video` and write its frame at each (time, name) of `todo` as a JPEG in `folder`, appending each
    file to `written` (nothing for a file without video). Runs in the decoder process (`view.decoder`), which
    decides what a decoding error means."""
    import av
    import cv2

    with av.open(str(video)) as container:
        if not container.streams.video:
            return
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        height = max(2, round(width * (stream.height or 9) / (stream.width or 16) / 2) * 2)
        for t, name in sorted(todo):
            frame = _frame_at(container, stream, t)
            if frame is None:
                continue
            img = frame.to_ndarray(format="bgr24", width=width, height=height)
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
            if ok:
                _write_bytes(folder / name, buf.tobytes())
                written.append(folder / name)


def _frame_at(container: Any, stream: Any, t: float) -> Any:
    """The first decoded frame at or after `t` seconds (the last one when `t` is past the end)."""
    tb = stream.time_base
    container.seek(max(0, int(t / tb)) if tb else 0, stream=stream, backward=True)
    last = None
    for frame in container.decode(stream):
        last = frame
        if frame.time is None or frame.time >= t - 1e-3:
            return frame
    return last


def _write_bytes(path: Path, data: bytes) -> None:
    """Write atomically (a temporary file in the same folder, then rename): a reader never sees half a JPEG."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".jpg")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
