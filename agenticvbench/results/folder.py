"""The results folder's own record, `.avb-folder` (JSON): when `avb verify` first scored into it, and what it held then.

A run's `avb-results/` sits inside the run directory, which the agent wrote, so the folder may exist with files
in it before the scorer ever ran. The first `avb verify` with a given result key writes `.avb-folder` (JSON), signed
with that key, listing what was already there; every later `avb verify`, `avb report` and `avb leaderboard`
reads it back. A folder whose record is missing, unsigned or signed with another key is being scored for the
first time by this key, so whatever it holds was not written by this scorer: it is reported, and its result
files are rescored (their signatures do not verify), never reused.
"""

from __future__ import annotations

import heapq
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import atomic_write_json, parse_json_bounded, read_capped
from agenticvbench.results.signing import ALG, ResultKey

RECORD_NAME = ".avb-folder"
RECORD_MAX_BYTES = 256 * 1024
MAX_NAMES = 20  # names listed in the record; the count is always exact
KIND = "agenticvbench results folder"


@dataclass
class FolderRecord:
    """What `.avb-folder` (JSON) says (persisted): when it was claimed and the files present before that."""

    first_scored: str
    preexisting_count: int = 0
    preexisting: list[str] = field(default_factory=list)  # at most MAX_NAMES names
    kind: str = KIND

    def describe(self, folder: Path) -> str:
        """One line for notes: '' when the folder was empty at its first scoring."""
        if not self.preexisting_count:
            return ""
        more = self.preexisting_count - len(self.preexisting)
        names = ", ".join(self.preexisting) + (f" and {more} more" if more > 0 else "")
        return (
            f"{folder}: held {self.preexisting_count} file(s) before avb verify first scored into it with "
            f"this key ({self.first_scored}): {names}; nothing shows they were written by this scorer (they "
            "may come from the agent, another key or an agenticvbench without signatures), so result files "
            "among them are rescored, never reused"
        )


def _payload(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def read_record(folder: Path, key: ResultKey | None) -> tuple[FolderRecord | None, str]:
    """The folder's record when it is present and signed by `key`: (record, ''); else (None, why not)."""
    path = Path(folder) / RECORD_NAME
    if not os.path.lexists(path):
        return None, "no record"
    if key is None:
        return None, "no key to check the record"
    try:
        data = parse_json_bounded(read_capped(path, RECORD_MAX_BYTES), path.name)
        sig = data.pop("signature")
        ok = (
            isinstance(sig, dict)
            and sig.get("alg") == ALG
            and sig.get("key_id") == key.key_id
            and key.verify(_payload(data), str(sig.get("mac", "")))
        )
        if not ok:
            return None, f"its {RECORD_NAME} is not signed with this scorer's key"
        record = FolderRecord(
            first_scored=str(data["first_scored"]),
            preexisting_count=int(data["preexisting_count"]),
            preexisting=[str(n) for n in data["preexisting"]][:MAX_NAMES],
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        return None, f"its {RECORD_NAME} cannot be read ({exc})"
    return record, ""


def record_notes(folders: list[Path], key: ResultKey | None) -> list[str]:
    """For reports: one note per results folder whose record (signed by `key`) says it held files before its
    first scoring."""
    notes = []
    for folder in folders:
        record, _why = read_record(folder, key)
        if record is not None and (line := record.describe(Path(folder))):
            notes.append(line)
    return notes


def _entries(folder: Path) -> tuple[int, list[str]]:
    """(how many entries, the first MAX_NAMES names in sorted order) of `folder`, without the record itself.
    Memory stays at MAX_NAMES names however many entries the agent created."""
    count = 0

    def names() -> Iterator[str]:
        nonlocal count
        with os.scandir(folder) as it:
            for entry in it:
                if entry.name != RECORD_NAME and not entry.name.startswith(f".{RECORD_NAME}."):
                    count += 1
                    yield entry.name

    try:
        first = heapq.nsmallest(MAX_NAMES, names())
    except (FileNotFoundError, NotADirectoryError):
        return 0, []
    return count, first


def claim(folder: Path, key: ResultKey) -> tuple[FolderRecord, str]:
    """Before scoring into `folder`: its record, written now (signed) when it has none signed by `key`.

    Returns (record, note); the note says the folder held files before its first scoring ('' otherwise, and ''
    on every later scoring: the record keeps saying it to `avb report`).
    """
    folder = Path(folder)
    record, _why = read_record(folder, key)
    if record is not None:
        return record, ""
    count, names = _entries(folder)
    record = FolderRecord(
        first_scored=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        preexisting_count=count,
        preexisting=names,
    )
    body = asdict(record)
    body["signature"] = {"alg": ALG, "key_id": key.key_id, "mac": key.mac(_payload(asdict(record)))}
    note = record.describe(folder)
    try:
        atomic_write_json(folder / RECORD_NAME, body)
    except OSError as exc:  # e.g. the agent made the record's name a folder: score anyway, say so
        note = (f"{note}; " if note else f"{folder}: ") + (
            f"its record {RECORD_NAME} could not be written "
            f"({exc.strerror or exc}), so reports cannot repeat this"
        )
    return record, note
