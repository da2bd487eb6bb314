"""Which output files `avb view` may show: exactly the bytes scoring checked, and nothing scoring refused.

An agent writes the run folder and may still be writing it (a process left running in its sandbox). So an output
is offered only when all of these hold, checked once when its page is rendered (`check_output`):

- scoring hashed it: the result records its SHA-256 (`provenance.input_hashes`), and the file's bytes now, read
  through one descriptor opened without following symlinks (`runs.pinned.pin_file`, the scorer's own reader),
  have that hash; a file that changed since is refused with a one-line reason;
- scoring did not refuse the task's media: a video of a result that is not `scored` (malformed: declared sizes it
  does not have, unreadable, over a cap) is not decoded, served or thumbnailed (its text outputs still show);
- scoring did not flag it as a verifier-only reference or a near copy (`FLAGS_WITHHELD`);
- it is not byte-identical to any verifier-only reference of the dataset found on this machine (a result's flags
  only cover the files scoring screened; this check covers every output the viewer shows).

Every later read (serving, copying into a bundle, decoding thumbnails) reopens it with `runs.pinned.reopened`,
which refuses a file whose identity or stamp changed since this check.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agenticvbench.analysis.aggregate import integrity_of
from agenticvbench.results.model import Result
from agenticvbench.runs.pinned import PinError, pin_file

#: Integrity flags whose file is never shown: it holds (or nearly is) material agents never see.
FLAGS_WITHHELD = frozenset({"verifier_reference", "near_copy_of_input"})
#: Suffixes of the outputs that are decoded (videos); text outputs are only read as text.
MEDIA_SUFFIXES = frozenset({".mp4", ".mov", ".mkv", ".webm", ".avi", ".m4v", ".ts", ".wav", ".mp3", ".m4a"})


@dataclass(kw_only=True, frozen=True)
class Checked:
    """What was verified of an output: where it is, the rules it was opened by, and the file's identity then."""

    root: Path  # the task folder it must stay inside
    cap: int  # its kind's byte cap
    sha256: str  # equal to the hash the result records
    stamp: tuple[int, int, int, int, int]  # st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns when hashed


def flagged(result: Result, name: str) -> str:
    """The integrity flag of `result` that withholds file `name` ('' when none does). Flags are recorded per
    result, so a withholding flag withholds every media output of the task."""
    hit = [f for f in integrity_of(result) if f.split(":", 1)[0] in FLAGS_WITHHELD]
    return hit[0] if hit and Path(name).suffix.lower() in MEDIA_SUFFIXES else ""


def check_output(
    result: Result | None,
    name: str,
    path: Path,
    root: Path,
    cap: int,
    is_reference: Callable[[int, str], bool] = lambda size, sha: False,
) -> Checked | str:
    """`Checked` when output `name` (at `path`, inside the task folder `root`) may be shown, else the one-line
    reason it is not (rules in the module docstring). `is_reference(size, sha256)` says whether those bytes are a
    verifier-only reference of the dataset."""
    if result is None:
        return f"{name} not offered: the task has no result, so scoring never checked it"
    recorded = (result.provenance or {}).get("input_hashes") if isinstance(result.provenance, dict) else None
    expected = recorded.get(name) if isinstance(recorded, dict) else None
    if not isinstance(expected, str):
        return f"{name} not offered: scoring did not read it"
    is_media = Path(name).suffix.lower() in MEDIA_SUFFIXES
    if is_media and result.status != "scored":
        return f"{name} not decoded: scoring refused this task's output ({result.status})"
    if why := flagged(result, name):
        return f"{name} withheld: scoring flagged it ({why.split(':', 1)[0]})"
    try:
        pin = pin_file(path, root, cap)
    except PinError as exc:
        return f"{name} not offered: {exc}"
    os.close(pin.fd)
    if pin.sha256 != expected:
        return f"{name} not offered: it changed since it was scored; rescore the run to look at it"
    if is_reference(pin.size, pin.sha256):
        return f"{name} withheld: it is byte-identical to a verifier-only reference of the dataset"
    return Checked(root=root, cap=cap, sha256=pin.sha256, stamp=pin.stamp)
