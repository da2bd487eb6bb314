"""Submitted files pinned for one job: each output is opened once, checked and hashed through that descriptor,
and every later reader (PyAV, the ffmpeg binary, the JSON and text readers) reads that same open file.

Why: checking and hashing a file by name and then re-opening it by name lets a process still running in the
agent's sandbox swap the file in between (rename a hard link of the verifier-only source over `fixed.mp4` right
after the hash): the verifier would decode one file and record another's hash, and the result would be reused.

How (`pin_inputs`, called by the engine for the files a verifier declares in `input_files`):

- the real path is opened non-blocking with `O_NOFOLLOW`; on the open descriptor the kernel's own path of the
  file (`/proc/self/fd/N`) must lie inside the task folder, the type must be a regular file and the size under
  the cap of its kind, else `InputRejected` (the task is `malformed`);
- the SHA-256 is computed from that descriptor; small outputs (`.json`, `.md`, `.txt`) keep their bytes, which
  `read_submitted` hands to the parsers, so they are read exactly once;
- decoders are given `source_for(path)`, the descriptor's `/proc/<pid>/fd/<n>` path (an open of it reaches the
  same inode even after the name is replaced or deleted; the ffmpeg binary and child processes can open it too);
- after scoring, `Pin.drift()` compares the descriptor's size, mtime and ctime, and what the name now points to,
  with what was hashed. A file that changed, was replaced or was removed while it was scored makes the task an
  `error` (never reused), so a failed or raced read is never cached as the file's result.

Without `/proc` (not Linux) decoders fall back to the path; the drift check still runs.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agenticvbench.fsutil import TooLargeError, file_kind, is_inside, read_capped

#: Outputs up to this many bytes whose kind is text or JSON keep their bytes in memory (read once).
KEEP_BYTES_MAX = 5 * 1024 * 1024
_KEEP_SUFFIXES = (".json", ".md", ".txt")
_CHUNK = 1 << 20


class PinError(OSError):
    """A submitted file cannot be pinned (escaped its folder, not a regular file, over its cap, unreadable)."""


@dataclass(kw_only=True)
class Pin:
    """One submitted file, open for the whole job."""

    path: Path
    fd: int
    sha256: str
    size: int
    stamp: tuple[int, int, int, int, int]  # st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns at hash time
    data: bytes | None
    source: str  # what decoders open: /proc/<pid>/fd/<fd>, or the path without /proc

    def drift(self) -> str:
        """'' when the file is as hashed; else why not (replaced or removed by name, or changed in place)."""
        try:
            now = os.stat(self.path)
        except OSError:
            return f"{self.path}: removed while it was scored; rescore once the run has finished writing"
        if (now.st_dev, now.st_ino) != self.stamp[:2]:
            return f"{self.path}: replaced by another file while it was scored; rescore once the run has finished"
        st = os.fstat(self.fd)
        if (st.st_size, st.st_mtime_ns, st.st_ctime_ns) != self.stamp[2:]:
            what = f"{self.stamp[2]} -> {st.st_size} bytes" if st.st_size != self.stamp[2] else "rewritten"
            return f"{self.path}: changed while it was scored ({what}); rescore once the run has finished writing"
        return ""


_PINS: dict[str, Pin] = {}
_LOCK = threading.Lock()


def _key(path: str | os.PathLike[str]) -> str:
    return os.path.abspath(os.fspath(path))


def pinned(path: str | os.PathLike[str]) -> Pin | None:
    """The pin of `path` in this process, or None (not a submitted input of a job being scored)."""
    return _PINS.get(_key(path))


def source_for(path: str | os.PathLike[str]) -> str:
    """What a decoder should open for `path`: its pinned descriptor when pinned, else the path itself."""
    pin = _PINS.get(_key(path))
    return pin.source if pin is not None else os.fspath(path)


def shown_as(text: str) -> str:
    """`text` (a decoder's message) with every pinned descriptor path replaced by the file's own path."""
    for pin in list(_PINS.values()):
        text = text.replace(pin.source, str(pin.path))
    return text


def read_submitted(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of a submitted text/JSON output: the pinned bytes (read once, when hashed) or a bounded read."""
    pin = _PINS.get(_key(path))
    if pin is not None and pin.data is not None:
        if len(pin.data) > max_bytes:
            raise TooLargeError(f"{path}: {len(pin.data)} bytes, over the {max_bytes} byte limit")
        return pin.data
    return read_capped(os.fspath(path), max_bytes)


def _proc_source(fd: int) -> str | None:
    src = f"/proc/{os.getpid()}/fd/{fd}"
    return src if os.path.exists(src) else None


def _open_checked(path: Path, root: Path, cap: int) -> tuple[int, os.stat_result]:
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(os.path.realpath(path), flags)
    except OSError as exc:
        raise PinError(f"{path}: cannot be opened as a submitted file ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise PinError(f"{path}: is a {file_kind(st.st_mode)}, not a regular file")
        try:
            opened = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            opened = os.path.realpath(path)
        if not is_inside(opened, os.path.realpath(root)):
            raise PinError(f"{path}: resolves to {opened}, outside the task folder {root}")
        if st.st_size > cap:
            raise PinError(f"{path}: {st.st_size} bytes, over the {cap} byte limit for this kind of output")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _hash_fd(path: Path, fd: int, cap: int, keep: bool) -> tuple[str, bytes | None]:
    h = hashlib.sha256()
    parts: list[bytes] = []
    offset = 0
    while block := os.pread(fd, _CHUNK, offset):
        offset += len(block)
        if offset > cap:
            raise PinError(f"{path}: more than {cap} bytes, over the limit (it grew while it was read)")
        h.update(block)
        if keep:
            parts.append(block)
    return h.hexdigest(), (b"".join(parts) if keep else None)


def pin_file(path: Path, root: Path, cap: int) -> Pin:
    """Open, check and hash one submitted file (see the module docstring); raises `PinError`."""
    fd, st = _open_checked(path, root, cap)
    try:
        keep = path.suffix.lower() in _KEEP_SUFFIXES and cap <= KEEP_BYTES_MAX
        digest, data = _hash_fd(path, fd, cap, keep)
    except BaseException:
        os.close(fd)
        raise
    return Pin(
        path=Path(path),
        fd=fd,
        sha256=digest,
        size=st.st_size,
        stamp=(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns),
        data=data,
        source=_proc_source(fd) or str(path),
    )


@contextmanager
def reopened(path: Path, root: Path, cap: int, stamp: tuple[int, int, int, int, int]) -> Iterator[str]:
    """Open a file checked earlier (`pin_file`: `stamp` is its `Pin.stamp`) again, by the same rules, and yield a
    path readers can open for that descriptor (`/proc/<pid>/fd/<n>`, or the path without /proc); raises `PinError`
    when the name now reaches another file or the file changed (size, mtime or ctime) since it was checked. What
    `avb view` serves, copies and decodes is thereby the file scoring hashed, not whatever the name holds now."""
    fd, st = _open_checked(path, root, cap)
    try:
        if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) != stamp:
            raise PinError(f"{path.name}: changed since it was checked; rescore the run to look at it")
        yield _proc_source(fd) or str(path)
    finally:
        os.close(fd)


@contextmanager
def pin_inputs(paths: Iterable[Path], root: Path, cap_of: Callable[[str], int]) -> Iterator[dict[Path, Pin]]:
    """Pin every file in `paths` (submitted files inside the task folder `root`) for the duration of the block.

    Yields path -> `Pin`; raises `PinError` naming the first file that cannot be pinned (nothing stays open).
    """
    pins: dict[Path, Pin] = {}
    try:
        for p in paths:
            pins[p] = pin_file(p, root, cap_of(p.name))
        with _LOCK:
            for p, pin in pins.items():
                _PINS[_key(p)] = pin
        yield pins
    finally:
        with _LOCK:
            for p, pin in pins.items():
                if _PINS.get(_key(p)) is pin:
                    del _PINS[_key(p)]
        for pin in pins.values():
            os.close(pin.fd)
