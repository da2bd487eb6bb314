"""Reading a Harbor job directory as hostile input: no symlink is followed, nothing but regular files is opened,
and every read is bounded. JSON goes through the package's bounded parser (`fsutil.parse_json_bounded`).

Every path is opened component by component from an open directory with `O_NOFOLLOW`, so a symlink anywhere
under the job directory (to `/etc`, to another job) is refused instead of followed; a FIFO or device is refused
without blocking (`O_NONBLOCK`, then `fstat`); JSON files are read up to a byte limit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.fsutil import file_kind, parse_json_bounded

MAX_JSON_BYTES = 16 * 1024 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)


class JobDir:
    """A job directory opened once; paths below it are given as relative parts."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.fd = os.open(self.path, _DIR_FLAGS)
        except OSError as exc:
            raise SubmissionError(f"{self.path}: not a readable job directory ({exc.strerror})") from None

    def close(self) -> None:
        """Close the directory handle."""
        os.close(self.fd)

    def __enter__(self) -> JobDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open_dir(self, parts: tuple[str, ...]) -> int:
        fd = os.dup(self.fd)
        try:
            for part in parts:
                if part in ("", ".", "..") or "/" in part:
                    raise OSError(f"refusing path component {part!r}")
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = nxt
            return fd
        except BaseException:
            os.close(fd)
            raise

    def listdir(self, *parts: str) -> list[str]:
        """Names in a subfolder (empty when it is missing, not a folder, or a symlink)."""
        try:
            fd = self._open_dir(parts)
        except OSError:
            return []
        try:
            return sorted(os.listdir(fd))
        finally:
            os.close(fd)

    def is_dir(self, *parts: str) -> bool:
        """True when the path is a real folder (no symlink on the way)."""
        try:
            os.close(self._open_dir(parts))
            return True
        except OSError:
            return False

    def open_file(self, *parts: str) -> tuple[int, int]:
        """(fd, size) of a regular file; `OSError` for a symlink, FIFO, device, folder or missing file."""
        dfd = self._open_dir(parts[:-1])
        try:
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=dfd)
        finally:
            os.close(dfd)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise OSError(f"{'/'.join(parts)} is a {file_kind(st.st_mode)}, not a regular file")
        return fd, st.st_size

    def stat(self, *parts: str) -> os.stat_result:
        """The status of a path below the job, a symlink's own (never its target's); `OSError` when a folder on
        the way is missing or a symlink."""
        if not parts or parts[-1] in ("", ".", "..") or "/" in parts[-1]:
            raise OSError(f"refusing path {'/'.join(parts)!r}")
        dfd = self._open_dir(parts[:-1])
        try:
            return os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
        finally:
            os.close(dfd)

    def read_bytes(self, *parts: str, max_bytes: int = MAX_JSON_BYTES) -> bytes:
        """The bytes of a regular file, at most `max_bytes`; `SubmissionError` naming the file when it is unsafe
        or too big."""
        shown = self.path.joinpath(*parts)
        try:
            fd, size = self.open_file(*parts)
        except OSError as exc:
            raise SubmissionError(f"{shown}: cannot read ({exc.strerror or exc})") from None
        try:
            if size > max_bytes:
                raise SubmissionError(f"{shown}: {size} bytes, over the {max_bytes} byte limit")
            with os.fdopen(os.dup(fd), "rb") as fh:
                raw = fh.read(max_bytes + 1)
        finally:
            os.close(fd)
        if len(raw) > max_bytes:
            raise SubmissionError(f"{shown}: more than {max_bytes} bytes, over the limit")
        return raw

    def read_json(self, *parts: str, max_bytes: int | None = None) -> Any:
        """Parse a JSON file (up to `max_bytes`, default `MAX_JSON_BYTES`); `SubmissionError` naming the file
        when it is unsafe, too big or not JSON."""
        raw = self.read_bytes(*parts, max_bytes=MAX_JSON_BYTES if max_bytes is None else max_bytes)
        try:
            return parse_json_bounded(raw, str(self.path.joinpath(*parts)))
        except ValueError as exc:
            raise SubmissionError(str(exc)) from None

    def copy_file(self, parts: tuple[str, ...], dest: Path, *, max_bytes: int) -> None:
        """Copy a regular file out of the job (bounded); `OSError` when it is unsafe or too big."""
        fd, size = self.open_file(*parts)
        try:
            if size > max_bytes:
                raise OSError(f"{'/'.join(parts)}: {size} bytes, over the {max_bytes} byte limit")
            os.set_blocking(fd, True)
            tmp = dest.with_name(f".{dest.name}.partial")
            copied = 0
            with os.fdopen(os.dup(fd), "rb") as src, open(tmp, "wb") as out:
                while block := src.read(1 << 20):
                    copied += len(block)
                    if copied > max_bytes:
                        raise OSError(f"{'/'.join(parts)}: grew past the {max_bytes} byte limit")
                    out.write(block)
            os.replace(tmp, dest)
        except BaseException:
            dest.with_name(f".{dest.name}.partial").unlink(missing_ok=True)
            raise
        finally:
            os.close(fd)
