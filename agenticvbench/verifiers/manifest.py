"""The one reader of `solution.json` manifests (sequencing and assembly), plus the helpers both families share.

Shape: `{"segments": [{"output": [t0, t1], "source": "<clip id>", "source_range": [s0, s1]}, ...]}`.

`read_manifest` never raises for bad input. It returns a `ManifestRead` whose `status` is
- `ok`: the top level is an object, `segments` a list of objects (`segments` holds them);
- `missing`: no such file; `error` is the official text `solution.json not found at <path>`;
- `malformed`: anything else, with `error` naming the file and the field. Where the official scorer prints a zeroing
  error (invalid JSON, `segments` missing or not a list) `error` is that text; where it crashes with a traceback
  (D-S1: top level not an object, a segment not an object) `crashes_official` is True and `error` is our reason.
  Non-UTF-8 bytes and files over `MAX_MANIFEST_BYTES` are malformed too (a "huge" manifest is not a manifest).

NaN and Infinity: Python's `json` accepts the literals `NaN`, `Infinity` and `-Infinity`, and so does the official
scorer. We parse with the same defaults so ids and scores match bit-for-bit; the official scorer ignores `output` and
`source_range`, so such values never change an official number. Our own extra metrics go through `interval_length`
/ `manifest_end`, which treat any non-finite (or non-numeric, or reversed) interval as invalid.

Odd but legal input is accepted exactly as the official scorer accepts it, and announced in `ManifestRead.warnings`
(never a changed score): a key repeated within one object (Python's `json`, which the official scorer uses, keeps
the last value, and so do we), and non-finite or overflowing numbers (`NaN`, `Infinity`, `1e999`, an integer
beyond float range) in `output` or `source_range`, fields the official scorer ignores.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agenticvbench.dataset.tasks import Task
from agenticvbench.fsutil import TooLargeError
from agenticvbench.runs.pinned import read_submitted
from agenticvbench.runs.submission import Submission
from agenticvbench.verifiers.base import VerifierOutcome, VerifyContext

MANIFEST_NAME = "solution.json"
VIDEO_NAME = "solution.mp4"
#: A manifest is a few KB; anything over this is treated as malformed instead of being parsed.
MAX_MANIFEST_BYTES = 5 * 1024 * 1024
#: D-S3 tolerance between the probed `solution.mp4` duration and the manifest's timeline end.
VIDEO_TOLERANCE_S = 0.5

#: Official zeroing texts. The invalid-JSON wording is ours (the official `solution.json invalid JSON: <error>`
#: embeds Python's exception text); it names the file and the parser's message.
NOT_FOUND = "solution.json not found at {path}"
NOT_A_LIST = "solution.json: segments is not a list"
INVALID_JSON = "solution.json: invalid JSON ({msg})"

ReadStatus = Literal["ok", "missing", "malformed"]


@dataclass(kw_only=True, frozen=True)
class ManifestRead:
    """The outcome of reading one manifest: the segments when `status == "ok"`, else an error text."""

    path: Path
    status: ReadStatus = "ok"
    segments: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    crashes_official: bool = False
    #: Odd but legal input, accepted as the official scorer does.
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the segments were read."""
        return self.status == "ok"


def _type_name(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a str",
        bool: "a bool",
        int: "an int",
        float: "a float",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _loads_noting_duplicates(text: str) -> tuple[Any, list[str]]:
    """`json.loads(text)` (the official parse: the last of repeated keys wins) and one warning per object with a
    repeated key, naming where it is (`segments[2]`) and the keys."""
    repeats: dict[int, list[str]] = {}

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            repeats[id(obj)] = sorted(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
        return obj

    data = json.loads(text, object_pairs_hook=hook)
    if not repeats:
        return data, []
    out: list[str] = []
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:  # iterative: depth is bounded only by the parser
        value, where = stack.pop()
        if isinstance(value, dict):
            if id(value) in repeats:
                keys = ", ".join(repr(k) for k in repeats[id(value)])
                out.append(
                    f"solution.json: {where or 'the top level'} repeats key(s) {keys}; the last value of each "
                    "is used, as the official scorer (Python's json) does"
                )
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(value))))
    return data, out


def _fits_float(v: int) -> bool:
    try:
        float(v)
    except OverflowError:
        return False
    return True


def _odd_numbers(segments: list[dict[str, Any]]) -> list[str]:
    """One warning per segment field the official scorer ignores (`output`, `source_range`) that holds a
    non-finite number or one beyond float range."""
    out = []
    for i, seg in enumerate(segments):
        for name in ("output", "source_range"):
            value = seg.get(name)
            items = value if isinstance(value, list) else [value]
            odd = []
            for v in items:
                if isinstance(v, float) and not math.isfinite(v):
                    odd.append(repr(v))
                elif isinstance(v, int) and not isinstance(v, bool) and not _fits_float(v):
                    odd.append(f"an integer of {len(str(abs(v)))} digits")
            if odd:
                out.append(
                    f"solution.json: segments[{i}].{name} holds {', '.join(odd)} (non-finite or beyond float "
                    "range); the official scorer ignores this field, so no score changes"
                )
    return out


def _malformed(path: Path, error: str, **kw: Any) -> ManifestRead:
    return ManifestRead(path=path, status="malformed", error=error, **kw)


def read_manifest(
    path: str | Path | None, *, expected: str | Path | None = None, max_bytes: int = MAX_MANIFEST_BYTES
) -> ManifestRead:
    """Read and shape-check a manifest; `expected` names the path in the not-found message when `path` is None."""
    shown = Path(expected if path is None and expected is not None else path or MANIFEST_NAME)
    if path is None or not Path(path).is_file():
        return ManifestRead(path=shown, status="missing", error=NOT_FOUND.format(path=shown))
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > max_bytes:
            return _malformed(
                p, f"solution.json: file is {size} bytes, over the {max_bytes} byte limit for a manifest"
            )
        raw = read_submitted(p, max_bytes)  # the bytes hashed (pinned), else a bounded, non-blocking read
    except (OSError, TooLargeError) as exc:
        return _malformed(p, f"solution.json: unreadable ({getattr(exc, 'strerror', None) or exc})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _malformed(p, f"solution.json: not UTF-8 text (byte {exc.start}: {exc.reason})")
    try:
        data, warnings = _loads_noting_duplicates(text)
    except (
        ValueError
    ) as exc:  # JSONDecodeError, or an integer too long to convert (Python's 4300-digit limit)
        return _malformed(p, INVALID_JSON.format(msg=str(exc)))
    except RecursionError:
        return _malformed(p, INVALID_JSON.format(msg="nested too deeply"))
    if not isinstance(data, dict):
        error = f"solution.json: top level is {_type_name(data)}, expected an object with a 'segments' list"
        return _malformed(p, error, crashes_official=True, warnings=warnings)
    segments = data.get("segments")
    if not isinstance(segments, list):
        return _malformed(p, NOT_A_LIST, warnings=warnings)
    for i, seg in enumerate(segments):
        if not isinstance(seg, dict):
            error = f"solution.json: segments[{i}] is {_type_name(seg)}, expected an object"
            return _malformed(p, error, crashes_official=True, warnings=warnings)
    return ManifestRead(path=p, status="ok", segments=segments, warnings=warnings + _odd_numbers(segments))


def d_s1_warning(read: ManifestRead) -> list[str]:
    """The `warnings` entries of a malformed manifest: odd input noticed while reading, and D-S1 for an input the
    official scorer crashes on."""
    if not read.crashes_official:
        return list(read.warnings)
    return [
        *read.warnings,
        "D-S1: the official scorer crashes on this manifest (traceback, no JSON, exit 1); "
        "we score it 0 as malformed instead",
    ]


def interval_length(value: Any) -> float | None:
    """Length of an `[t0, t1]` interval of two finite numbers with t1 >= t0; None for anything else (NaN, bools...)."""
    bounds = _interval(value)
    return None if bounds is None else bounds[1] - bounds[0]


def _interval(value: Any) -> tuple[float, float] | None:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in value):
        return None
    try:
        t0, t1 = float(value[0]), float(value[1])
    except OverflowError:  # an integer beyond float range
        return None
    if not (math.isfinite(t0) and math.isfinite(t1) and math.isfinite(t1 - t0)) or t1 < t0:
        return None
    return t0, t1


def manifest_end(segments: Sequence[dict[str, Any]]) -> float | None:
    """The manifest timeline's end: the largest valid `output` end over all segments (None if there is none)."""
    ends = [b[1] for b in (_interval(s.get("output")) for s in segments) if b is not None]
    return max(ends) if ends else None


def within(got: float, expected: float, abs_s: float, rel: float = 0.0) -> bool:
    """True when |got - expected| <= max(abs_s, rel * |expected|)."""
    return abs(got - expected) <= max(abs_s, rel * abs(expected))


_PREFIX_NUM = re.compile(r"[A-Za-z_\- ]*(\d+)")  # no lazy/greedy overlap: linear time on long ids


def loose_clip_id(value: Any) -> str:
    """A forgiving clip key, used only to diagnose near-miss ids (D-S2), never for official scores.

    `" 3 "`, `3.0`, `"3.MP4"`, `"/workspace/materials/3.mp4"`, `"clip3.mp4"`, `"clip_03"` and `"3.mp4"` all map to
    `"3"`; a non-numeric id keeps its (stripped, extension-less) basename.
    """
    s = str(value).strip().replace("\\", "/").rsplit("/", 1)[-1].strip()
    while s.lower().endswith(".mp4"):  # also undoes the official `.mp4` append to `3.MP4`
        s = s[:-4].strip()
    with suppress(ValueError):
        f = float(s)
        if math.isfinite(f) and f.is_integer():
            return str(int(f))
    m = _PREFIX_NUM.fullmatch(s)
    return (m.group(1).lstrip("0") or "0") if m else s


def video_consistency(
    video: Path | None, segments: Sequence[dict[str, Any]], tolerance_s: float = VIDEO_TOLERANCE_S
) -> dict[str, Any]:
    """D-S3 extra: does `solution.mp4` exist, and does its probed duration match the manifest's timeline end?

    Only probes when the file exists. Never affects an official score; a probe failure is reported, not raised.
    """
    out: dict[str, Any] = {"present": video is not None, "tolerance_s": tolerance_s}
    if video is None:
        return out
    end = manifest_end(segments)
    out["manifest_end_s"] = end
    from agenticvbench.errors import MediaError
    from agenticvbench.media import probe

    try:
        duration = probe(video).duration
    except MediaError as exc:
        out.update(video_duration_s=None, consistent=False, probe_error=str(exc))
        return out
    out["video_duration_s"] = duration
    out["consistent"] = duration is not None and end is not None and within(duration, end, tolerance_s)
    return out


def manifest_inputs(submission: Submission) -> list[Path]:
    """The files whose content determines a manifest family's score: `solution.json` only.

    `solution.mp4` feeds only the D-S3 consistency extra and is not hashed, so resuming a run is cheap even with
    large videos; changing only the video therefore does not refresh that extra metric (use `--force`).
    """
    p = submission.file(MANIFEST_NAME)
    return [p] if p is not None else []


class ManifestVerifier:
    """What the sequencing and assembly verifiers share: read `solution.json`, take the official numbers, and add
    the family's extras (plus the D-S3 video check) when the manifest was read."""

    family: str
    task_type: type[Task]
    component_keys: tuple[str, ...]

    def official(self, read: ManifestRead, task: Any) -> dict[str, Any]:
        """The official result dict for this manifest."""
        raise NotImplementedError

    def failed_extra(self) -> dict[str, Any]:
        """`extra` of an outcome whose manifest could not be read."""
        return {}

    def scored_parts(
        self, read: ManifestRead, official: dict[str, Any], task: Any
    ) -> tuple[dict[str, Any], dict[str, Any], str | None]:
        """(detail, extra, D-S2 warning or None) of a manifest that was read."""
        raise NotImplementedError

    def input_files(self, task: Task, submission: Submission) -> list[Path]:
        """Only `solution.json` determines the official score."""
        return manifest_inputs(submission)

    def verify(self, task: Task, submission: Submission, ctx: VerifyContext) -> VerifierOutcome:
        """Score one task; malformed manifests are outcomes, never exceptions."""
        assert isinstance(task, self.task_type), f"{self.family} verifier got a {type(task).__name__}"
        read = read_manifest(submission.file(MANIFEST_NAME), expected=submission.expected_path(MANIFEST_NAME))
        official = self.official(read, task)
        components = {k: official[k] for k in self.component_keys}
        if not read.ok:
            return VerifierOutcome(
                final_score=0.0,
                adjusted_final_score=0.0,
                status=read.status,  # type: ignore[arg-type]  # never 'ok' here
                reason=read.error,
                components=components,
                official=official,
                warnings=d_s1_warning(read),
                extra=self.failed_extra(),
            )
        detail, extra, near_miss = self.scored_parts(read, official, task)
        if ctx.options.get("video_check", True):
            extra["video"] = video_consistency(submission.file(VIDEO_NAME), read.segments)
        return VerifierOutcome(
            final_score=official["final_score"],
            adjusted_final_score=official["adjusted_final_score"],
            status="scored",
            reason=official["error"],
            components=components,
            detail=detail,
            extra=extra,
            warnings=[*read.warnings, *([near_miss] if near_miss else [])],
            official=official,
        )
