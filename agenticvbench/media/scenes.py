"""Shot detection with PySceneDetect's ContentDetector, fed by the toolkit's own frame reader.

PySceneDetect's `SceneManager` (auto-downscaling, the detector's flash filter, cut sorting, scene-list building)
runs unchanged; only its video backend is replaced by `_ToolkitStream`, a `VideoStream` that reads frames from
`iter_frames` (PyAV, bgr24, exactly what scenedetect's own `pyav` backend decodes). So every decode in the project
still goes through `agenticvbench.media`, and positions are presentation times like the `pyav` backend's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
from scenedetect import ContentDetector, FrameTimecode, SceneManager, VideoStream
from scenedetect.common import Timecode

from agenticvbench.errors import MediaError
from agenticvbench.media.probe import probe
from agenticvbench.media.video import VideoFrame, iter_frames

_TIME_BASE = Fraction(1, 1_000_000)
"""Frame times are carried as microsecond PTS, so frame counts derived from them round exactly."""


def _rate(text: str) -> Fraction | None:
    try:
        fr = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    return fr if fr > 0 else None


class _ToolkitStream(VideoStream):
    """A forward-only `VideoStream` over `iter_frames` (enough for `SceneManager.detect_scenes`)."""

    BACKEND_NAME = "agenticvbench"

    def __init__(self, path: str | Path) -> None:
        self.on_frame: Callable[[VideoFrame], None] | None = None  # sees every frame read (shared decodes)
        info = probe(path)
        video = info.video
        if video is None or not video.width or not video.height:
            raise MediaError(f"{path}: no video stream")
        rate = _rate(video.r_frame_rate) or _rate(video.avg_frame_rate)
        if rate is None:
            raise MediaError(f"{path}: unknown frame rate")
        self._path = str(path)
        self._rate = rate
        self._size = (int(video.width), int(video.height))
        self._n_frames = int(video.nb_frames or round((info.duration or 0.0) * float(rate)))
        self._frames: Iterator[VideoFrame] | None = None
        self._current: VideoFrame | None = None
        self._count = 0

    @property
    def path(self) -> str:
        return self._path

    @property
    def name(self) -> str:
        return Path(self._path).stem

    @property
    def is_seekable(self) -> bool:
        return False

    @property
    def frame_rate(self) -> Fraction:
        return self._rate

    @property
    def duration(self) -> FrameTimecode | None:
        return self.base_timecode + self._n_frames

    @property
    def frame_size(self) -> tuple[int, int]:
        return self._size

    @property
    def aspect_ratio(self) -> float:
        return 1.0

    @property
    def position(self) -> FrameTimecode:
        if self._current is None:
            return self.base_timecode
        pts = round(self._current.time * _TIME_BASE.denominator)
        return FrameTimecode(timecode=Timecode(pts=max(0, pts), time_base=_TIME_BASE), fps=self._rate)

    @property
    def position_ms(self) -> float:
        return 0.0 if self._current is None else self._current.time * 1000.0

    @property
    def frame_number(self) -> int:
        return self._count

    def read(self, decode: bool = True) -> np.ndarray | bool:
        if self._frames is None:
            self._frames = iter_frames(self._path, pix_fmt="bgr24")
        frame = next(self._frames, None)
        if frame is None:
            return False
        self._current = frame
        self._count += 1
        if self.on_frame is not None:
            self.on_frame(frame)
        return frame.image if decode else True

    def reset(self) -> None:
        self._frames, self._current, self._count = None, None, 0

    def seek(self, target: object) -> None:
        raise NotImplementedError("forward-only stream")


class ShotDetection:
    """`ContentDetector(threshold)` over one file; the file is probed on construction (`MediaError` when it has
    no video stream or frame rate) and decoded by `run`."""

    def __init__(self, path: str | Path, *, threshold: float = 27.0) -> None:
        self.threshold = threshold
        self._stream = _ToolkitStream(path)  # probes: fails before any decoding

    def run(self, on_frame: Callable[[VideoFrame], None] | None = None) -> list[tuple[float, float]]:
        """Shots as (start_s, end_s); `on_frame` also receives every BGR frame the detector reads, in order, so
        other measurements can share this decode."""
        self._stream.reset()
        self._stream.on_frame = on_frame
        manager = SceneManager()
        manager.add_detector(ContentDetector(threshold=self.threshold))
        manager.detect_scenes(video=self._stream)
        return [(start.seconds, end.seconds) for start, end in manager.get_scene_list()]


def detect_shots(path: str | Path, *, threshold: float = 27.0) -> list[tuple[float, float]]:
    """Shots as (start_s, end_s) from `ContentDetector(threshold)`; empty when no cut was found.

    Same contract as `scenedetect.detect(path, ContentDetector(threshold=...))`: without any cut the scene list
    is empty (not one whole-video scene), and the last shot ends one frame after the last frame's time.
    """
    return ShotDetection(path, threshold=threshold).run()
