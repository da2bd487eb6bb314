"""Run directories: find each task's folder and the run's `run.json`, and hand verifiers only safe input files.

Layout: `RUN/<task_id>/` holds one task's outputs; an `output/` subfolder inside it is accepted too, because
harnesses write to `/workspace/output`. `RUN/run.json` (optional) names the harness, model and repetition.

Everything in a run directory is written by the agent being scored, so it is hostile input (docs/security.md):
task folders are plain ASCII-digit names, neither a task folder nor its `output/` may be a symlink, and every file a
verifier asks for (`Submission.file`) must resolve inside its task folder, be a regular file, and be under the byte
cap of its kind. A present but unacceptable file raises `InputRejected`, which the engine turns into a `malformed`
result naming the file; it is never reported as "not found" and never opened.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.errors import ConfigError, SubmissionError
from agenticvbench.fsutil import (
    TooLargeError,
    escape_reason,
    file_kind,
    is_inside,
    parse_json_bounded,
    read_capped,
)
from agenticvbench.runs.layout_hints import rename_hint

RESULTS_DIRNAME = "avb-results"
#: The run's own agent logs (Inspect's eval logs, read by the trajectory audit): not a task folder.
LOGS_DIRNAME = "logs"
MB = 1024 * 1024
RUN_JSON_MAX_BYTES = 5 * MB
MANIFEST_MAX_BYTES = 5 * MB  # any .json output (solution.json)
TEXT_MAX_BYTES = 1 * MB  # report.md and other text outputs
DEFAULT_MEDIA_MAX_BYTES = 4096 * MB
MEDIA_CAP_ENV = "AVB_MAX_MEDIA_MB"
TASK_DIR_RE = re.compile(r"[0-9]+", re.ASCII)
RUN_KEYS: tuple[str, ...] = ("harness", "model", "rep")
#: Informational keys people and other tools write (`avb import harbor`: trial notes, Harbor's own rewards, the
#: job and trial outcomes under `harbor`, `source`): accepted without a note, never used for scoring or identity.
#: Any other key gets a note.
RUN_INFO_KEYS: tuple[str, ...] = (
    "notes",
    "harbor_rewards",
    "harbor",
    "source",
    "date",
    "agent_version",
    "seed",
    "config",
    "usage",
)
_TEXT_SUFFIXES = (".md", ".txt")


class InputRejected(SubmissionError):
    """A submitted file exists but may not be read (outside the task folder, not a regular file, too large, ...).

    The engine scores the task `malformed` with this message as the reason."""


def media_max_bytes(value: int | None = None) -> int:
    """The media byte cap: `value` if given, else `$AVB_MAX_MEDIA_MB` (MiB), else 4096 MiB."""
    if value is not None:
        if value <= 0:
            raise ConfigError(f"the media size cap must be positive, got {value}")
        return int(value)
    env = os.environ.get(MEDIA_CAP_ENV, "").strip()
    if not env:
        return DEFAULT_MEDIA_MAX_BYTES
    if not env.isascii() or not env.isdigit() or int(env) <= 0:
        raise ConfigError(f"${MEDIA_CAP_ENV}={env!r}: expected a positive number of MiB")
    return int(env) * MB


def cap_for(name: str, media_cap: int) -> int:
    """The byte cap of an output file by kind: .json 5 MB, .md/.txt 1 MB, anything else (media) `media_cap`."""
    suffix = Path(name).suffix.lower()
    if suffix == ".json":
        return MANIFEST_MAX_BYTES
    if suffix in _TEXT_SUFFIXES:
        return TEXT_MAX_BYTES
    return media_cap


@dataclass(frozen=True)
class Submission:
    """One task's outputs inside a run (the folder may not exist: then every file is missing).

    `folder` is where outputs are read (`RUN/<id>` or `RUN/<id>/output`), `root` the task folder `RUN/<id>`
    (defaults to `folder`); `rejection` is set when the task folder itself is unacceptable (the engine then scores
    the task `malformed` without reading anything).
    """

    task_id: int
    folder: Path | None
    root: Path | None = None
    rejection: str = ""
    media_cap: int = DEFAULT_MEDIA_MAX_BYTES

    @property
    def task_root(self) -> Path | None:
        """The task folder `RUN/<id>` (every input must resolve inside it)."""
        return self.root or self.folder

    def file(self, name: str) -> Path | None:
        """The path of output file `name` if it is present, else None; raises `InputRejected` if it is present but
        unacceptable (see the module docstring), so a verifier only ever opens a contained, bounded regular file."""
        if self.folder is None:
            return None
        if self.rejection:
            raise InputRejected(self.rejection)
        p = self.folder / name
        root = self.task_root
        assert root is not None
        if root != self.folder and os.path.lexists(root / name) and os.path.lexists(p):
            raise InputRejected(
                f"{root / name} and {p}: the output is present twice (task folder and output/); keep one"
            )
        try:
            os.lstat(p)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise InputRejected(f"{p}: cannot be examined ({exc.strerror or exc})") from None
        escape = escape_reason(p, root, "the task folder")
        if escape:
            raise InputRejected(escape)
        real = os.path.realpath(p)
        try:
            st = os.stat(p)
        except OSError:
            raise InputRejected(f"{p}: a broken symlink (to {real})") from None
        if not os.path.isfile(real) or file_kind(st.st_mode) != "regular file":
            raise InputRejected(f"{p}: is a {file_kind(st.st_mode)}, not a regular file")
        if real.startswith("/proc/") or real.startswith("/sys/"):
            raise InputRejected(f"{p}: is a kernel pseudo-file ({real})")
        cap = cap_for(name, self.media_cap)
        if st.st_size > cap:
            raise InputRejected(
                f"{p}: {st.st_size} bytes, over the {cap} byte limit for this kind of output"
                + (f" (raise it with --max-media-mb or ${MEDIA_CAP_ENV})" if cap == self.media_cap else "")
            )
        return p

    def owns(self, path: Path) -> bool:
        """True when `path` lies in this submission's task folder (a submitted input, not a dataset file)."""
        root = self.task_root
        return root is not None and is_inside(os.path.abspath(path), os.path.abspath(root))

    def expected_path(self, name: str) -> Path:
        """Where output file `name` would be (for messages naming a missing file)."""
        return (self.folder or Path(f"<run>/{self.task_id}")) / name


@dataclass(frozen=True)
class RunMeta:
    """The identity a run declares in `run.json` (unset or invalid fields stay None); `identity.RunIdentity`
    resolves it, with the options and the folder name, into the identity written into results."""

    harness: str | None = None
    model: str | None = None
    rep: int | str | None = None


def read_run_json(path: Path) -> tuple[RunMeta, list[str]]:
    """Read `RUN/run.json` (hostile input): the declared identity plus one note per problem.

    Never raises for bad content: a file over 5 MB, non-UTF-8, invalid or too deep JSON, a non-object, wrong
    types or unknown keys each give a note naming the file and field, and the run still scores.
    """
    notes: list[str] = []
    if not os.path.lexists(path):
        return RunMeta(), notes
    real = os.path.realpath(path)
    if not is_inside(real, os.path.realpath(path.parent)):
        return RunMeta(), [f"{path}: resolves to {real}, outside the run; ignored"]
    try:
        raw = read_capped(path, RUN_JSON_MAX_BYTES)
        data = parse_json_bounded(raw, str(path))
    except TooLargeError:
        return RunMeta(), [f"{path}: over the {RUN_JSON_MAX_BYTES} byte limit; ignored"]
    except OSError as exc:
        return RunMeta(), [f"{path}: unreadable ({exc.strerror or exc}); ignored"]
    except ValueError as exc:
        return RunMeta(), [f"{exc}; ignored"]
    if not isinstance(data, dict):
        return RunMeta(), [f"{path}: top level is not an object; ignored"]
    values: dict[str, Any] = {}
    for key in ("harness", "model"):
        v = data.get(key)
        if v is None:
            continue
        if not isinstance(v, str) or not v.strip() or len(v) > 200:
            notes.append(
                f"{path}: field {key!r} must be a non-empty string of at most 200 characters; ignored"
            )
        else:
            values[key] = v
    rep = data.get("rep")
    if rep is not None:
        ok_int = isinstance(rep, int) and not isinstance(rep, bool) and abs(rep) < 10**9
        ok_str = isinstance(rep, str) and 0 < len(rep) <= 64
        if ok_int or ok_str:
            values["rep"] = rep
        else:
            notes.append(f"{path}: field 'rep' must be an integer or a short string; ignored")
    unknown = sorted(str(k) for k in data if k not in RUN_KEYS and k not in RUN_INFO_KEYS)
    if unknown:
        shown = ", ".join(repr(k[:40]) for k in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
        notes.append(f"{path}: unknown key(s) {shown} ignored (known: {', '.join(RUN_KEYS + RUN_INFO_KEYS)})")
    return RunMeta(**values), notes


@dataclass(kw_only=True)
class RunDir:
    """A run directory: its task folders, its declared identity and the notes about what was ignored."""

    path: Path
    meta: RunMeta = field(default_factory=RunMeta)
    task_folders: dict[int, Path] = field(default_factory=dict)
    task_roots: dict[int, Path] = field(default_factory=dict)
    rejections: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def harness(self) -> str:
        """Harness name from run.json (or 'unknown')."""
        return self.meta.harness or "unknown"

    @property
    def model(self) -> str:
        """Model name from run.json (or 'unknown')."""
        return self.meta.model or "unknown"

    def submission(self, task_id: int, media_cap: int = DEFAULT_MEDIA_MAX_BYTES) -> Submission:
        """The submission for `task_id` (folder None when the run has no folder for it)."""
        folder = self.task_folders.get(task_id)
        return Submission(
            task_id, folder, self.task_roots.get(task_id), self.rejections.get(task_id, ""), media_cap
        )


def _is_real_dir(p: Path) -> bool:
    """Whether `p` is a folder and not a symlink; False when absent; `OSError` when it cannot be checked (an
    unreadable parent)."""
    try:
        return stat.S_ISDIR(os.lstat(p).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


def _symlink_problem(p: Path) -> str:
    if os.path.islink(p):
        return f"{p}: is a symlink (to {os.path.realpath(p)}); task folders and output/ must be real folders"
    return ""


def open_run(path: str | Path) -> RunDir:
    """Read a run directory: every plain ASCII-digit folder (`38`, `038`) is a task folder; `run.json` is parsed.

    Other entries are ignored (the ignored folders are listed in one note). Two folders for one id, a task folder
    or `output/` that is a symlink or cannot be read (mode 000), or a non-folder with a task name make that task
    rejected (`malformed`); the run's other tasks score.
    """
    root = Path(path).expanduser()
    if not root.is_dir():
        raise SubmissionError(
            f"{root}: run directory not found" + (" (it is a file)" if root.exists() else "")
        )
    root = root.resolve()  # absolute: workers with another working directory (Dask) must find the same files
    run = RunDir(path=root)
    run.meta, run.notes = read_run_json(root / "run.json")
    ignored: list[str] = []
    seen: dict[int, list[Path]] = {}
    for child in sorted(root.iterdir()):
        name = child.name
        if not TASK_DIR_RE.fullmatch(name):
            if child.is_dir() and name not in (RESULTS_DIRNAME, LOGS_DIRNAME) and not name.startswith("."):
                ignored.append(ascii(name) + rename_hint(name))
            continue
        seen.setdefault(int(name), []).append(child)
    if ignored:
        run.notes.append(
            f"{root}: ignored {len(ignored)} folder(s) whose names are not plain ASCII digits: "
            + ", ".join(ignored[:20])
            + (" ..." if len(ignored) > 20 else "")
        )
    for tid, dirs in seen.items():
        d = dirs[0]
        run.task_roots[tid] = d
        out = d / "output"
        try:
            out_is_dir = _is_real_dir(out)
            if _is_real_dir(d):
                os.scandir(d).close()  # the agent may have made it unreadable (mode 000): that task only
            if out_is_dir:
                os.scandir(out).close()
        except OSError as exc:
            run.task_folders[tid] = d
            run.rejections[tid] = (
                f"{d}: cannot be read ({exc.strerror or exc}); a task folder must be readable"
            )
            continue
        run.task_folders[tid] = out if out_is_dir else d
        if len(dirs) > 1:
            run.rejections[tid] = (
                f"{' and '.join(str(x) for x in dirs)}: {len(dirs)} folders for task {tid}; keep one"
            )
        elif problem := _symlink_problem(d) or _symlink_problem(out):
            run.rejections[tid] = problem
        elif not d.is_dir():
            run.rejections[tid] = f"{d}: is a {file_kind(os.lstat(d).st_mode)}, not a task folder"
    return run
