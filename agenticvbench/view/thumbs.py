"""Frames of videos as small JPEG thumbnails, made once and cached by the video's content hash.

A thumbnail is named `<sha256 of the video>-<time in ms>-w<width>.jpg` in `<cache>/view-thumbs/`; the same video
under another name or in another run reuses it. Frames are decoded with PyAV and scaled while being converted
(`VideoFrame.to_ndarray(width=...)`), so memory stays at one decoded frame plus one small image even for a 1080p
source; they are decoded in a separate process under the per-task memory cap and a time limit (`view.decoder`). The content hash of a file is memoised per (path, size, mtime) for the life of the process.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from agenticvbench.fsutil import file_sha256
from agenticvbench.view.decoder import Decoder

WIDTH = 160
NAME_RE = re.compile(r"[0-9a-f]{64}-[0-9]{1,9}-w[0-9]{2,4}\.jpg", re.ASCII)
_HASHES: dict[tuple[str, int, int], str] = {}


def content_hash(path: Path) -> str:
    """SHA-256 of a file, memoised per (real path, size, mtime_ns)."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    if key not in _HASHES:
        _HASHES[key] = file_sha256(path)
    return _HASHES[key]


class Thumbnailer:
    """Makes and finds cached thumbnails under `cache_dir/view-thumbs`; counts what it made (for progress)."""

    def __init__(self, cache_dir: Path, *, progress: bool = True) -> None:
        self.folder = Path(cache_dir) / "view-thumbs"
        self.progress = progress
        self.made = 0
        self.failed: set[str] = set()
        self.problems: dict[str, str] = {}  # content hash -> why the decoder made no frame
        self.decoder: Decoder | None = None

    def path_of(self, name: str) -> Path | None:
        """The cached file of a thumbnail name, or None when the name is not one of ours or was never made."""
        if not NAME_RE.fullmatch(name):
            return None
        p = self.folder / name
        return p if p.is_file() else None

    def frames(self, video: Path, times: list[float], width: int = WIDTH) -> list[str | None]:
        """Thumbnail names of `video` at each time (seconds); None where no frame could be decoded."""
        try:
            sha = content_hash(video)
        except OSError:
            return [None] * len(times)
        names = [f"{sha}-{max(0, round(t * 1000))}-w{width}.jpg" for t in times]
        todo = [(t, n) for t, n in zip(times, names, strict=True) if not (self.folder / n).is_file()]
        if todo and sha not in self.failed:
            self._make(video, sha, todo, width)
        return [n if (self.folder / n).is_file() else None for n in names]

    def _make(self, video: Path, sha: str, todo: list[tuple[float, str]], width: int) -> None:
        """Make the frames of `todo` in the decoder process (`view.decoder`); a job that fails there marks the
        video failed, with the reason `problem` gives."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.decoder is None:
            self.decoder = Decoder()
        made, why = self.decoder.frames(str(video), todo, width, self.folder)
        if why or not made:
            self.failed.add(sha)
        if why:
            self.problems[sha] = why
        before, self.made = self.made, self.made + made
        if self.progress and self.made // 20 > before // 20:
            print(f"avb view: {self.made} thumbnail(s) made", file=sys.stderr, flush=True)

    def problem(self, video: Path) -> str:
        """Why no frame of `video` was made ("" when frames were made, or it is simply not a video)."""
        try:
            return self.problems.get(content_hash(video), "")
        except OSError:
            return ""

    def close(self) -> None:
        """Stop the decoder process, if one was started."""
        if self.decoder is not None:
            self.decoder.close()


def video_duration(path: Path) -> float | None:
    """A video's duration in seconds from its container (None when it cannot be read)."""
    import av

    try:
        with av.open(str(path)) as container:
            if container.duration:
                return float(container.duration) / 1_000_000
            streams = container.streams.video
            if streams and streams[0].duration and streams[0].time_base:
                return float(streams[0].duration * streams[0].time_base)
    except (av.error.FFmpegError, OSError, ValueError):
        return None
    return None
