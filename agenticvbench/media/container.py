"""The one way the toolkit opens a media file with PyAV: errors become `MediaError` naming the file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import av
from av.container import InputContainer

from agenticvbench.errors import MediaError
from agenticvbench.runs.pinned import shown_as, source_for


def open_failure(exc: BaseException) -> str:
    """Why a file did not open, in words: libav's message without its errno number or the path it repeats."""
    if isinstance(exc, FileNotFoundError):
        return "not found"
    text = shown_as(getattr(exc, "strerror", None) or str(exc))  # a pinned descriptor is named by its file
    if isinstance(exc, av.FFmpegError) and "Invalid data" in text:
        return "not a readable media file (truncated, or not audio/video at all)"
    return f"cannot open ({text})"


@contextmanager
def open_input(
    path: str | Path, *, need: str | None = None, options: dict[str, str] | None = None
) -> Iterator[InputContainer]:
    """Open `path` for reading; `need="video"|"audio"` also requires a stream of that kind.

    A submitted file pinned for the job being scored is read through its pinned descriptor (`pinned`), never
    re-opened by name. `options` are demuxer options (e.g. `{"ignore_editlist": "1"}`)."""
    try:
        container = av.open(source_for(path), metadata_errors="ignore", options=options or {})
    except (av.FFmpegError, OSError, ValueError) as exc:
        raise MediaError(f"{path}: {open_failure(exc)}") from None
    with container:
        if need == "video" and not container.streams.video:
            raise MediaError(f"{path}: no video stream")
        if need == "audio" and not container.streams.audio:
            raise MediaError(f"{path}: no audio stream")
        yield container
