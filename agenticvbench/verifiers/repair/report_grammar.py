"""The repair `report.md` grammar: reading the file, matching its lines, picking the predicted windows.

There is no LLM. The report is read line by line with the official grammar: `- start:` / `- end:` field lines
(first wins per key), numbered `- window_N_start:` lines and `## Diagnosis` blocks for the multi-region variants.
Only bare `H:MM:SS(.f)`, `M:SS(.f)` and `S(.f)` timestamps parse; anything else scores that window 0, and we say so
in a warning (D-R9). Scoring the windows picked here is `localize.py`.

Reading (`read_report`): exactly as the official scorer (`Path.read_text(encoding="utf-8", errors="replace")`, then
`str.splitlines()`): undecodable bytes become U+FFFD, `\\r\\n` / `\\r` become line ends, and a leading UTF-8
byte-order mark stays in the text (so a field on the first line does not match, as upstream). A report that is not
UTF-8 therefore still scores what its lines give; we add a warning naming the first bad byte and a guess at the
real encoding, and one for a byte-order mark.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agenticvbench.fsutil import TooLargeError
from agenticvbench.runs.pinned import read_submitted
from agenticvbench.runs.submission import TEXT_MAX_BYTES as REPORT_MAX_BYTES

MAX_PREDICTIONS = 12
MAX_NEAR_MISS_WARNINGS = 3

_FIELD_RE = re.compile(r"^\s*-\s*(type|start|end)\s*:(.*)$", re.IGNORECASE)
_NUMBERED_RE = re.compile(r"^\s*-\s*window[_\- ]?(\d+)[_\- ]?(start|end)\s*:(.*)$", re.IGNORECASE)
_DIAG_RE = re.compile(r"^\s*##\s+Diagnosis\b", re.IGNORECASE)
_TS_RES = (
    re.compile(r"^([0-9]+):([0-9]+):([0-9]+(?:\.[0-9]+)?)$"),
    re.compile(r"^()([0-9]+):([0-9]+(?:\.[0-9]+)?)$"),
    re.compile(r"^()()([0-9]+(?:\.[0-9]+)?)$"),
)
# A line that probably meant to give a start/end time but that the grammar ignores (bold, `*` bullets, ...).
_NEAR_MISS_RE = re.compile(
    r"^[\s>*+\-#\d.)_`]*(?:window[\s_-]?\d+[\s_-]?)?(start|end)(?:[\s_-]?(?:time|ts|timestamp|s|sec))?"
    r"[*_`\s]*[:=][^\d\n]{0,8}\d",
    re.IGNORECASE,
)
_LOOSE_DIAG_RE = re.compile(r"^\s*#+\s*diagnosis", re.IGNORECASE)


def read_report(path: Path) -> tuple[str, list[str]]:
    """Read report.md as the official scorer does (UTF-8, undecodable bytes replaced); returns (text, warnings).

    Raises `OSError` when the file cannot be read or is over its size cap.
    """
    try:
        raw = read_submitted(path, REPORT_MAX_BYTES)  # the bytes hashed (pinned), else a bounded read
    except TooLargeError as exc:
        raise OSError(str(exc)) from None
    warnings: list[str] = []
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        guess = (
            "UTF-16 (byte-order mark)"
            if raw[:2] in (b"\xff\xfe", b"\xfe\xff")
            else "probably latin-1 / cp1252"
        )
        warnings.append(
            f"report.md is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}; "
            f"{guess}); undecodable bytes are replaced, as the official scorer does, so lines holding "
            "them may not match the report grammar"
        )
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        warnings.append(
            "report.md starts with a UTF-8 byte-order mark; the official scorer keeps it, so the first "
            "line does not match the report grammar (save the file without a BOM)"
        )
    if "\x00" in text:
        warnings.append(
            "report.md contains NUL bytes (UTF-16 without a byte-order mark?); read as UTF-8 as the "
            "official scorer does, so its lines do not match the report grammar"
        )
    return text, warnings


def parse_timestamp(value: str) -> float | None:
    """Parse `H:MM:SS(.f)`, `M:SS(.f)` or `S(.f)` (ASCII digits, no range check: `0:75` = 75 s); else None."""
    v = value.strip()
    for rx in _TS_RES:
        m = rx.match(v)
        if m:
            h, mi, s = m.groups()
            try:
                return (int(h) * 3600 if h else 0) + (int(mi) * 60 if mi else 0) + float(s)
            except ValueError:  # over Python's 4300-digit int limit: the official int() raises too
                return None
    return None


def seconds_text(t: float) -> str:
    """A time in the grammar's bare `S.f` form that parses back to exactly `t` (no exponent)."""
    text = repr(float(t))
    if "e" in text or "E" in text:
        text = f"{float(t):.17f}".rstrip("0").rstrip(".")
    return text


def _unparseable_hint(value: str) -> str:
    v = value.strip()
    if not v:
        return "the value is empty"
    if v.startswith("-"):
        return "negative values do not parse"
    if "`" in v:
        return "backticks do not parse"
    if re.fullmatch(r"[0-9]+:[0-9]+:[0-9]+:[0-9]+", v):
        return "frame codes HH:MM:SS:FF do not parse"
    if re.search(r"[0-9],[0-9]", v):
        return "comma decimals do not parse"
    if re.match(r"^[0-9:.]+\s*(?:s|sec|secs|seconds|ms)\b", v, re.IGNORECASE):
        return "unit suffixes do not parse"
    if re.match(r"^[0-9:.]+\s*\S", v):
        return "trailing notes after the time do not parse"
    return "only H:MM:SS(.f), M:SS(.f) or S(.f) parse"


@dataclass(frozen=True)
class FieldValue:
    """One `start`/`end` value found in the report, with where it came from."""

    line: int  # 1-based line number
    key: str
    raw: str

    @property
    def seconds(self) -> float | None:
        """The parsed timestamp, or None when the official grammar rejects it."""
        return parse_timestamp(self.raw)


@dataclass
class Slot:
    """One predicted window (a numbered pair, a Diagnosis block, or the whole-file pair)."""

    label: str
    start: FieldValue | None = None
    end: FieldValue | None = None

    @property
    def window(self) -> tuple[float, float] | None:
        """[start, end] in seconds when both parse and end > start; None makes the slot invalid."""
        s = self.start.seconds if self.start else None
        e = self.end.seconds if self.end else None
        return (s, e) if s is not None and e is not None and e > s else None

    def problem(self) -> str:
        """Why the slot is invalid ('' when valid), for the rationale."""
        for key, fv in (("start", self.start), ("end", self.end)):
            if fv is None:
                return f"no `{key}` line"
            if fv.seconds is None:
                return f"{key} {fv.raw!r} does not parse"
        return "" if self.window else "end <= start"


@dataclass(kw_only=True)
class ParsedReport:
    """Every grammar match in a report, before any variant-specific rule picks windows."""

    first: dict[str, FieldValue] = field(default_factory=dict)  # whole-file first start / end
    counts: dict[str, int] = field(default_factory=lambda: {"start": 0, "end": 0})
    numbered: dict[int, dict[str, FieldValue]] = field(default_factory=dict)
    blocks: list[dict[str, FieldValue]] = field(default_factory=list)
    near_misses: list[tuple[int, str]] = field(default_factory=list)
    near_headings: list[tuple[int, str]] = field(default_factory=list)  # `### Diagnosis`, `##Diagnosis`, ...


def parse_report(text: str) -> ParsedReport:
    """Apply the official line grammar to the whole report (first-wins per key everywhere)."""
    rep = ParsedReport()
    block: dict[str, FieldValue] | None = None
    for n, line in enumerate(text.splitlines(), start=1):
        if _DIAG_RE.match(line):
            block = {}
            rep.blocks.append(block)
            continue
        if line.startswith("## "):
            block = None
            continue
        m = _NUMBERED_RE.match(line)
        if m and len(m.group(1)) <= 9:  # a window number is small; a 5000-digit one would not even convert
            slot = rep.numbered.setdefault(int(m.group(1)), {})
            slot.setdefault(m.group(2).lower(), FieldValue(n, m.group(2).lower(), m.group(3).strip()))
            continue
        m = _FIELD_RE.match(line)
        if m:
            key = m.group(1).lower()
            if key == "type":
                continue
            fv = FieldValue(n, key, m.group(2).strip())
            rep.first.setdefault(key, fv)
            rep.counts[key] += 1
            if block is not None:
                block.setdefault(key, fv)
            continue
        if _NEAR_MISS_RE.match(line):
            rep.near_misses.append((n, line.strip()))
        elif _LOOSE_DIAG_RE.match(line):
            rep.near_headings.append((n, line.strip()))
    return rep


def predicted_slots(rep: ParsedReport, multi_region: bool) -> tuple[list[Slot], str]:
    """The prediction slots the official rules pick, and which rule picked them."""
    whole = [Slot("whole-file start/end", rep.first.get("start"), rep.first.get("end"))]
    if not multi_region:
        return whole, "first start/end in the file"
    if rep.numbered:
        return [
            Slot(f"window_{k}", v.get("start"), v.get("end"))
            for k, v in sorted(rep.numbered.items())[:MAX_PREDICTIONS]
        ], "numbered window lines"
    if len(rep.blocks) >= 2:
        return [
            Slot(f"Diagnosis block {i + 1}", b.get("start"), b.get("end"))
            for i, b in enumerate(rep.blocks[:MAX_PREDICTIONS])
        ], "one window per Diagnosis block"
    return whole, "first start/end in the file"


def grammar_warnings(rep: ParsedReport, slots: list[Slot], multi: bool) -> list[str]:
    """D-R9 warnings for the picked slots: values that do not parse, lines the variant ignores, near misses."""
    out: list[str] = []
    for slot in slots:
        for fv in (slot.start, slot.end):
            if fv is not None and fv.seconds is None:
                out.append(
                    f"D-R9: report.md line {fv.line}: {fv.key} value {fv.raw!r} is not a timestamp the "
                    f"official grammar accepts ({_unparseable_hint(fv.raw)}), so {slot.label} scores 0"
                )
    if not multi and rep.numbered and slots[0].window is None:
        out.append(
            "D-R9: report.md gives `- window_N_start/end:` lines, which the official scorer reads only for "
            "the multi-region variants (v03 swap, combined); this variant needs `- start:` / `- end:`"
        )
    if not multi:
        for key in ("start", "end"):
            if rep.counts[key] > 1:
                out.append(
                    f"D-R9: report.md has {rep.counts[key]} `- {key}:` lines; the official scorer reads "
                    f"only the first (line {rep.first[key].line}) for this single-window variant"
                )
    near = rep.near_misses + (rep.near_headings if multi and not rep.numbered else [])
    for n, text in sorted(near)[:MAX_NEAR_MISS_WARNINGS]:
        out.append(
            f"D-R9: report.md line {n}: {text[:80]!r} looks like a window line but does not match the "
            "official grammar (`- start: <time>`, `- window_N_start: <time>`, `## Diagnosis`), so it is "
            "ignored"
        )
    return out


# A line that names a time window under a key the grammar does not know (`- window: 4.0-5.5`, `- time range:`).
_LOOSE_WINDOW_RE = re.compile(
    r"^[\s>*+\-]*[*_`]*(?:defect[\s_-]*|fault[\s_-]*|time[\s_-]*)?(window|range|interval|span|segment|"
    r"time[\s_-]*range|timestamps?|times?|timecode|location|region)[*_`\s]*[:=]\s*(.*\d.*)$",
    re.IGNORECASE,
)
_RANGE_RE = re.compile(r"([0-9:.]+)\s*(?:s\b|sec\w*)?\s*(?:-|–|—|to|\.\.)\s*([0-9:.]+)")


def loose_window_warnings(text: str, rep: ParsedReport) -> list[str]:
    """Warnings for lines that look like a window but use a key the official grammar ignores, quoting the line
    and the accepted form (`- start: <time>` / `- end: <time>`); the score is unchanged (the lines stay ignored)."""
    seen = {n for n, _ in rep.near_misses}
    out: list[str] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if n in seen or _FIELD_RE.match(line) or _NUMBERED_RE.match(line):
            continue
        m = _LOOSE_WINDOW_RE.match(line)
        if not m:
            continue
        r = _RANGE_RE.search(m.group(2))
        form = (
            f"`- start: {r.group(1)}` and `- end: {r.group(2)}`"
            if r
            else "`- start: <time>` and `- end: <time>`"
        )
        out.append(
            f"D-R9: report.md line {n}: {line.strip()[:80]!r} looks like a time window, but the official "
            f"grammar ignores this key; write it as {form} (seconds, M:SS or H:MM:SS)"
        )
        if len(out) >= MAX_NEAR_MISS_WARNINGS:
            break
    return out
