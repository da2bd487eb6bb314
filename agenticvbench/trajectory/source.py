"""Bounded reading of one log through `JobDir` (no symlink anywhere on its path, regular files only, sizes
checked before reading): the head for sniffing, a whole JSON document, or JSON lines.

A log is hostile input. Each bad thing becomes a one-line note on the `Trajectory`, never a traceback: a file
over its cap or behind a symlink is not read; a line over the line cap (`usage_stores.MAX_LINE_BYTES`), a line
that is not JSON (bad syntax, nesting deeper than `fsutil.JSON_MAX_DEPTH`: a 100,000-deep line is refused by
the parser's recursion guard, never recursed into), bytes that are not UTF-8 (decoded as U+FFFD, noted once), or
a NaN/Infinity (dropped by `harbor.files.clean_document`, which also cuts a string at `trajectory.model.MAX_SCAN_CHARS`,
what the rules read of a call) are skipped or cleaned with a note; reading stops after
`MAX_LINES` lines.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from agenticvbench.cost.usage_stores import session_lines
from agenticvbench.errors import SubmissionError
from agenticvbench.fsutil import parse_json_bounded
from agenticvbench.harbor.files import clean_document, read_document
from agenticvbench.harbor.trajectory import MAX_TRAJECTORY_BYTES
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory.model import MAX_SCAN_CHARS, Trajectory

HEAD_BYTES = 64 * 1024
MAX_LINES = 200_000
MAX_DOCUMENT_BYTES = MAX_TRAJECTORY_BYTES


def head(job: JobDir, parts: tuple[str, ...]) -> tuple[bytes, int]:
    """(the first `HEAD_BYTES` bytes, the file's size); `OSError` when the file is a symlink, not a regular file,
    or unreadable."""
    fd, size = job.open_file(*parts)
    try:
        os.set_blocking(fd, True)
        return os.read(fd, HEAD_BYTES), size
    finally:
        os.close(fd)


def _clean(obj: Any, where: str, traj: Trajectory) -> Any:
    notes: list[str] = []
    obj = clean_document(obj, where, notes, max_chars=MAX_SCAN_CHARS)
    for line in notes:
        traj.note(line)
    return obj


def document(job: JobDir, parts: tuple[str, ...], traj: Trajectory) -> Any:
    """A whole JSON document (at most `MAX_DOCUMENT_BYTES`), cleaned; None with a note when it cannot be read."""
    notes: list[str] = []
    try:
        data = read_document(job, parts, notes, max_chars=MAX_SCAN_CHARS, max_bytes=MAX_DOCUMENT_BYTES)
    except SubmissionError as exc:
        traj.note(f"{'/'.join(parts)}: not read ({str(exc).rsplit(': ', 1)[-1][:200]})")
        return None
    for line in notes:
        traj.note(line)
    return data


def json_lines(job: JobDir, parts: tuple[str, ...], traj: Trajectory) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each JSON-object line of a JSONL log, cleaned; bad lines are noted and skipped."""
    where = "/".join(parts)
    notes: list[str] = []
    stream = session_lines(job, parts, notes)
    for line in notes:
        traj.note(line)
    if stream is None:
        return
    bad_utf8 = False
    passed = len(notes)
    for n, line in stream:
        for note in notes[passed:]:  # lines over the line cap, noted by the stream as it goes
            traj.note(note)
        passed = len(notes)
        if n > MAX_LINES:
            traj.note(f"{where}: more than {MAX_LINES} lines; the rest not read")
            return
        line = line.strip()
        if not line:
            continue
        if "\ufffd" in line and not bad_utf8:
            bad_utf8 = True
            traj.note(f"{where}:{n}: bytes that are not UTF-8, read as U+FFFD")
        try:
            obj = parse_json_bounded(line.encode("utf-8", errors="replace"), f"{where}:{n}")
        except ValueError as exc:
            traj.note(str(exc)[:240])
            continue
        if isinstance(obj, dict):
            yield n, _clean(obj, f"{where}:{n}", traj)
    for note in notes[passed:]:
        traj.note(note)
