"""Usage of the two harnesses that keep it in a store instead of a final log line, read as the paper reads them:

- OpenCode: the summed assistant rows of its SQLite database `opencode.db` (table `message`, one row per message,
  its JSON in `data`: `role`, `providerID`, `modelID`, `cost`, `tokens.input` (uncached), `tokens.output`,
  `tokens.reasoning`, `tokens.cache.read`, `tokens.cache.write`). OpenCode keeps reasoning apart from output and
  prices it at the output rate, so output = output + reasoning here.
- OpenClaw: the summed assistant usage of its session JSONL files (`agents/<agent>/sessions/<id>.jsonl`): lines
  `{"type": "message", "message": {"role": "assistant", "model", "provider", "usage": {"input" (uncached),
  "output", "cacheRead", "cacheWrite", "cost": {"total"}}}}`.

Both are found anywhere under the trial's `agent/` folder (at most `MAX_DEPTH` folders deep, `MAX_FILES` files),
read through `JobDir` (no symlink, regular files only). The database is copied out, bounded (`MAX_DB_BYTES`, its
`-wal` file too), into a private temporary folder and opened there read-only (`sqlite3` URI `mode=ro`, queries
only, untrusted schema off, at most `MAX_ROWS` rows of at most `MAX_ROW_BYTES`, a step budget); session files
are streamed whole (at most `MAX_SESSION_BYTES`, lines of at most `MAX_LINE_BYTES`). These are sums, so a store
that cannot be read whole is not summed at all (a note says why) rather than undercounted. A bad row, line or
field is dropped with a note, never a traceback.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import quote

from agenticvbench.cost.tokens import Tokens, known_sum, summed, token_count, usd_amount
from agenticvbench.fsutil import parse_json_bounded
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.trial_outcomes import get_path

MAX_DEPTH = 8
MAX_FILES = 64
MAX_ENTRIES = 20_000
MAX_DB_BYTES = 256 * 1024 * 1024
MAX_ROWS = 200_000
MAX_ROW_BYTES = 1024 * 1024
MAX_MODELS = 32
MAX_SESSION_BYTES = 256 * 1024 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024
_STEP_BUDGET = 50_000_000  # sqlite VM steps / 1000 (progress handler granularity)


def find_stores(job: JobDir, trial: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """(opencode.db files, candidate session JSONL files) under the trial's `agent/` folder, bounded."""
    dbs: list[tuple[str, ...]] = []
    sessions: list[tuple[str, ...]] = []
    stack: list[tuple[str, ...]] = [(trial, "agent")]
    seen = 0
    while stack and seen < MAX_ENTRIES and len(dbs) + len(sessions) < MAX_FILES:
        parts = stack.pop()
        for name in job.listdir(*parts):
            seen += 1
            if name == "opencode.db":
                dbs.append((*parts, name))
            elif name.endswith(".jsonl") and parts[-1] == "sessions" and not name.startswith("rollout-"):
                sessions.append((*parts, name))
            elif len(parts) < MAX_DEPTH + 2 and job.is_dir(*parts, name):
                stack.append((*parts, name))
    return sorted(dbs)[:MAX_FILES], sorted(sessions)[:MAX_FILES]


def _add(by_model: dict[str, list[Tokens]], name: Any, tokens: Tokens, notes: list[str], where: str) -> None:
    key = str(name)[:200] if isinstance(name, str) and name else "unknown"
    if key not in by_model and len(by_model) >= MAX_MODELS:
        notes.append(f"{where}: more than {MAX_MODELS} models; the rest are summed as 'other'")
        key = "other"
    by_model.setdefault(key, []).append(tokens)


def _totals(by_model: dict[str, list[Tokens]]) -> tuple[Tokens, dict[str, Tokens]] | None:
    if not by_model:
        return None
    models = {m: summed(ts, known_sum(t.cost_usd for t in ts)) for m, ts in by_model.items()}
    return summed(models.values(), known_sum(t.cost_usd for t in models.values())), models


def _qualified(model: Any, provider: Any) -> Any:
    """`provider/model` when the model name lacks its provider; the model as recorded otherwise."""
    if isinstance(model, str) and isinstance(provider, str) and provider and "/" not in model:
        return f"{provider}/{model}"
    return model


def opencode_row(data: Any, where: str, notes: list[str]) -> tuple[Any, Tokens] | None:
    """(model, tokens) of one `message.data` object, or None when it is not an assistant message (the model as
    recorded: `_add` names a missing or odd one)."""
    if not isinstance(data, dict) or data.get("role") != "assistant":
        return None
    t = data.get("tokens")
    if not isinstance(t, dict):
        return None
    out = token_count(t.get("output"), f"{where}.tokens.output", notes)
    reasoning = token_count(t.get("reasoning"), f"{where}.tokens.reasoning", notes)
    tokens = Tokens(
        token_count(t.get("input"), f"{where}.tokens.input", notes),
        token_count(get_path(t, "cache", "read"), f"{where}.tokens.cache.read", notes),
        token_count(get_path(t, "cache", "write"), f"{where}.tokens.cache.write", notes),
        None if out is None and reasoning is None else (out or 0) + (reasoning or 0),
        usd_amount(data.get("cost"), f"{where}.cost", notes),
    )
    return _qualified(data.get("modelID"), data.get("providerID")), tokens


def copy_opencode_db(job: JobDir, db: tuple[str, ...], folder: Path) -> Path:
    """Copy the `opencode.db` at `db` (and its `-wal` file, if any), each bounded by `MAX_DB_BYTES`, into `folder`;
    the local copy's path. Raises `OSError` when a file cannot be copied."""
    local = folder / "opencode.db"
    job.copy_file(db, local, max_bytes=MAX_DB_BYTES)
    if "opencode.db-wal" in job.listdir(*db[:-1]):
        job.copy_file((*db[:-1], "opencode.db-wal"), folder / "opencode.db-wal", max_bytes=MAX_DB_BYTES)
    return local


@contextmanager
def open_opencode_db(db: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the local database `db` (`mode=ro`, queries only, untrusted schema off, a step
    budget that interrupts a runaway query), closed on exit."""
    steps = 0

    def budget() -> int:
        nonlocal steps
        steps += 1
        return 1 if steps > _STEP_BUDGET else 0

    conn = sqlite3.connect(f"file:{quote(str(db))}?mode=ro", uri=True)
    try:
        conn.set_progress_handler(budget, 1000)
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA trusted_schema = OFF")
        yield conn
    finally:
        conn.close()


def row_json(data: Any, where: str) -> Any:
    """The JSON document of one row's `data` cell (text or bytes), parsed bounded; `ValueError` when it is not
    JSON."""
    raw = data if isinstance(data, bytes) else str(data).encode("utf-8", errors="replace")
    return parse_json_bounded(raw, where)


def _query_rows(db: Path) -> list[tuple[Any, Any]]:
    with open_opencode_db(db) as conn:
        return conn.execute(
            "SELECT id, CASE WHEN length(CAST(data AS BLOB)) <= ? THEN data END FROM message LIMIT ?",
            (MAX_ROW_BYTES, MAX_ROWS + 1),
        ).fetchall()


def opencode_totals(
    job: JobDir, db: tuple[str, ...], notes: list[str]
) -> tuple[Tokens, dict[str, Tokens]] | None:
    """Summed assistant rows of one `opencode.db` (module docstring); None when it has none or is unreadable."""
    where = "/".join(db)
    with tempfile.TemporaryDirectory(prefix="avb-opencode-") as tmp:
        try:
            local = copy_opencode_db(job, db, Path(tmp))
        except OSError as exc:
            notes.append(f"{where}: not read ({str(exc)[:200]})")
            return None
        try:
            rows = _query_rows(local)
        except sqlite3.Error as exc:
            notes.append(f"{where}: not a readable OpenCode database ({str(exc)[:200]})")
            return None
    if len(rows) > MAX_ROWS:  # a sum over part of the rows would undercount: not made
        notes.append(f"{where}: more than {MAX_ROWS} messages; its usage is not summed")
        return None
    by_model: dict[str, list[Tokens]] = {}
    for rid, data in rows:
        w = f"{where}: message {str(rid)[:60]!r}"
        if data is None:
            notes.append(f"{w}: data missing or over {MAX_ROW_BYTES} bytes; ignored")
            continue
        try:
            row = opencode_row(row_json(data, w), w, notes)
        except ValueError as exc:
            notes.append(f"{str(exc)[:200]}; ignored")
            continue
        if row is not None:
            _add(by_model, row[0], row[1], notes, where)
    return _totals(by_model)


def openclaw_line(obj: Any, where: str, notes: list[str]) -> tuple[Any, Tokens] | None:
    """(model, tokens) of one session line, or None when it is not an assistant message with usage."""
    msg = obj.get("message") if isinstance(obj, dict) and obj.get("type") == "message" else None
    u = msg.get("usage") if isinstance(msg, dict) and msg.get("role") == "assistant" else None
    if not isinstance(msg, dict) or not isinstance(u, dict):
        return None
    tokens = Tokens(
        token_count(u.get("input"), f"{where}: usage.input", notes),
        token_count(u.get("cacheRead"), f"{where}: usage.cacheRead", notes),
        token_count(u.get("cacheWrite"), f"{where}: usage.cacheWrite", notes),
        token_count(u.get("output"), f"{where}: usage.output", notes),
        usd_amount(get_path(u, "cost", "total"), f"{where}: usage.cost.total", notes),
    )
    return _qualified(msg.get("model"), msg.get("provider")), tokens


def session_lines(job: JobDir, parts: tuple[str, ...], notes: list[str]) -> Iterator[tuple[int, str]] | None:
    """(line number, line) of a whole session file, streamed; None (with a note) when it is unreadable or over
    `MAX_SESSION_BYTES`: a sum over part of a session would undercount, so it is not made. A line over
    `MAX_LINE_BYTES` is skipped with a note."""
    where = "/".join(parts)
    try:
        fd, size = job.open_file(*parts)
    except OSError as exc:
        notes.append(f"{where}: not read ({str(exc)[:200]})")
        return None
    if size > MAX_SESSION_BYTES:
        os.close(fd)
        notes.append(f"{where}: {size} bytes, over the {MAX_SESSION_BYTES} byte cap; its usage is not summed")
        return None

    def lines() -> Iterator[tuple[int, str]]:
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as fh:
            n = 0
            for raw in _bounded_lines(fh, MAX_SESSION_BYTES):
                n += 1
                if raw is None:
                    notes.append(f"{where}:{n}: line over {MAX_LINE_BYTES} bytes; skipped")
                    continue
                yield n, raw.decode("utf-8", errors="replace")

    return lines()


def _bounded_lines(fh: BinaryIO, budget: int) -> Iterator[bytes | None]:
    """Lines of a binary stream (None for one over `MAX_LINE_BYTES`), reading at most `budget` bytes."""
    buf = b""
    skipping = False
    read = 0
    while read < budget and (block := fh.read(min(1 << 20, budget - read))):
        read += len(block)
        buf += block
        start = 0
        while (i := buf.find(b"\n", start)) >= 0:
            line, start = buf[start:i], i + 1
            if skipping:
                skipping = False
                continue
            yield line if len(line) <= MAX_LINE_BYTES else None
        buf = buf[start:]
        if len(buf) > MAX_LINE_BYTES:
            if not skipping:
                yield None
            skipping, buf = True, b""
    if buf and not skipping:
        yield buf if len(buf) <= MAX_LINE_BYTES else None


def openclaw_totals(
    job: JobDir, files: list[tuple[str, ...]], notes: list[str]
) -> tuple[Tokens, dict[str, Tokens]] | None:
    """Summed assistant usage of the whole session files (module docstring); None when no line has usage, or
    when a file cannot be read whole (a partial sum would undercount)."""
    by_model: dict[str, list[Tokens]] = {}
    for parts in files:
        where = "/".join(parts)
        stream = session_lines(job, parts, notes)
        if stream is None:
            return None
        for n, line in stream:
            line = line.strip()
            if not (line.startswith("{") and '"assistant"' in line and '"usage"' in line):
                continue
            try:
                obj = parse_json_bounded(line.encode("utf-8", errors="replace"), f"{where}:{n}")
            except ValueError:
                notes.append(f"{where}:{n}: not a JSON line; skipped")
                continue
            row = openclaw_line(obj, f"{where}:{n}", notes)
            if row is not None:
                _add(by_model, row[0], row[1], notes, where)
    return _totals(by_model)


def store_totals(job: JobDir, trial: str, notes: list[str]) -> tuple[str, Tokens, dict[str, Tokens]] | None:
    """(source, totals, per model) from an OpenCode database or OpenClaw session files of the trial, if any."""
    dbs, sessions = find_stores(job, trial)
    for db in dbs:
        found = opencode_totals(job, db, notes)
        if found:
            return "opencode opencode.db assistant rows", found[0], found[1]
    if sessions:
        found = openclaw_totals(job, sessions, notes)
        if found:
            return "openclaw session assistant usage", found[0], found[1]
    return None
