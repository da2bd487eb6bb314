"""ffmpeg filter measurements (blackdetect, freezedetect, volumedetect, loudnorm, signalstats, decode errors).

Each function runs the bundled ffmpeg through `run_ffmpeg` and parses what the filter logs to stderr; the
`parse_*` functions are separate so they can be tested on captured text. The commands mirror the ones the
official recap kinds used, with two exactness-preserving changes documented where they apply:
black and freeze detection run with `d=0` (the caller applies the duration rule) so one pass serves every
`max_seconds`, and both detectors and the decode-error check share one decode (`video_pass`).
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
        obj = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def parse_yavg(stderr: bytes | str) -> float | None:
    """The first frame's signalstats YAVG printed by the `metadata=print` filter, or None."""
    found = _YAVG_RE.findall(_text(stderr))
    return float(found[0]) if found else None


@dataclass(frozen=True)
class VideoPass:
    """What one decode of the video measured; a field is None when it was not asked for."""

    black: list[Run] | None
    freeze: list[Run] | None
    errors: str | None


_LEVEL_TAG = re.compile(
    r"^((?:\[[^\]]*\] )*?)\[(quiet|panic|fatal|error|warning|info|verbose|debug|trace)\] "
)
_REPEATED = re.compile(r"^\s*Last message repeated (\d+) times?$")
_ERROR_LEVELS = frozenset({"panic", "fatal", "error"})


def error_lines(leveled_log: bytes | str) -> str:
    """The text `-v error` would have printed, from a log written with `-loglevel level+info`.

    With the `level` flag every message carries its level (`[ctx @ 0x..] [error] text`). The error-level
    messages are kept with their tag removed, untagged continuation lines follow their message, and runs of
    identical lines are collapsed again the way ffmpeg's logger does (`    Last message repeated N times`):
    in the combined log, info lines between two equal errors stop ffmpeg from collapsing them, and a collapse
    it did make is expanded first, so the result is the same whichever other messages were interleaved.
    """
    kept: list[str] = []
    keep, last = False, None
    for raw in _text(leveled_log).splitlines():
        tagged = _LEVEL_TAG.match(raw)
        repeated = None if tagged else _REPEATED.match(raw)
        if tagged:
            keep = tagged.group(2) in _ERROR_LEVELS
            last = tagged.group(1) + raw[tagged.end() :]
            if keep:
                kept.append(last)
        elif repeated:
            if keep and last is not None:
                kept.extend([last] * int(repeated.group(1)))
        elif keep:
            kept.append(raw)
    out: list[str] = []
    i = 0
    while i < len(kept):
        j = i
        while j + 1 < len(kept) and kept[j + 1] == kept[i] and kept[i]:
            j += 1
        out.append(kept[i])
        if j > i:
            out.append(f"    Last message repeated {j - i} times")
        i = j + 1
    return "\n".join(out).strip()


def _lines_from(log: str, context: str) -> str:
    """Only the log lines written by filter instance `context` (e.g. `Parsed_blackdetect_`): text in the
    input's metadata dump (a title, a comment: chosen by whoever made the file; indented, never a line that
    starts with `[`) can never count as a run. With two outputs ffmpeg logs from two threads, so a filter's line
    can follow another line's unterminated text (`[out#1/null @ 0x..] ...[Parsed_freezedetect_1 @ 0x..] ...`):
    it is taken from its marker on."""
    marker = f"[{context}"
    lines = (
        line[line.find(marker) :] for line in log.splitlines() if line.startswith("[") and marker in line
    )
    return "\n".join(lines)


def video_pass(
    path: str | Path,
    *,
    black_pix_th: float | None = 0.10,
    freeze_noise: float | None = 0.003,
    errors: bool = False,
) -> VideoPass:
    """Black runs (blackdetect `d=0:pix_th`), freeze runs (freezedetect `n:d=0`) and the decode-error log, from
    one ffmpeg run that decodes the file once. Pass None (or False) to leave a measurement out.

    Both detectors run with `d=0`: a detector's `d` only decides which runs it *reports*, never where a run
    starts or ends, and a run that the official rule counts (`duration > max_seconds`) always has
    `duration >= max_seconds / 2 = d`, so filtering these runs by duration gives exactly the official verdict
    for every `max_seconds` from one pass. With `d=0`, freezedetect also reports one-frame "runs" between
    changing frames; those are the same ones it reports whenever `d` is below one frame duration.

    `errors` reproduces `ffmpeg -v error -i F -f null -`: a second null output with ffmpeg's default stream
    selection (the best video and audio stream) shares the decoders with the filters, the log is written with
    levels, and `error_lines` keeps what `-v error` would have shown.
    """
    chains = []
    if black_pix_th is not None:
        chains.append(f"blackdetect=d=0:pix_th={black_pix_th:g}")
    if freeze_noise is not None:
        chains.append(f"freezedetect=n={freeze_noise:g}:d=0")
    if not chains:
        return VideoPass(None, None, decode_error_log(path) if errors else None)
    if len(chains) == 2:
        graph = f"[0:v:0]split=2[a][b];[a]{chains[0]}[out];[b]{chains[1]},nullsink"
    else:
        graph = f"[0:v:0]{chains[0]}[out]"
    args = [
        "-nostats",
        "-loglevel",
        "level+info" if errors else "info",
        "-i",
        str(path),
        "-filter_complex",
        graph,
        "-map",
        "[out]",
        "-f",
        "null",
        "-",
    ]
    if errors:
        args += ["-f", "null", "-"]
    proc = run_ffmpeg(args, timeout=FILTER_TIMEOUT_S)
    log = _text(proc.stderr)
    black = parse_blackdetect(_lines_from(log, "Parsed_blackdetect_")) if black_pix_th is not None else None
    freeze = (
        parse_freezedetect(_lines_from(log, "Parsed_freezedetect_")) if freeze_noise is not None else None
    )
    return VideoPass(black, freeze, error_lines(log) if errors else None)


def _audio_filter_log(path: str | Path, audio_filter: str) -> bytes:
    """What `ffmpeg -i F -af FILTER -f null -` logs (ffmpeg's default audio stream choice)."""
    args = ["-i", str(path), "-vn", "-sn", "-dn", "-af", audio_filter, "-f", "null", "-"]
    return run_ffmpeg(args, timeout=FILTER_TIMEOUT_S).stderr


def volumedetect(path: str | Path) -> VolumeStats | None:
    """`ffmpeg -i F -af volumedetect -f null -` (ffmpeg's default audio stream choice); None without audio."""
    return parse_volumedetect(_audio_filter_log(path, "volumedetect"))


def loudnorm_measure(path: str | Path) -> dict[str, str] | None:
    """`ffmpeg -i F -af loudnorm=print_format=json -f null -`: loudnorm's measurement JSON, None without audio."""
    return parse_loudnorm_json(_audio_filter_log(path, "loudnorm=print_format=json"))


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
    proc = run_ffmpeg(
        [
            "-ss",
            f"{time_s:.6f}",
            "-i",
            str(path),
            "-map",
            "0:v:0",
            "-frames:v",
            "1",
            "-vf",
            f"format=pix_fmts={_EIGHT_BIT_YUV},signalstats,metadata=mode=print:key=lavfi.signalstats.YAVG",
            "-f",
            "null",
            "-",
        ],
        timeout=120.0,
    )
    return parse_yavg(proc.stderr)
