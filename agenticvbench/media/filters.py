"""ffmpeg filter measurements (blackdetect, freezedetect, volumedetect, loudnorm, signalstats, decode errors).

Each function runs the bundled ffmpeg through `run_ffmpeg` and parses what the filter logs to stderr; the
`parse_*` functions are separate so they can be tested on captured text. The commands mirror the ones the
official recap kinds used, with two exactness-preserving changes documented where they apply:
black and freeze detection run with `d=0` (the caller applies the duration rule) so one pass serves every
`max_seconds`, and both detectors share one decode through `split`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from agenticvbench.media.ffmpeg import run_ffmpeg

FILTER_TIMEOUT_S = 3600.0
"""Whole-file filter passes decode the entire video; allow long films."""

_NUM = r"(-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|-?inf|nan)"
_BLACK_RE = re.compile(rf"black_start:\s*{_NUM}\s+black_end:\s*{_NUM}\s+black_duration:\s*{_NUM}", re.I)
_FREEZE_RE = re.compile(rf"lavfi\.freezedetect\.freeze_(start|end|duration):\s*{_NUM}", re.I)
_MEAN_VOL_RE = re.compile(rf"mean_volume:\s*{_NUM}\s*dB", re.I)
_MAX_VOL_RE = re.compile(rf"max_volume:\s*{_NUM}\s*dB", re.I)
_YAVG_RE = re.compile(rf"lavfi\.signalstats\.YAVG={_NUM}")
_EIGHT_BIT_YUV = "|".join(["yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p", "gray"])


@dataclass(frozen=True)
class Run:
    """A detected interval in seconds; `end` is None for a freeze still running at end of file."""

    start: float
    end: float | None

    @property
    def duration(self) -> float | None:
        """Length in seconds, None when the run never ended."""
        return None if self.end is None else self.end - self.start


@dataclass(frozen=True)
class VolumeStats:
    """volumedetect's summary (dBFS)."""

    mean_volume: float
    max_volume: float | None


def _text(stderr: bytes | str) -> str:
    return stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr


def parse_blackdetect(stderr: bytes | str) -> list[Run]:
    """Every `black_start/black_end/black_duration` line, in log order."""
    return [Run(float(s), float(e)) for s, e, _d in _BLACK_RE.findall(_text(stderr))]


def parse_freezedetect(stderr: bytes | str) -> list[Run]:
    """Pair freezedetect's start/end lines in order; a trailing start with no end becomes `Run(start, None)`."""
    runs: list[Run] = []
    start: float | None = None
    for key, value in _FREEZE_RE.findall(_text(stderr)):
        key = key.lower()
        if key == "start":
            if start is not None:  # a start with no end before the next start: never terminated
                runs.append(Run(start, None))
            start = float(value)
        elif key == "end" and start is not None:
            runs.append(Run(start, float(value)))
            start = None
    if start is not None:
        runs.append(Run(start, None))
    return runs


def parse_volumedetect(stderr: bytes | str) -> VolumeStats | None:
    """volumedetect's mean (and max) volume; None when the filter printed nothing (e.g. no audio)."""
    text = _text(stderr)
    means = _MEAN_VOL_RE.findall(text)
    if not means:
        return None
    maxes = _MAX_VOL_RE.findall(text)
    return VolumeStats(float(means[-1]), float(maxes[-1]) if maxes else None)


def parse_loudnorm_json(stderr: bytes | str) -> dict[str, str] | None:
    """The last `{...}` block loudnorm printed (its measurement JSON), or None when absent or unparsable."""
    text = _text(stderr)
    end = text.rfind("}")
    if end < 0:
        return None
    start = text.rfind("{", 0, end)
    if start < 0:
        return None
    try:
        obj = json.loads(text[start:end + 1])
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def parse_yavg(stderr: bytes | str) -> float | None:
    """The first frame's signalstats YAVG printed by the `metadata=print` filter, or None."""
    found = _YAVG_RE.findall(_text(stderr))
    return float(found[0]) if found else None


def detect_black_and_freeze(path: str | Path, *, pix_th: float = 0.10, freeze_noise: float = 0.003,
                            with_freeze: bool = True) -> tuple[list[Run], list[Run] | None]:
    """Black runs (blackdetect `d=0:pix_th`) and freeze runs (freezedetect `n:d=0`) of the first video stream.

    One decode feeds both detectors through `split`. Both run with `d=0`: a detector's `d` only decides which
    runs it *reports*, never where a run starts or ends, and a run that the official rule counts
    (`duration > max_seconds`) always has `duration >= max_seconds / 2 = d`, so filtering these runs by duration
    gives exactly the official verdict for every `max_seconds` from one pass. With `d=0`, freezedetect also
    reports one-frame "runs" between changing frames; those are the same ones it reports whenever
    `d` is below one frame duration, so the equivalence holds there too.
    """
    graph = f"[0:v:0]split=2[b][f];[b]blackdetect=d=0:pix_th={pix_th:g}[bo];" \
            f"[f]freezedetect=n={freeze_noise:g}:d=0,nullsink"
    if not with_freeze:
        graph = f"[0:v:0]blackdetect=d=0:pix_th={pix_th:g}[bo]"
    proc = run_ffmpeg(["-i", str(path), "-filter_complex", graph, "-map", "[bo]", "-f", "null", "-"],
                      timeout=FILTER_TIMEOUT_S)
    black = parse_blackdetect(proc.stderr)
    freeze = parse_freezedetect(proc.stderr) if with_freeze else None
    return black, freeze


def volumedetect(path: str | Path) -> VolumeStats | None:
    """`ffmpeg -i F -af volumedetect -f null -` (ffmpeg's default audio stream choice); None without audio."""
    proc = run_ffmpeg(["-i", str(path), "-vn", "-sn", "-dn", "-af", "volumedetect", "-f", "null", "-"],
                      timeout=FILTER_TIMEOUT_S)
    return parse_volumedetect(proc.stderr)


def loudnorm_measure(path: str | Path) -> dict[str, str] | None:
    """`ffmpeg -i F -af loudnorm=print_format=json -f null -`: loudnorm's measurement JSON, None without audio."""
    proc = run_ffmpeg(["-i", str(path), "-vn", "-sn", "-dn", "-af", "loudnorm=print_format=json",
                       "-f", "null", "-"], timeout=FILTER_TIMEOUT_S)
    return parse_loudnorm_json(proc.stderr)


def decode_error_log(path: str | Path) -> str:
    """What `ffmpeg -v error -i F -f null -` writes to stderr (empty when the file decodes cleanly)."""
    proc = run_ffmpeg(["-v", "error", "-i", str(path), "-f", "null", "-"], timeout=FILTER_TIMEOUT_S)
    return proc.stderr.decode("utf-8", "replace").strip()


def luma_at(path: str | Path, time_s: float) -> float | None:
    """Mean luma (signalstats YAVG, 0-255 for 8-bit video) of the first frame at or after `time_s`.

    Accurate input seek (`-ss` before `-i`) then one frame through `signalstats,metadata=print`, so the value
    reaches stderr (plain `signalstats` only attaches it as frame metadata). 8-bit YUV frames are measured as
    decoded; other formats (10-bit, RGB) are first converted to 8-bit YUV so the scale is always 0-255.
    None when no frame exists there.
    """
    if not math.isfinite(time_s) or time_s < 0:
        return None
    proc = run_ffmpeg(["-ss", f"{time_s:.6f}", "-i", str(path), "-map", "0:v:0", "-frames:v", "1",
                       "-vf", f"format=pix_fmts={_EIGHT_BIT_YUV},signalstats,"
                              "metadata=mode=print:key=lavfi.signalstats.YAVG", "-f", "null", "-"],
                      timeout=120.0)
    return parse_yavg(proc.stderr)
