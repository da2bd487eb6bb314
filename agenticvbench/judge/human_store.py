"""Human verdicts on recap llm items: an append-only JSONL file per grader, and the majority across graders.

Layout: `<cache>/grades/<grader>.jsonl` (the package cache by default, `--cache-dir` otherwise), one JSON object
per line (`HumanVerdict`). A verdict is keyed by (task id, item id, SHA-256 of the graded `final.mp4`), not by the
run's path: the same video graded in a copied run keeps its verdicts, and a changed video (another hash) has none,
so an edited submission can never inherit verdicts given to an older file. A later line for the same key
replaces an earlier one (a grader changing their mind); nothing is ever rewritten.

Writes: each verdict is one `write()` of one line on a file opened with `O_APPEND`, then `fsync`; concurrent
writers (two tabs, two servers) never interleave inside a line, and a crash can at worst leave a torn last line,
which readers skip (and the next append starts on a fresh line). Reads are bounded: a file over `MAX_FILE_BYTES`
or a line over `MAX_LINE_BYTES` is refused / skipped, with the file named.

Grader names are `[A-Za-z0-9_.-]{1,64}` (they become file names).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from agenticvbench.errors import ConfigError
from agenticvbench.fsutil import file_sha256

HumanOutcome = Literal["pass", "fail", "skip"]
VERDICTS: tuple[str, ...] = ("pass", "fail", "skip")
GRADER_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 64 * 1024
MAX_NOTES = 4000
STORE_SCHEMA = 1

Key = tuple[int, str, str]  # (task_id, item_id, video_sha256)


@dataclass(kw_only=True, frozen=True)
class HumanVerdict:
    """One person's verdict on one rubric item of one video."""

    grader: str
    task_id: int
    item_id: str
    video_sha256: str
    verdict: HumanOutcome
    notes: str = ""
    pillar: int | None = None
    run: str = ""  # the run's label when graded (information only; the key is the video hash)
    time: str = ""
    schema: int = STORE_SCHEMA

    @property
    def key(self) -> Key:
        """What the verdict is about."""
        return (self.task_id, self.item_id, self.video_sha256)

    @classmethod
    def from_dict(cls, d: Any) -> HumanVerdict | None:
        """A verdict from a stored line, or None when the line is not a valid verdict of this schema."""
        if not isinstance(d, dict) or d.get("schema") != STORE_SCHEMA:
            return None
        try:
            v = cls(
                grader=str(d["grader"]),
                task_id=int(d["task_id"]),
                item_id=str(d["item_id"]),
                video_sha256=str(d["video_sha256"]),
                verdict=d["verdict"],
                notes=str(d.get("notes", "")),
                pillar=d.get("pillar") if isinstance(d.get("pillar"), int) else None,
                run=str(d.get("run", "")),
                time=str(d.get("time", "")),
            )
        except (KeyError, TypeError, ValueError):
            return None
        if v.verdict not in VERDICTS or not GRADER_RE.match(v.grader) or len(v.video_sha256) != 64:
            return None
        return v


def check_grader(name: str) -> str:
    """The grader name, or a ConfigError saying what a name may contain."""
    if not GRADER_RE.match(name or ""):
        raise ConfigError(f"grader name {name!r}: use 1-64 letters, digits, '_', '.' or '-'")
    return name


def now_utc() -> str:
    """The current UTC time, ISO 8601 to the millisecond."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class VerdictStore:
    """The folder of per-grader JSONL files."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, grader: str) -> Path:
        """The JSONL file of `grader`."""
        return self.root / f"{check_grader(grader)}.jsonl"

    def append(self, verdict: HumanVerdict) -> HumanVerdict:
        """Store one verdict durably (one O_APPEND write + fsync); returns it with its time set."""
        if verdict.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}")
        v = replace(verdict, time=verdict.time or now_utc(), notes=verdict.notes[:MAX_NOTES])
        line = json.dumps(asdict(v), ensure_ascii=False, sort_keys=True)
        path = self.path(v.grader)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise OSError(f"{path}: not a regular file")
            # a torn last line (crash mid-write) must not swallow this verdict: start on a fresh line
            prefix = b"" if st.st_size == 0 or _ends_with_newline(path) else b"\n"
            os.write(fd, prefix + line.encode("utf-8") + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        return v

    def graders(self) -> list[str]:
        """Every grader with a file in the store."""
        if not self.root.is_dir():
            return []
        return sorted(p.stem for p in self.root.glob("*.jsonl") if GRADER_RE.match(p.stem))

    def read(self, grader: str) -> list[HumanVerdict]:
        """All valid verdicts of `grader`, in file order (torn or foreign lines skipped)."""
        path = self.path(grader)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            return []
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise ConfigError(f"{path}: not a regular file")
            if st.st_size > MAX_FILE_BYTES:
                raise ConfigError(f"{path}: {st.st_size} bytes, over the {MAX_FILE_BYTES}-byte limit")
            data = f.read(MAX_FILE_BYTES + 1)
        out: list[HumanVerdict] = []
        for raw in data.split(b"\n"):
            if not raw.strip() or len(raw) > MAX_LINE_BYTES:
                continue
            try:
                v = HumanVerdict.from_dict(json.loads(raw))
            except (ValueError, RecursionError):
                continue
            if v is not None and v.grader == grader:
                out.append(v)
        return out

    def latest(self, grader: str) -> dict[Key, HumanVerdict]:
        """`grader`'s current verdict per key (the last line wins)."""
        return {v.key: v for v in self.read(grader)}

    def by_key(
        self, graders: list[str] | tuple[str, ...] | None = None
    ) -> dict[Key, dict[str, HumanVerdict]]:
        """key -> {grader: current verdict} for the given graders (default: all)."""
        out: dict[Key, dict[str, HumanVerdict]] = {}
        for g in graders or self.graders():
            for key, v in self.latest(g).items():
                out.setdefault(key, {})[g] = v
        return out


def grades_digest(root: str | Path, graders: tuple[str, ...] | list[str] = ()) -> str:
    """SHA-256 over the verdict files of `graders` (default: all): changes whenever a verdict is added, so results
    scored from human verdicts are rescored instead of reused."""
    store = VerdictStore(root)
    h = hashlib.sha256()
    for g in sorted(graders or store.graders()):
        path = store.path(g)
        h.update(g.encode() + b"\0")
        if path.is_file() and path.stat().st_size <= MAX_FILE_BYTES:
            h.update(file_sha256(path).encode())
    return h.hexdigest()


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def majority(verdicts: dict[str, HumanVerdict]) -> tuple[str, str, list[dict[str, Any]]]:
    """(outcome, reason, votes) of one item from its graders' verdicts: the majority of pass/fail; `skip` is no
    vote; a tie or no vote is `unscored`."""
    votes = [{"grader": g, "outcome": v.verdict, "time": v.time} for g, v in sorted(verdicts.items())]
    n_pass = sum(v.verdict == "pass" for v in verdicts.values())
    n_fail = sum(v.verdict == "fail" for v in verdicts.values())
    names = ", ".join(sorted(verdicts)) or "none"
    if not n_pass and not n_fail:
        return "unscored", f"no human verdict (graders with a verdict: {names})", votes
    if n_pass == n_fail:
        return "unscored", f"human tie: {n_pass} pass, {n_fail} fail ({names})", votes
    outcome = "pass" if n_pass > n_fail else "fail"
    return outcome, f"human majority {outcome}: {n_pass} pass, {n_fail} fail ({names})", votes
