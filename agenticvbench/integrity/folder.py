"""Every file of a task folder, whatever its name, for the screening of every task.

The verifier reads only the files its family names (`fixed.mp4`, `report.md`, `solution.json`); the verifier-only
source saved as `source.mp4`, `fixed.mov` or `notes.txt` beside an honest fix is no less a sign the agent saw it,
and a sequencing `solution.mp4` is an output `avb view` shows. This walks the
task folder (hostile input: no symlinked folder followed, at most `MAX_ENTRIES` entries, `MAX_DEPTH` levels,
`MAX_FILES` files kept) and hands back each file through the submission's one file reader (`Submission.file`:
contained, a regular file, under its kind's byte cap). A file it refuses, and whatever the bounds leave out, is a
note, never a crash or a rejection. `pinned_others` pins each file it hands back (`runs.pinned`): scoring screens,
hashes and records the bytes of one descriptor, and `avb view` later shows only those bytes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from agenticvbench.fsutil import sorted_entries
from agenticvbench.runs.pinned import Pin, PinError, pin_inputs
from agenticvbench.runs.submission import InputRejected, Submission, cap_for

MAX_ENTRIES = 2000
MAX_DEPTH = 3
MAX_FILES = 64


def _walk(root: Path) -> tuple[list[Path], bool]:
    """Non-directory entries below `root` (symlinks included, never followed into), and whether a bound cut
    the walk short."""
    found: list[Path] = []
    seen = 0
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        entries = sorted_entries(folder)
        for e in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                return found, True
            if e.is_dir(follow_symlinks=False):
                if depth + 1 < MAX_DEPTH:
                    stack.append((Path(e.path), depth + 1))
            else:
                found.append(Path(e.path))
    return found, False


def other_files(submission: Submission, skip: Iterable[Path]) -> tuple[list[Path], list[str]]:
    """The files of `submission`'s task folder other than `skip` (already screened), each accepted by
    `Submission.file`, at most `MAX_FILES`; and notes naming each file refused or left out."""
    root, folder = submission.task_root, submission.folder
    if root is None or folder is None or submission.rejection:
        return [], []
    done = {os.path.abspath(p) for p in skip}
    entries, cut = _walk(root)
    files: list[Path] = []
    notes: list[str] = []
    for p in entries:
        if os.path.abspath(p) in done:
            continue
        if len(files) >= MAX_FILES:
            cut = True
            break
        try:
            accepted = submission.file(os.path.relpath(p, folder))
        except InputRejected as exc:
            notes.append(f"integrity: {p.name} was not screened ({exc})")
            continue
        if accepted is not None:
            files.append(accepted)
    if cut:
        notes.append(
            f"integrity: only the first {len(files)} other files of {root} were screened "
            f"(at most {MAX_FILES} files, {MAX_ENTRIES} entries, {MAX_DEPTH} levels)"
        )
    return files, notes


@dataclass
class OtherFiles:
    """The other files of a task folder, pinned for the block that found them, and the notes of those left out."""

    pins: dict[Path, Pin] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def hashes(self) -> dict[Path, str]:
        """Path -> SHA-256 of each pinned file."""
        return {p: pin.sha256 for p, pin in self.pins.items()}


@contextmanager
def pinned_others(submission: Submission, skip: Iterable[Path]) -> Iterator[OtherFiles]:
    """The files of `submission`'s task folder other than `skip` (`other_files`), each pinned and hashed through
    one descriptor for the duration of the block (`runs.pinned.pin_inputs`); a file that cannot be pinned is a
    note, never a rejection."""
    files, notes = other_files(submission, skip)  # none without a task folder
    found = OtherFiles(notes=notes)
    root = submission.task_root or Path(".")
    with ExitStack() as stack:
        for p in files:
            try:
                pins = stack.enter_context(
                    pin_inputs([p], root, lambda name: cap_for(name, submission.media_cap))
                )
            except PinError as exc:
                found.notes.append(f"integrity: {p.name} was not screened ({exc})")
                continue
            found.pins.update(pins)
        yield found
