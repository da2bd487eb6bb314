"""Run the ffmpeg binary shipped by `imageio-ffmpeg` (no system ffmpeg needed) for filter-based measurements."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from functools import lru_cache

import imageio_ffmpeg

from agenticvbench.errors import MediaError


@lru_cache(maxsize=1)
def ffmpeg_exe() -> str:
    """Path of the ffmpeg binary bundled with imageio-ffmpeg."""
    return imageio_ffmpeg.get_ffmpeg_exe()


def run_ffmpeg(args: Sequence[str], *, timeout: float = 600.0, check: bool = False,
               input_bytes: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run `ffmpeg -hide_banner -nostdin ARGS`; returns the completed process (stdout/stderr as bytes).

    With `check=True` a non-zero exit raises `MediaError` carrying the tail of stderr.
    """
    cmd = [ffmpeg_exe(), "-hide_banner", *(["-nostdin"] if input_bytes is None else []), *map(str, args)]
    try:
        proc = subprocess.run(cmd, input=input_bytes, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise MediaError(f"ffmpeg timed out after {timeout:.0f}s: {' '.join(map(str, args))}") from None
    if check and proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise MediaError(f"ffmpeg failed ({proc.returncode}): {' | '.join(tail)}")
    return proc
