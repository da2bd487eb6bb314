"""OpenCode's store: the SQLite database `opencode.db`: table `part` (`id`, `message_id`, `session_id`,
`time_created`, `time_updated`, `data`: one row per message part, its JSON in `data`) and table `message`
(`id`, ..., `data` with `role` and, for the assistant, `path.cwd`). A tool call is a part `{"type": "tool",
"tool", "callID", "state": {"status", "input", "output", "error", "title", "time": {"start", "end"}}}` (times in
epoch milliseconds); a text part `{"type": "text", "text"}`, the user's when its message's role is `user`. Parts
are read in id order (OpenCode's ids ascend with time); a store without `message_id` is read from `part` alone.

The database is copied out (bounded, its `-wal` file too, through `JobDir`: no symlink) into a private temporary
folder and opened there read-only, as `cost.usage_stores` opens it for usage: `mode=ro`, queries only, untrusted
schema off, a step budget, at most `MAX_PARTS` rows of at most `usage_stores.MAX_ROW_BYTES`. A database that
cannot be read is one note.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from agenticvbench.cost.usage_stores import MAX_ROW_BYTES, copy_opencode_db, open_opencode_db, row_json
from agenticvbench.harbor.files import clean_document
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory.formats.common import get
from agenticvbench.trajectory.model import MAX_SCAN_CHARS, MAX_STEPS, Step, Trajectory, make_step

NAME = "opencode"
DESCRIPTION = "OpenCode opencode.db (SQLite)"
MAX_PARTS = 200_000


def sniff(head: bytes, name: str) -> bool:
    """An SQLite database file."""
    return head.startswith(b"SQLite format 3\x00")


_JOINED = (
    "SELECT p.id, CASE WHEN length(CAST(p.data AS BLOB)) <= ? THEN p.data END, "
    "CASE WHEN length(CAST(m.data AS BLOB)) <= ? THEN m.data END "
    "FROM part p LEFT JOIN message m ON m.id = p.message_id ORDER BY p.id LIMIT ?"
)
_PARTS = "SELECT id, CASE WHEN length(CAST(data AS BLOB)) <= ? THEN data END, ? FROM part ORDER BY id LIMIT ?"


def _rows(db: Path) -> list[tuple[Any, Any, Any]]:
    with open_opencode_db(db) as conn:
        try:
            return conn.execute(_JOINED, (MAX_ROW_BYTES, MAX_ROW_BYTES, MAX_PARTS + 1)).fetchall()
        except sqlite3.OperationalError as exc:  # an older store: no message table or no message_id column
            if "no such" not in str(exc):
                raise
            return conn.execute(_PARTS, (MAX_ROW_BYTES, None, MAX_PARTS + 1)).fetchall()


def step_of(index: int, data: Any, role: str = "agent") -> Step | None:
    """The step of one part's `data` object (`role`: its message's, for text); None for parts that are neither a
    tool call nor text."""
    if not isinstance(data, dict):
        return None
    if data.get("type") == "tool":
        state = data.get("state")
        status = get(state, "status")
        tool = data.get("tool") if isinstance(data.get("tool"), str) else "unnamed"
        return make_step(
            index,
            role="agent",
            tool=tool,
            arguments=get(state, "input"),
            result=get(state, "output"),
            time=get(state, "time", "start"),
            error=get(state, "error") or ("tool error" if status == "error" else None),
        )
    if data.get("type") == "text" and isinstance(data.get("text"), str):
        return make_step(index, role=role, arguments=data["text"], time=get(data, "time", "start"))
    return None


def _message(raw: Any) -> tuple[str, str | None]:
    """(role of the part's message as a step role, the assistant's working folder) from the message's `data`."""
    try:
        data = row_json(raw, "message")
    except ValueError:
        return "agent", None
    role = "user" if get(data, "role") == "user" else "agent"
    cwd = get(data, "path", "cwd")
    return role, cwd[:1000] if isinstance(cwd, str) and cwd else None


def read(job: JobDir, parts: tuple[str, ...], traj: Trajectory) -> None:
    """Fill `traj` from the OpenCode database at `parts`."""
    where = "/".join(parts)
    with tempfile.TemporaryDirectory(prefix="avb-audit-opencode-") as tmp:
        try:
            rows = _rows(copy_opencode_db(job, parts, Path(tmp)))
        except (OSError, sqlite3.Error) as exc:
            traj.note(f"{where}: not a readable OpenCode database ({str(exc)[:200]})")
            return
    if len(rows) > MAX_PARTS:
        traj.note(f"{where}: more than {MAX_PARTS} parts; the rest not read")
    for rid, data, message in rows[:MAX_PARTS]:
        if len(traj.steps) >= MAX_STEPS:
            traj.note(f"{where}: more than {MAX_STEPS} steps; the rest not read")
            break
        w = f"{where}: part {str(rid)[:60]!r}"
        if data is None:
            traj.note(f"{w}: data missing or over {MAX_ROW_BYTES} bytes; skipped")
            continue
        try:
            obj = row_json(data, w)
        except ValueError as exc:
            traj.note(str(exc)[:240])
            continue
        role, cwd = _message(message)
        traj.cwd = traj.cwd or cwd
        notes: list[str] = []
        step = step_of(len(traj.steps), clean_document(obj, w, notes, max_chars=MAX_SCAN_CHARS), role)
        for line in notes:
            traj.note(line)
        if step is not None:
            traj.steps.append(step)
