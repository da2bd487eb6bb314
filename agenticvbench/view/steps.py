"""A log's steps as a page of `avb view` draws them (`timeline` reads the logs): each step's row with its texts
sanitised and cut, or withheld as the page's `Withheld` says (or, step by step, as `view.taint` says), its media
markers (`MARKS`), and the window of steps a long log shows (its first and last steps and every flagged one, the
rest a `Gap`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from agenticvbench.sanitize import one_line, text
from agenticvbench.trajectory.model import Step, cap, parse_time

TAIL_SHARE = 4  # a quarter of a log's rows are its last steps
SHOWN_CHARS = 1500  # of a step's call or result on the page
SUMMARY_CHARS = 100
#: What each step marker means (the legend under the timeline; one meaning per mark).
MARKS: dict[str, str] = {
    "probe": "probed a media file (ffprobe, mediainfo, exiftool, or a *probe* tool)",
    "frames": "extracted frames (ffmpeg writing images or single frames, OpenCV/decord/PyAV frame reads, "
    "a *frame* or *screenshot* tool)",
    "image": "read an image file into its context (a read or view tool naming a .png/.jpg/.webp/...)",
    "ffmpeg": "ran ffmpeg for anything else (cutting, encoding, concatenating)",
}
_PROBE = re.compile(r"\b(?:ffprobe|mediainfo|exiftool)\b")
_FFMPEG = re.compile(r"\bffmpeg\b")
_FRAME_ARGS = re.compile(
    r"-vframes\b|-frames:v\b|\bselect=|\bfps=|\bthumbnail\b|%0?[0-9]*d\.(?:png|jpe?g|bmp|webp)\b"
    r"|\.(?:png|jpe?g|bmp|webp)\b",
    re.I,
)
_FRAME_CALLS = re.compile(
    r"\bcv2\.VideoCapture\b|\bdecord\b|\bVideoReader\b|\.decode\(\s*video\b|\bto_image\("
)
_IMAGE = re.compile(r"\.(?:png|jpe?g|bmp|webp|gif)$", re.I)


@dataclass(frozen=True, kw_only=True)
class Withheld:
    """What a task's timeline leaves out, each the reason shown in its place ('' when shown)."""

    flagged: str = ""  # a flagged step's call and result
    steps: str = ""  # every step's call and result
    named: str = ""  # the URLs and paths a flagged step's call named
    #: a named URL shown as scheme, host and path (a bundle: its query and fragment can carry an answer)
    short_urls: bool = False
    #: a flag's why without its parenthesised detail (a solved task in a bundle: the detail can spell the answer)
    short_whys: bool = False


def short_url(url: str) -> str:
    """`url` as scheme://host/path: no user, query or fragment (a hostile URL that does not parse: cut at its
    first `?` or `#`)."""
    try:
        p = urlsplit(url)
        host = p.netloc.rsplit("@", 1)[-1]
    except ValueError:
        return re.split(r"[?#]", url, maxsplit=1)[0]
    return f"{p.scheme}://{host}{p.path}" if p.scheme and host else re.split(r"[?#]", url, maxsplit=1)[0]


def short_why(why: str) -> str:
    """A flag's why without its parenthesised detail: `the dataset repository (sequencing/...)` reads
    `the dataset repository`."""
    return why.split("(", 1)[0].rstrip(" :")


@dataclass(frozen=True, kw_only=True)
class StepRow:
    """One step as a page draws it (texts sanitised and cut; '' where withheld)."""

    kind: str = "step"
    index: int
    anchor: str
    time: str
    elapsed: float | None
    delta: float | None
    role: str
    tool: str
    summary: str
    arguments: str
    result: str
    result_chars: int
    withheld: str  # why the texts are not shown, '' when they are
    error: str | None  # the tool's error ('' when its text is withheld), None when the call did not fail
    tokens: int | None
    marks: tuple[str, ...]
    #: The URLs and paths a flagged step's call named (what a rule judges), unless withheld.
    named: tuple[str, ...]
    flags: tuple[tuple[str, str], ...]  # (rule, why)


@dataclass(frozen=True, kw_only=True)
class Gap:
    """Steps `first`..`last` of a log, left out of the page."""

    kind: str = "gap"
    first: int
    last: int


def step_anchor(log: int, step: int) -> str:
    """The id of step `step` of the `log`-th log the result records: `step-N` for the first, `logK-step-N`."""
    return f"step-{step}" if log == 0 else f"log{log}-step-{step}"


def marks(step: Step) -> tuple[str, ...]:
    """The media markers of a step (`MARKS`): a small heuristic on its tool name and call."""
    tool = (step.tool or "").lower()
    args = step.arguments
    if step.tool is None:
        return ()
    if "probe" in tool or _PROBE.search(args):
        return ("probe",)
    ffmpeg = bool(_FFMPEG.search(args))
    if (
        "frame" in tool
        or "screenshot" in tool
        or _FRAME_CALLS.search(args)
        or (ffmpeg and _FRAME_ARGS.search(args))
    ):
        return ("frames",)
    if any(w in tool for w in ("read", "view", "image")) and any(_IMAGE.search(p) for p in step.paths):
        return ("image",)
    return ("ffmpeg",) if ffmpeg else ()


def _shown(value: str) -> str:
    return cap(text(value), SHOWN_CHARS)


def row(
    step: Step,
    anchor: str,
    times: tuple[float | None, float | None],
    flags: tuple[tuple[str, str], ...],
    withheld: Withheld,
    taint: str = "",
) -> StepRow:
    """A step as drawn, its texts withheld as `withheld` says, or as `taint` says (`view.taint`: why this step
    alone is withheld); a flagged step keeps what it named unless `withheld.named`."""
    start, previous = times
    at = parse_time(step.time)
    why = (withheld.flagged if flags and withheld.flagged else withheld.steps) or taint
    urls = tuple(short_url(u) for u in step.urls) if withheld.short_urls else step.urls
    named = (
        tuple(cap(one_line(x), 300) for x in list(dict.fromkeys((*urls, *step.paths)))[:12])
        if flags and not withheld.named
        else ()
    )
    if withheld.short_whys:
        flags = tuple((rule, short_why(w)) for rule, w in flags)
    return StepRow(
        index=step.index,
        anchor=anchor,
        time=one_line(step.time or ""),
        elapsed=at - start if at is not None and start is not None else None,
        delta=at - previous if at is not None and previous is not None and at >= previous else None,
        role=one_line(step.role),
        tool=one_line(step.tool or ""),
        summary="" if why else cap(one_line(" ".join(step.arguments.split())), SUMMARY_CHARS),
        arguments="" if why else _shown(step.arguments),
        result="" if why else _shown(step.result),
        result_chars=len(step.result),
        withheld="; ".join(dict.fromkeys(w for w in (why, withheld.named if flags else "") if w)),
        error=None if step.error is None else ("" if why else cap(one_line(step.error), 300)),
        tokens=step.tokens,
        marks=marks(step),
        named=named,
        flags=flags,
    )


def window(n: int, budget: int, keep: set[int]) -> list[int]:
    """Positions of the steps to draw: the first and last of `budget` (a quarter at the end), and `keep`."""
    if n <= budget:
        return list(range(n))
    tail = budget // TAIL_SHARE
    return sorted(set(range(budget - tail)) | set(range(n - tail, n)) | {k for k in keep if 0 <= k < n})


def rows(
    steps: list[Step],
    k: int,
    flagged: dict[int, list[tuple[str, str]]],
    budget: int,
    withheld: Withheld,
    taints: dict[int, str] | None = None,
) -> list[StepRow | Gap]:
    """The rows of the `k`-th log's `steps`: the `window` of `budget` steps plus the `flagged` ones ({step index:
    [(rule, why)]}), each drawn by `row` under `withheld` and its own reason in `taints` ({step index: why}),
    and a `Gap` for each run of steps left out."""
    taints = taints or {}
    by_index = {s.index: pos for pos, s in enumerate(steps)}
    keep = {by_index[i] for i in flagged if i in by_index}
    out: list[StepRow | Gap] = []
    start = next((t for s in steps if (t := parse_time(s.time)) is not None), None)
    last = -1
    for pos in window(len(steps), budget, keep):
        if pos > last + 1:
            out.append(Gap(first=steps[last + 1].index, last=steps[pos - 1].index))
        step = steps[pos]
        prev = parse_time(steps[pos - 1].time) if pos else None
        hits = tuple((rule, w) for rule, w in flagged.get(step.index, []))
        taint = taints.get(step.index, "")
        out.append(row(step, step_anchor(k, step.index), (start, prev), hits, withheld, taint))
        last = pos
    if last + 1 < len(steps):
        out.append(Gap(first=steps[last + 1].index, last=steps[-1].index))
    return out
