"""Hints for a run directory laid out almost right, so the message says how to fix it.

- A folder named like a task but with a prefix or suffix (`sequencing-037`, the exported Harbor task's own name,
  or `task_38`) is ignored as before; the note adds "rename to 37/".
- A task whose outputs are missing from `RUN/<id>/` and `RUN/<id>/output/` but sit one or two levels deeper
  (`83/out/solution.json`) gets "found 83/out/solution.json; outputs go in RUN/83/ or RUN/83/output/".

Hints never change what is read or scored. The search is bounded (`MAX_ENTRIES` directory entries, depth 2, no
symlinks followed) because a run directory is hostile input.
"""

from __future__ import annotations

import re
from pathlib import Path

from agenticvbench.dataset.tasks import FAMILIES, OUTPUT_FILES
from agenticvbench.fsutil import sorted_entries

MAX_ENTRIES = 2000
_PREFIXED_ID = re.compile(rf"(?:task|{'|'.join(FAMILIES)})[-_ ]?0*([0-9]{{1,3}})", re.ASCII | re.IGNORECASE)


def rename_hint(name: str) -> str:
    """' (rename to 37/)' for a folder named `<family or task>-<id>` (`sequencing-037`, `task_38`), else ''."""
    m = _PREFIXED_ID.fullmatch(name)
    return f" (rename to {int(m.group(1))}/)" if m else ""


def misplaced_outputs(task_root: Path, family: str) -> list[str]:
    """Output files of `family` found below `task_root` where they are not read (not in the folder itself nor
    in its `output/`), as paths relative to the run, e.g. ['83/out/solution.json']; [] when none or unreadable."""
    names = set(OUTPUT_FILES.get(family, ()))
    found: list[str] = []
    seen = 0
    stack: list[tuple[Path, int]] = [(task_root, 0)]
    while stack and seen < MAX_ENTRIES:
        folder, depth = stack.pop()
        entries = sorted_entries(folder)
        for e in entries[: MAX_ENTRIES - seen]:
            seen += 1
            read_here = depth == 0 or (depth == 1 and folder.name == "output")
            if e.is_file(follow_symlinks=False) and e.name in names and not read_here:
                found.append(str(Path(task_root.name) / Path(e.path).relative_to(task_root)))
            elif e.is_dir(follow_symlinks=False) and depth < 2:
                stack.append((Path(e.path), depth + 1))
    return sorted(found)


def misplaced_hint(task_root: Path | None, task_id: int, family: str) -> str:
    """'; found 83/out/solution.json: outputs go in RUN/83/ or RUN/83/output/' or ''."""
    if task_root is None or not task_root.is_dir():
        return ""
    found = misplaced_outputs(task_root, family)
    if not found:
        return ""
    shown = ", ".join(found[:3]) + (" ..." if len(found) > 3 else "")
    return f"; found {shown}: outputs go in RUN/{task_id}/ or RUN/{task_id}/output/"
