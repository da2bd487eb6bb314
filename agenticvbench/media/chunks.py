"""Chunk-wise access to a video as the official repair scorer sees it, with each file decoded once.

The official edit rubric seeks `cv2.VideoCapture` with `CAP_PROP_POS_MSEC` per 10-s chunk and extracts audio
per chunk with `ffmpeg -ss S -t T -i FILE -ac 1 -ar 48000` to s16. Here: the same frame positions
(`opencv_seek_frame`), the ffmpeg PCM extraction (`pcm_s16`; `seek_audio` for the official per-chunk audio),
and `FrameWindow`, which decodes a video once, sequentially,
in a background thread, keeps only the frames a caller still needs and hands them out by index.
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Generic, TypeVar, cast

import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.media.ffmpeg import run_ffmpeg
from agenticvbench.media.video import VideoFrame, iter_frames

T = TypeVar("T")
_END = object()


def opencv_seek_frame(start_s: float, fps: float) -> int:
    """Index of the first frame `cv2.VideoCapture` returns after `set(CAP_PROP_POS_MSEC, start_s * 1000)`.

    OpenCV's FFmpeg backend turns the time into frame number `(int64)(start_s * fps + 0.5)` (fps =
    `CAP_PROP_FPS`, i.e. avg_frame_rate) and decodes forward from the previous keyframe counting frames, so
    the next read is that frame in decode order (frame numbers count from the stream's first frame). For
    constant-frame-rate files this is the frame whose timestamp is nearest to `start_s`, ties upward; it can be
    a frame slightly *before* `start_s` (59.94 fps, 10 s -> frame 599 at 9.993 s), so "first frame with
    timestamp >= start" would be wrong.
    """
    return int(start_s * fps + 0.5)


def pcm_s16(
    path: str | Path,
    *,
    sample_rate: int = 48000,
    start_s: float | None = None,
    duration_s: float | None = None,
    timeout: float = 600.0,
) -> np.ndarray:
    """First audio stream as mono int16 PCM at `sample_rate`, converted by the ffmpeg binary exactly as the
    official `-ac 1 -ar SR` s16 extraction does (stereo is averaged: (L + R) / 2).

    With `start_s`/`duration_s` the values are passed as input options formatted `%.3f` (`-ss`/`-t` before
    `-i`), the official per-chunk command line (run by the bundled ffmpeg, whose mov seeks differ from the
    official 5.1's: `seek_audio` emulates those). Raises `MediaError` carrying ffmpeg's last error line, e.g.
    "Output file #0 does not contain any stream" when there is no audio.
    """
    args: list[str] = ["-v", "error"]
    if start_s is not None:
        args += ["-ss", f"{start_s:.3f}"]
    if duration_s is not None:
        args += ["-t", f"{duration_s:.3f}"]
    proc = run_ffmpeg([*args, "-i", str(path), "-vn", *mono_s16_output(sample_rate)], timeout=timeout)
    if proc.returncode != 0:
        raise MediaError(f"ffmpeg audio extract failed: {_first_error(proc.stderr, proc.returncode)}")
    return np.frombuffer(proc.stdout, dtype="<i2")


def mono_s16_output(sample_rate: int) -> list[str]:
    """The official extraction's output options: mono int16 PCM at `sample_rate` on stdout."""
    return ["-ac", "1", "-ar", str(sample_rate), "-f", "s16le", "-acodec", "pcm_s16le", "pipe:1"]


def _first_error(stderr: bytes, returncode: int) -> str:
    """ffmpeg's first error line without its `[component @ 0x...]` prefix."""
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    return re.sub(r"^\[[^\]]*\]\s*", "", lines[0]) if lines else f"exit {returncode}"


class FrameWindow(Generic[T]):
    """Forward-only access by frame index to the wanted frames of a video, decoding it once, in order.

    `wanted(index)` selects frames; decoding stops after frame `last`. Each wanted frame goes through
    `transform` (in the decoding thread when `threaded`, so per-frame work overlaps with the caller's), and at
    most `prefetch` transformed frames wait in the queue. With `batch` > 1 the transformed frames are handed
    out in groups of `batch` consecutive wanted frames (the last group may be shorter), each group first passed
    to `on_batch` (also in the decoding thread): for work that is cheaper done on several frames at once. The caller asks `get(i)` with non-decreasing
    lower bounds and calls `release_below(i)` when it no longer needs earlier frames, so memory stays at the
    caller's working window whatever the video length. A decode error after the first frame ends the stream
    (like `cv2.VideoCapture.read()` returning False) and is kept in `error`; a file that cannot be opened or
    has no video stream yields no frames and sets `error` too.
    """

    def __init__(
        self,
        path: str | Path,
        wanted: Callable[[int], bool],
        last: int,
        transform: Callable[[VideoFrame], T],
        *,
        prefetch: int = 8,
        threaded: bool = True,
        batch: int = 1,
        on_batch: Callable[[list[T]], None] | None = None,
    ) -> None:
        self._stop = threading.Event()
        # once stopped, every frame is "wanted" so the decode loop reaches the stop check at the next frame
        self._frames = iter_frames(path, wanted=lambda i: self._stop.is_set() or wanted(i), last=last)
        self._transform = transform
        self._batch = max(1, batch)
        self._on_batch = on_batch
        self._window: dict[int, T] = {}
        self._top = -1  # highest index received so far
        self.ended = False
        self.error: str | None = None
        self._queue: queue.Queue[object] = queue.Queue(maxsize=max(1, prefetch))
        self._thread: threading.Thread | None = None
        self._source: Iterator[object]
        if threaded:
            self._thread = threading.Thread(
                target=self._produce, name=f"decode:{Path(path).name}", daemon=True
            )
            self._thread.start()
            self._source = self._drain()
        else:
            self._source = self._generate()

    def _generate(self) -> Iterator[object]:
        pending: list[tuple[int, T]] = []
        try:
            for vf in self._frames:
                if self._stop.is_set():
                    break
                pending.append((vf.index, self._transform(vf)))
                if len(pending) >= self._batch:
                    yield from self._flush(pending)
        except MediaError as exc:
            self.error = str(exc)
        finally:
            self._frames.close()
        yield from self._flush(pending)

    def _flush(self, pending: list[tuple[int, T]]) -> Iterator[object]:
        """Hand a batch of transformed frames to `on_batch`, then out, in order (empties `pending`)."""
        if pending and self._on_batch is not None and not self._stop.is_set():
            self._on_batch([value for _, value in pending])
        items = list(pending)
        pending.clear()
        yield from items

    def _produce(self) -> None:
        try:
            for item in self._generate():  # after close() the generator stops at its next frame
                self._put(item)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the consumer
            self._put(exc)
            return
        self._put(_END)

    def _put(self, item: object) -> bool:
        """Queue `item` for the consumer, waiting while the queue is full; gives up (False) once `close()` has
        been called, so the decoding thread never blocks forever on a consumer that has gone."""
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _drain(self) -> Iterator[object]:
        while True:
            item = self._queue.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def get(self, index: int) -> T | None:
        """The transformed frame `index`, or None if it is not wanted, released, or past the end."""
        while not self.ended and self._top < index:
            try:
                item = next(self._source)
            except StopIteration:
                self.ended = True
                break
            i, value = cast(tuple[int, T], item)
            self._window[i] = value
            self._top = i
        return self._window.get(index)

    def release_below(self, index: int) -> None:
        """Forget every frame before `index`."""
        for k in [k for k in self._window if k < index]:
            del self._window[k]

    def close(self) -> None:
        """Stop decoding and free the window (idempotent)."""
        self._stop.set()
        self._window.clear()
        if self._thread is not None:
            while self._thread.is_alive():
                try:
                    self._queue.get(timeout=0.05)
                except queue.Empty:
                    pass
            self._thread.join()
        else:
            self._frames.close()

    def __enter__(self) -> FrameWindow[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
