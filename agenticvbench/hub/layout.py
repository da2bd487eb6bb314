"""The repo layout of published runs: paths, the names allowed in them, and the size caps of a pull.

```
README.md                                   the dataset card (`card`)
data/<table>.parquet                        tables derived from the result files (`tables.TABLES`)
runs/<run>/avb-results/<task_id>.json       every valid result file of a run, byte for byte
runs/<run>/outputs/<task_id>/<name>         with --with-outputs: the outputs a bundle may show (`hub.outputs`)
```

`<run>` is the run folder's name made safe (`run_name`). A pull accepts these paths only: any other file is
ignored with a note, and a path that could leave the pull's folder (absolute, `..`, a backslash, a control
character) refuses the whole pull.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from agenticvbench.dataset.tasks import OUTPUT_FILES
from agenticvbench.results.model import RESULT_MAX_BYTES
from agenticvbench.runs.submission import DEFAULT_MEDIA_MAX_BYTES, RESULTS_DIRNAME
from agenticvbench.runs.submission import cap_for as output_cap

CARD_PATH = "README.md"
TABLES_DIR = "data"
RUNS_DIR = "runs"
#: The record a pull writes in its folder (the commit pulled, the digests, what was refused).
PULL_RECORD = "avb-pull.json"

_RUN_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"
RUN_NAME_RE = re.compile(_RUN_NAME, re.ASCII)
RESULT_PATH_RE = re.compile(
    rf"{RUNS_DIR}/(?P<run>{_RUN_NAME})/{RESULTS_DIRNAME}/(?P<task>[0-9]{{1,6}})\.json", re.ASCII
)
OUTPUTS_DIRNAME = "outputs"
_OUTPUT_NAMES = "|".join(sorted({re.escape(n) for names in OUTPUT_FILES.values() for n in names}))
OUTPUT_PATH_RE = re.compile(
    rf"{RUNS_DIR}/(?P<run>{_RUN_NAME})/{OUTPUTS_DIRNAME}/(?P<task>[0-9]{{1,6}})/(?P<name>{_OUTPUT_NAMES})",
    re.ASCII,
)
TABLE_PATH_RE = re.compile(rf"{TABLES_DIR}/(?P<table>[a-z_]{{1,32}})\.parquet", re.ASCII)

#: Caps a pull checks against the sizes the repo listing declares, before a byte is downloaded, and again on
#: the bytes received.
CARD_MAX_BYTES = 1024 * 1024
TABLE_MAX_BYTES = 256 * 1024 * 1024
MAX_FILES = 100_000
MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024


def run_name(folder_name: str) -> str:
    """A repo-safe run name from a run folder's name: characters outside `[A-Za-z0-9._-]` become `-`, it starts
    with a letter or digit, at most 100 characters; `run` when nothing is left."""
    name = re.sub(r"[^A-Za-z0-9._-]", "-", folder_name).lstrip("._-")[:100]
    return name or "run"


def unique_names(folder_names: Iterable[str]) -> list[str]:
    """`run_name` of each folder, a second `perfect` becoming `perfect-2` (in the order given)."""
    out: list[str] = []
    for folder in folder_names:
        base = run_name(folder)
        name, n = base, 1
        while name in out:
            n += 1
            name = f"{base[: 100 - len(str(n)) - 1]}-{n}"
        out.append(name)
    return out


def unsafe_path(path: str) -> str:
    """Why a repo path could leave a folder it is joined to ('' when it cannot)."""
    if not path or len(path) > 1000:
        return "empty or over 1000 characters"
    if any(ord(c) < 32 or c in "\\\x7f" for c in path):
        return "holds a backslash or a control character"
    pure = PurePosixPath(path)
    if pure.is_absolute() or path.startswith("/"):
        return "is absolute"
    if any(part in ("..", ".", "") for part in path.split("/")):
        return "has an empty, `.` or `..` segment"
    return ""


def cap_for(path: str) -> int | None:
    """The largest size a pull accepts for an allowed repo path; None when the path is not part of the layout."""
    if path == CARD_PATH:
        return CARD_MAX_BYTES
    if TABLE_PATH_RE.fullmatch(path):
        return TABLE_MAX_BYTES
    if RESULT_PATH_RE.fullmatch(path):
        return RESULT_MAX_BYTES
    if m := OUTPUT_PATH_RE.fullmatch(path):
        return output_cap(
            m["name"], DEFAULT_MEDIA_MAX_BYTES
        )  # the scorer's caps: .json 5 MB, .md 1 MB, media
    return None
