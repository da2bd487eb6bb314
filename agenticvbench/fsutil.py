"""The one atomic writer, the one file hasher, and the one bounded reader of untrusted files."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache, wraps
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

JSON_MAX_DEPTH = 64
_WINDOW = 1 << 20  # bytes of a document `json_values` looks at at once
T = TypeVar("T")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write `text` to `path` so readers see either the old file or the whole new one, never a torn file.

    The file gets the usual permissions (0666 minus the umask), not the 0600 of a temporary file, so results
    written by one user or cluster worker stay readable by the others. When the write fails (a full disk:
    ENOSPC, a quota: EDQUOT, EIO, ...) the temporary file is removed and an `OSError` with the same errno is
    raised, on one line and naming `path` (the old file, if any, is left as it was).
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        # a lone surrogate is written as \ud800; the descriptor is the file object's from here on (closed by it)
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
            os.fchmod(fd, _FILE_MODE)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:  # already gone, or the disk refuses even that: the write error is the one to report
            pass
        if isinstance(exc, OSError):
            raise _write_failed(p, exc) from exc
        raise


def _write_failed(path: Path, exc: OSError) -> OSError:
    """`exc` as one line naming the file that could not be written (same errno, so the same `OSError`
    subclass)."""
    if exc.errno is not None:
        why = exc.strerror or os.strerror(exc.errno)
        return OSError(exc.errno, why, str(path))
    return OSError(f"{path}: not written ({' '.join(str(exc).split())})")


def atomic_write_json(path: str | Path, obj: Any) -> None:
    """Atomically write `obj` as indented, key-sorted JSON (NaN is refused: results must be valid JSON)."""
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, allow_nan=False, default=str) + "\n")


class TooLargeError(ValueError):
    """A file is over the byte cap of a bounded read (`read_capped`, `file_sha256(max_bytes=...)`)."""


def is_inside(path: str, folder: str) -> bool:
    """True when `path` is `folder` or lies below it (both already resolved: `os.path.realpath`)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def escape_reason(path: str | Path, folder: str | Path, what: str = "the folder") -> str:
    """Why `path` may not be read as part of `folder` (it resolves outside it, e.g. through a symlink), or "" when
    it stays inside or does not exist; `what` names the folder in the message. For agent-written folders, whose
    links may point anywhere."""
    p = Path(path)
    if not os.path.lexists(p):
        return ""
    real = os.path.realpath(p)
    if is_inside(real, os.path.realpath(folder)):
        return ""
    link = f"a symlink to {os.readlink(p)}, which " if os.path.islink(p) else ""
    return f"{p}: {link}resolves to {real}, outside {what} {folder}"


def sorted_entries(folder: str | Path) -> list[os.DirEntry[str]]:
    """The entries of `folder` sorted by name ([] when it cannot be listed)."""
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def file_kind(mode: int) -> str:
    """What a `st_mode` describes, in words: 'regular file', 'directory', 'FIFO', 'character device', ..."""
    for test, name in (
        (stat.S_ISREG, "regular file"),
        (stat.S_ISDIR, "directory"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISLNK, "symlink"),
    ):
        if test(mode):
            return name
    return "special file"


@contextmanager
def open_regular(path: str | Path) -> Iterator[BinaryIO]:
    """Open `path` for binary reading only if it is a regular file.

    The open is non-blocking (a FIFO put in place of a file never hangs the reader) and the type is checked on the
    open descriptor, so a file swapped for a FIFO or device after an earlier `stat` is refused too (`OSError`).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"{path}: is a {file_kind(mode)}, not a regular file")
        os.set_blocking(fd, True)
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh


def read_capped(path: str | Path, max_bytes: int) -> bytes:
    """The bytes of a regular file, never reading more than `max_bytes` + 1 of them.

    Raises `TooLargeError` when the file is larger than `max_bytes` (checked on the open descriptor before
    reading, and again by the read itself, so a file that grows or lies about its size is still capped).
    """
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > max_bytes:
            raise TooLargeError(f"{path}: {size} bytes, over the {max_bytes} byte limit")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise TooLargeError(f"{path}: more than {max_bytes} bytes, over the limit")
    return data


def file_sha256(path: str | Path, *, chunk: int = 1 << 20, max_bytes: int | None = None) -> str:
    """Hex SHA-256 of a regular file, streamed; with `max_bytes`, a larger file raises `TooLargeError`."""
    h = hashlib.sha256()
    seen = 0
    with open_regular(path) as fh:
        if max_bytes is not None and (size := os.fstat(fh.fileno()).st_size) > max_bytes:
            raise TooLargeError(f"{path}: {size} bytes, over the {max_bytes} byte limit")
        while block := fh.read(chunk):
            seen += len(block)
            if max_bytes is not None and seen > max_bytes:
                raise TooLargeError(f"{path}: more than {max_bytes} bytes, over the limit")
            h.update(block)
    return h.hexdigest()


def per_file(maxsize: int) -> Callable[[Callable[[Path], T]], Callable[[str | os.PathLike[str]], T]]:
    """Cache a function of a trusted file once per process per file identity: its real path, size, mtime and
    inode (a file rewritten or replaced in place is read again). `OSError` when it cannot be stat'ed."""

    def wrap(fn: Callable[[Path], T]) -> Callable[[str | os.PathLike[str]], T]:
        @lru_cache(maxsize=maxsize)
        def cached(real: str, size: int, mtime_ns: int, ino: int) -> T:
            return fn(Path(real))

        @wraps(fn)
        def call(path: str | os.PathLike[str]) -> T:
            real = os.path.realpath(path)
            st = os.stat(real)
            return cached(real, st.st_size, st.st_mtime_ns, st.st_ino)

        return call

    return wrap


def text_sha256(text: str) -> str:
    """Hex SHA-256 of a string (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def json_depth(obj: Any, limit: int) -> int:
    """Nesting depth of a parsed JSON value, stopping early past `limit` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    deepest = 0
    while stack:
        value, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        if isinstance(value, dict):
            stack.extend((v, d + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, d + 1) for v in value)
    return deepest


def json_values(raw: bytes | bytearray, limit: int) -> int:
    """How many JSON values `raw` holds, counted before it is parsed: its `{`, `[` and `,` outside strings (each
    container, and each element after a container's first). Exact when more than `limit`, else at most
    `limit` (the first pass counts them in the strings too: one C-speed pass for most documents). The exact
    pass drops the strings' escapes, then walks 1 MiB windows, so its time and memory stay linear."""
    count = raw.count(b"{") + raw.count(b"[") + raw.count(b",")
    if count <= limit:
        return count
    bare = raw.replace(b"\\\\", b"").replace(b'\\"', b"") if b"\\" in raw else raw
    count = pos = 0
    while pos < len(bare):
        end = min(pos + _WINDOW, len(bare))
        parts = bare[pos:end].split(b'"')  # the window opens outside a string: even parts are outside
        outside = b"".join(parts[::2])
        count += outside.count(b"{") + outside.count(b"[") + outside.count(b",")
        if len(parts) % 2:
            pos = end
        else:  # the window ends inside a string: the next window opens after it
            close = bare.find(b'"', end)
            pos = len(bare) if close < 0 else close + 1
    return count


def parse_json_bounded(
    raw: bytes | bytearray, where: str, *, max_depth: int = JSON_MAX_DEPTH, max_values: int | None = None
) -> Any:
    """Parse untrusted JSON bytes; raises ValueError with a one-line reason naming `where` for non-UTF-8 text,
    invalid JSON, nesting deeper than `max_depth`, more than `max_values` values (`json_values`, checked
    before parsing: a few bytes per value become some 60 of Python objects) or an integer too long to convert."""
    if max_values is not None and (values := json_values(raw, max_values)) > max_values:
        raise ValueError(f"{where}: {values} JSON values, over the cap of {max_values}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError(f"{where}: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, or an integer past Python's 4300-digit conversion limit
        raise ValueError(f"{where}: invalid JSON ({str(exc)[:200]})") from None
    if json_depth(data, max_depth) > max_depth:
        raise ValueError(f"{where}: nested deeper than {max_depth} levels")
    return data
