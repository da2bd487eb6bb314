"""Every file of a task folder, whatever its name, for the identity screening of tasks with verifier-only media.

The verifier reads only the files its family names (`fixed.mp4`, `report.md`); the verifier-only source saved
as `source.mp4`, `fixed.mov` or `notes.txt` beside an honest fix is no less a sign the agent saw it. This walks the
task folder (hostile input: no symlinked folder followed, at most `MAX_ENTRIES` entries, `MAX_DEPTH` levels,
`MAX_FILES` files kept) and hands back each file through the submission's one file reader (`Submission.file`:
contained, a regular file, under its kind's byte cap). A file it refuses, and whatever the bounds leave out, is a
note, never a crash or a rejection.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from agenticvbench.fsutil import sorted_entries
from agenticvbench.runs.submission import InputRejected, Submission

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
