"""One decode of a recap video for every frame-based measurement: the shot list and the OCR text.

Shot detection needs every frame as BGR pixels; the OCR check reads the frames ffmpeg's `fps` filter would pick
(about one a second). Both used to decode the file separately. `frame_pass` decodes it once: when shots are
wanted, the frames PySceneDetect reads are also offered to each OCR sampler (`detect_shots(on_frame=...)`); when
only OCR is wanted, frames are decoded without conversion and only the sampled ones become pixels. The OCR
recogniser runs on a worker thread (ONNX Runtime releases the GIL), so decoding goes on while a sample is read;
at most `OCR_QUEUE` sampled frames wait for it, which bounds memory. Results are the same as decoding per
measurement: the samplers see the same frames with the same times, and the texts are joined in frame order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.media import VideoFrame
from agenticvbench.media.scenes import ShotDetection
from agenticvbench.media.video import iter_decoded

OCR_QUEUE = 3
"""Sampled frames that may wait for the recogniser at once (1080p BGR is 6 MB each)."""
DUPLICATE_MAD = 0.5
"""A sampled frame whose 64x36 gray thumbnail differs from the last one read by less than this mean absolute
difference (0-255 scale) reuses that text instead of being read again."""


@dataclass(frozen=True)
class _Sample:
    index: int
    time: float
    pixels: Callable[[], np.ndarray]


class FpsSampler:
    """Picks the frames ffmpeg's `fps=<fps>` filter would output (each distinct frame once), fed one at a time.

    Measured on ffmpeg 9: output k is the last input frame whose time is before (k + 0.5) / fps, and the filter
    emits round(end * fps) frames, where end is the last frame's time plus one frame duration. A frame is known
    to be picked only when the next one arrives, so `push` returns the frames its arrival decided.
    """

    def __init__(self, fps: float) -> None:
        self.fps = fps
        self._k = 0
        self._prev: _Sample | None = None
        self._last_emitted = -1
        self._frame_dur: float | None = None

    def push(self, frame: _Sample) -> list[_Sample]:
        """Offer the next decoded frame; returns the earlier frames now known to be picked."""
        out: list[_Sample] = []
        prev = self._prev
        if prev is not None:
            self._frame_dur = frame.time - prev.time
        while prev is not None and frame.time >= (self._k + 0.5) / self.fps:
            if prev.index != self._last_emitted:
                self._last_emitted = prev.index
                out.append(prev)
            self._k += 1
        self._prev = frame
        return out

    def finish(self) -> list[_Sample]:
        """After the last frame: the last frame, when the filter would still emit it."""
        prev = self._prev
        if prev is None:
            return []
        dur = self._frame_dur
        end = prev.time + (dur if dur and dur > 0 else 0.0)
        if self._k < max(1, round(end * self.fps)) and prev.index != self._last_emitted:
            self._last_emitted = prev.index
            return [prev]
        return []


class OcrCollector:
    """The OCR text of one sample rate: skips near-duplicate samples and reads the rest on `pool`, in order."""

    def __init__(
        self,
        fps: float,
        read: Callable[[np.ndarray], str],
        pool: ThreadPoolExecutor,
        slots: threading.BoundedSemaphore,
    ) -> None:
        self.sampler = FpsSampler(fps)
        self._read, self._pool, self._slots = read, pool, slots
        self._last_thumb: np.ndarray | None = None
        self._texts: list[Future[str]] = []

    def _offer(self, samples: list[_Sample]) -> None:
        import cv2

        for sample in samples:
            image = sample.pixels()
            thumb = cv2.resize(
                cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (64, 36), interpolation=cv2.INTER_AREA
            ).astype(np.float32)
            if (
                self._last_thumb is not None
                and float(np.mean(np.abs(thumb - self._last_thumb))) < DUPLICATE_MAD
            ):
                continue
            self._last_thumb = thumb
            self._slots.acquire()
            future = self._pool.submit(self._read, image)
            future.add_done_callback(lambda _f: self._slots.release())
            self._texts.append(future)

    def push(self, frame: _Sample) -> None:
        """Offer the next decoded frame."""
        self._offer(self.sampler.push(frame))

    def finish(self) -> None:
        """Offer the end of the stream (the last frame may still be sampled)."""
        self._offer(self.sampler.finish())

    def text(self) -> str:
        """The non-empty texts read, one per line, in frame order (re-raises a recogniser failure)."""
        return "\n".join(t for t in (f.result().strip() for f in self._texts) if t)


@dataclass
class FramePassResult:
    """What one decode measured: the shots (or the error that stopped them) and each OCR rate's text (or error)."""

    shots: list[tuple[float, float]] | BaseException | None
    ocr: dict[float, str | BaseException]


def frame_pass(
    path: Path,
    *,
    shots_threshold: float | None,
    ocr_fps: list[float],
    read: Callable[[np.ndarray], str] | None,
) -> FramePassResult:
    """Decode `path` once for the shot list (when `shots_threshold` is given) and the OCR text at each of
    `ocr_fps` (read with `read`). A decoding failure is the result of every measurement of the pass; a
    recogniser failure only of the OCR texts."""
    if read is None:
        ocr_fps = []
    shots: list[tuple[float, float]] | BaseException | None = None
    detection = None
    if shots_threshold is not None:
        try:
            detection = ShotDetection(path, threshold=shots_threshold)
        except MediaError as exc:  # e.g. no frame rate: shots cannot run, OCR still can
            shots = exc
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="avb-ocr") if ocr_fps else None
    slots = threading.BoundedSemaphore(OCR_QUEUE)
    collectors = {fps: OcrCollector(fps, read, pool, slots) for fps in ocr_fps} if pool and read else {}
    try:
        try:
            if detection is not None:
                shots = detection.run(on_frame=lambda f: _feed(collectors, f))
            else:
                for sample in _unconverted(path):
                    _feed(collectors, sample)
            for collector in collectors.values():
                collector.finish()
        except MediaError as exc:
            failed: dict[float, str | BaseException] = {fps: exc for fps in collectors}
            return FramePassResult(exc if detection is not None else shots, failed)
        texts: dict[float, str | BaseException] = {}
        for fps, collector in collectors.items():
            try:
                texts[fps] = collector.text()
            except Exception as exc:  # noqa: BLE001 - one rate's failure is that measurement's result
                texts[fps] = exc
        return FramePassResult(shots, texts)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _feed(collectors: dict[float, OcrCollector], frame: VideoFrame | _Sample) -> None:
    if not collectors:
        return
    sample = frame if isinstance(frame, _Sample) else _Sample(frame.index, frame.time, lambda: frame.image)
    for collector in collectors.values():
        collector.push(sample)


def _unconverted(path: Path) -> Iterator[_Sample]:
    """Every frame, converted to BGR (once) only if a sampler asks for it."""
    frames = iter_decoded(path)
    try:
        for df in frames:
            yield _Sample(df.index, df.time, cache(partial(df.image, "bgr24")))
    finally:
        frames.close()


def fps_filter_frames(path: Path, fps: float) -> Iterator[VideoFrame]:
    """The frames ffmpeg's `fps=<fps>` filter would output for `path`, as BGR `VideoFrame`s (for tests and tools)."""
    sampler = FpsSampler(fps)
    for sample in _unconverted(path):
        for picked in sampler.push(sample):
            yield VideoFrame(picked.index, picked.time, picked.pixels())
    for picked in sampler.finish():
        yield VideoFrame(picked.index, picked.time, picked.pixels())
