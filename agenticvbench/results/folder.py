"""The results folder's own record, `.avb-folder` (JSON): when `avb verify` first scored into it, and what it held then.

A run's `avb-results/` sits inside the run directory, which the agent wrote, so the folder may exist with files
in it before the scorer ever ran. The first `avb verify` with a given result key writes `.avb-folder` (JSON), signed
with that key, listing what was already there; every later `avb verify`, `avb report` and `avb leaderboard`
reads it back. A folder whose record is missing, unsigned or signed with another key is being scored for the
first time by this key, so whatever it holds was not written by this scorer: it is reported, and its result
files are rescored (their signatures do not verify), never reused.

The record names its folder inside the signed payload: the folder's real path, its (device, inode) and a random
nonce. A genuine record copied into another folder (to hide files planted there) names a different path and
inode, so it is refused with a note and the folder is treated as having no record: a new record is written
listing what is there. A results folder moved or copied by the operator is, by the same rule, a new folder.
"""

from __future__ import annotations

import heapq
import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import atomic_write_json, parse_json_bounded, read_capped
from agenticvbench.results.signing import ALG, ResultKey
from agenticvbench.runs.run_plan import RunPlan, RunPlanError

RECORD_NAME = ".avb-folder"
RECORD_MAX_BYTES = 256 * 1024
MAX_NAMES = 20  # names listed in the record; the count is always exact
KIND = "agenticvbench results folder"
_COPIED = "it was copied or moved here"
_UNBOUND = "names no folder (written by an older agenticvbench, or copied)"


@dataclass(kw_only=True)
class FolderRecord:
    """What `.avb-folder` (JSON) says (persisted): when it was claimed and the files present before that."""

    first_scored: str
    preexisting_count: int = 0
    preexisting: list[str] = field(default_factory=list)  # at most MAX_NAMES names
    kind: str = KIND
    folder: str = ""  # the folder's real path when the record was written
    inode: str = ""  # "device:inode" of the folder
    nonce: str = ""  # 16 random hex digits: no two records are the same payload
    run: str = ""  # the real path of the run scored into it first ('' when not given)

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


def folder_place(folder: Path) -> tuple[str, str]:
    """(real path, "device:inode") of `folder`: what a record is bound to; ('', '') when it cannot be stat'ed."""
    try:
        st = os.stat(folder)
    except OSError:
        return "", ""
    return os.path.realpath(folder), f"{st.st_dev}:{st.st_ino}"


def _bound_elsewhere(data: dict[str, Any], folder: Path) -> str:
    """Why the signed record `data` does not belong to `folder` ('' when it does)."""
    where, inode = folder_place(folder)
    named, named_inode = data.get("folder"), data.get("inode")
    if not isinstance(named, str) or not named or not isinstance(named_inode, str) or not named_inode:
        return f"its {RECORD_NAME} {_UNBOUND}"
    if named != where or named_inode != inode:
        shown = named[:200].encode("ascii", "backslashreplace").decode("ascii")
        return f"its {RECORD_NAME} was written for another folder ({shown}); {_COPIED}"
    return ""


def read_record(folder: Path, key: ResultKey | None) -> tuple[FolderRecord | None, str]:
    """The folder's record when it is present, signed by `key` and bound to this folder (its real path and
    inode): (record, ''); else (None, why not)."""
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
        if why := _bound_elsewhere(data, Path(folder)):
            return None, why
        record = FolderRecord(
            first_scored=str(data["first_scored"]),
            preexisting_count=int(data["preexisting_count"]),
            preexisting=[str(n) for n in data["preexisting"]][:MAX_NAMES],
            folder=str(data["folder"]),
            inode=str(data["inode"]),
            nonce=str(data.get("nonce", "")),
            run=str(data.get("run", "")),
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        return None, f"its {RECORD_NAME} cannot be read ({exc})"
    return record, ""


def _misplaced(why: str) -> bool:
    """Whether `read_record`'s reason is a genuinely signed record that is not bound to its folder."""
    return why.endswith(_COPIED) or why.endswith(_UNBOUND)


def _refused_note(folder: Path, why: str) -> str:
    return (
        f"{folder}: {why}; that record (what the folder held before it was first scored) is refused, so nothing "
        "vouches for the files that were there before it (each result is still checked by its own signature)"
    )


def _fix(folder: Path) -> str:
    """How to clear a record note for good: a folder scored from empty has nothing to report."""
    return (
        f"; to clear this, score the run afresh: remove {folder} and run `avb verify` on the run again (every "
        "task is rescored), or move a moved folder back"
    )


def record_notes(folders: list[Path], key: ResultKey | None) -> list[str]:
    """For reports: one note per results folder whose record (signed by `key`, bound to it) says it held files
    before its first scoring, and one per folder whose genuinely signed record belongs to another folder."""
    notes = []
    for folder in folders:
        record, why = read_record(folder, key)
        if record is not None and (line := record.describe(Path(folder))):
            notes.append(line + _fix(Path(folder)))
        elif _misplaced(why):
            notes.append(_refused_note(Path(folder), why) + _fix(Path(folder)))
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


def other_run(folder: Path, key: ResultKey | None, run: str | os.PathLike[str]) -> str:
    """The run another scoring wrote `folder`'s results for, by its signed record ('' when it is `run`'s, or
    when nothing signed says so): a reused `--out` must not overwrite another run's results."""
    record, _why = read_record(folder, key)
    if record is None or not record.run or record.run == os.path.realpath(run):
        return ""
    return record.run


def refuse_other_runs(
    plans: list[RunPlan], key: ResultKey | None
) -> tuple[list[RunPlan], list[RunPlanError]]:
    """The plans whose results folder is theirs, and one refusal per results folder whose signed record says it
    holds another run's results (a reused `--out`, which used to overwrite them silently)."""
    kept, refused = [], []
    for plan in plans:
        if other := other_run(plan.results_dir, key, plan.run.path):
            refused.append(
                RunPlanError(
                    plan.results_dir,
                    "out_other_run",
                    f"{plan.results_dir}: holds the results of another run ({other}); refusing to score "
                    f"{plan.run.path} into it (choose another --out, or remove that folder)",
                )
            )
        else:
            kept.append(plan)
    return kept, refused


def claim(
    folder: Path, key: ResultKey, run: str | os.PathLike[str] | None = None
) -> tuple[FolderRecord, str]:
    """Before scoring into `folder` for run directory `run`: its record, written now (signed) when it has none
    signed by `key`.

    Returns (record, note); the note says the folder held files before its first scoring ('' otherwise, and ''
    on every later scoring: the record keeps saying it to `avb report`).
    """
    folder = Path(folder)
    record, why = read_record(folder, key)
    if record is not None:
        return record, ""
    count, names = _entries(folder)
    where, inode = folder_place(folder)
    record = FolderRecord(
        first_scored=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        preexisting_count=count,
        preexisting=names,
        folder=where,
        inode=inode,
        nonce=secrets.token_hex(8),
        run=os.path.realpath(run) if run is not None else "",
    )
    body = asdict(record)
    body["signature"] = {"alg": ALG, "key_id": key.key_id, "mac": key.mac(_payload(asdict(record)))}
    note = record.describe(folder)
    if _misplaced(why):
        note = "; ".join(n for n in (_refused_note(folder, why), note) if n)
    try:
        atomic_write_json(folder / RECORD_NAME, body)
    except OSError as exc:  # e.g. the agent made the record's name a folder: score anyway, say so
        note = (f"{note}; " if note else f"{folder}: ") + (
            f"its record {RECORD_NAME} could not be written "
            f"({exc.strerror or exc}), so reports cannot repeat this"
        )
    return record, note
