"""Bounded unpacking of an Inspect `.eval` log (a zip archive) before inspect_ai reads it.

inspect_ai's own zip reader decompresses a member whole and trusts the archive: a declared size is not enforced,
so a member that inflates to gigabytes would be inflated. An `.eval` in a run folder is hostile input, so it is
opened here first, from the file descriptor `JobDir` gave (no symlink, a regular file), and checked:

- the end-of-central-directory record (zip64 too): a central directory of at most `MAX_DIRECTORY_BYTES`, so a
  directory of millions of entries is refused before it is parsed; then at most `MAX_ENTRIES` entries;
- every entry's declared uncompressed size at most `MAX_MEMBER_BYTES`, and their total at most
  `MAX_UNPACKED_BYTES`;
- each member read: stored, deflate or zstd (what Inspect writes), inflated by a streaming decompressor that
  stops as soon as the output passes the declared size (a zip bomb, refused), its CRC-32 checked.

The members a task needs are read here, so checked (`read_member`); the reader hands inspect_ai a private archive
of its own making, so inspect_ai never opens the submitted file. Each refusal is an `UnsafeArchive` whose text
says what was wrong, for the reader's one-line note.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, cast

MAX_ENTRIES = 20_000
MAX_DIRECTORY_BYTES = 8 * 1024 * 1024
MAX_MEMBER_BYTES = 128 * 1024 * 1024
MAX_UNPACKED_BYTES = 1024 * 1024 * 1024
ZSTD = 93  # the zip method number of Zstandard (Inspect's default compression)
_METHODS = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZSTD})
_CHUNK = 1 << 20
_EOCD = struct.Struct("<4s4H2LH")
_LOCATOR = struct.Struct("<4sLQL")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_LOCAL = struct.Struct("<4s5H3L2H")


class UnsafeArchive(ValueError):
    """The archive is refused: not a zip, over a cap, or a member that is not what its header says."""


def _directory(fh: IO[bytes], size: int) -> tuple[int, int]:
    """(entries, central directory bytes) from the end-of-central-directory record (zip64 when it says so)."""
    tail_len = min(size, _EOCD.size + 0xFFFF)
    fh.seek(size - tail_len)
    tail = fh.read(tail_len)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _EOCD.size:
        raise UnsafeArchive("not a zip archive (no end-of-central-directory record)")
    _, _, _, _, entries, cd_size, _, _ = _EOCD.unpack_from(tail, at)
    if entries == 0xFFFF or cd_size == 0xFFFFFFFF:
        pos = size - tail_len + at - _LOCATOR.size
        if pos < 0:
            raise UnsafeArchive("a zip64 archive without its locator")
        fh.seek(pos)
        sig, _, offset, _ = _LOCATOR.unpack(fh.read(_LOCATOR.size))
        if sig != b"PK\x06\x07" or offset + _EOCD64.size > size:
            raise UnsafeArchive("a zip64 archive without its locator")
        fh.seek(offset)
        record = fh.read(_EOCD64.size)
        if len(record) < _EOCD64.size or record[:4] != b"PK\x06\x06":
            raise UnsafeArchive("a zip64 archive without its end record")
        entries, cd_size = _EOCD64.unpack(record)[7:9]
    return entries, cd_size


def entries(fh: IO[bytes], size: int) -> list[zipfile.ZipInfo]:
    """The archive's entries, every cap of the module docstring checked; `UnsafeArchive` when one fails."""
    count, cd_size = _directory(fh, size)
    if count > MAX_ENTRIES or cd_size > MAX_DIRECTORY_BYTES:
        raise UnsafeArchive(
            f"{count} entries in a {cd_size} byte directory, over the cap ({MAX_ENTRIES} entries, "
            f"{MAX_DIRECTORY_BYTES} bytes)"
        )
    fh.seek(0)
    try:
        infos = zipfile.ZipFile(fh).infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise UnsafeArchive(f"not a readable zip archive ({type(exc).__name__}: {str(exc)[:120]})") from None
    if len(infos) > MAX_ENTRIES:
        raise UnsafeArchive(f"{len(infos)} entries, over the cap of {MAX_ENTRIES}")
    total = 0
    for info in infos:
        if info.file_size > MAX_MEMBER_BYTES:
            raise UnsafeArchive(
                f"member {info.filename[:80]!r} declares {info.file_size} bytes unpacked, over the cap of "
                f"{MAX_MEMBER_BYTES}"
            )
        total += info.file_size
    if total > MAX_UNPACKED_BYTES:
        raise UnsafeArchive(
            f"{total} bytes unpacked in all, over the cap of {MAX_UNPACKED_BYTES}: a zip bomb"
        )
    return infos


class _Raw:
    """The compressed bytes of one member, read in bounded pieces (a file object for zstandard's reader)."""

    def __init__(self, fh: IO[bytes], start: int, length: int) -> None:
        self.fh, self.pos, self.left = fh, start, length

    def read(self, n: int = -1) -> bytes:
        """At most `n` (or all remaining, at most one chunk) of the member's compressed bytes."""
        n = self.left if n < 0 else min(n, self.left)
        n = min(n, _CHUNK)
        if n <= 0:
            return b""
        self.fh.seek(self.pos)
        data = self.fh.read(n)
        if not data:
            raise UnsafeArchive("the archive ends inside a member")
        self.pos += len(data)
        self.left -= len(data)
        return data


def _raw(fh: IO[bytes], info: zipfile.ZipInfo, size: int) -> _Raw:
    if not 0 <= info.header_offset < size:
        raise UnsafeArchive(f"member {info.filename[:80]!r} lies outside the archive")
    fh.seek(info.header_offset)
    header = fh.read(_LOCAL.size)
    if len(header) < _LOCAL.size or header[:4] != b"PK\x03\x04":
        raise UnsafeArchive(f"member {info.filename[:80]!r} has no local header")
    name_len, extra_len = _LOCAL.unpack(header)[9:11]
    start = info.header_offset + _LOCAL.size + name_len + extra_len
    if start + info.compress_size > size:
        raise UnsafeArchive(f"member {info.filename[:80]!r} lies outside the archive")
    return _Raw(fh, start, info.compress_size)


def _inflated(raw: _Raw, method: int) -> Iterator[bytes]:
    """The member's bytes, at most `_CHUNK` per piece, whatever its compression ratio."""
    if method == zipfile.ZIP_STORED:
        while piece := raw.read(_CHUNK):
            yield piece
    elif method == zipfile.ZIP_DEFLATED:
        inflate = zlib.decompressobj(-15)
        while piece := raw.read(_CHUNK):
            while piece:
                yield inflate.decompress(piece, _CHUNK)
                piece = inflate.unconsumed_tail
        yield inflate.flush()
    else:
        import zstandard  # installed with inspect_ai (its zstd support)

        reader = zstandard.ZstdDecompressor(max_window_size=1 << 27).stream_reader(
            cast(IO[bytes], raw), read_size=_CHUNK, read_across_frames=True
        )
        while piece := reader.read(_CHUNK):
            yield piece


def read_member(fh: IO[bytes], size: int, info: zipfile.ZipInfo) -> bytearray:
    """The bytes of member `info` of the archive `fh` (one of its `entries`), inflated with its declared size
    as the limit and its CRC-32 checked; `UnsafeArchive` when it fails, and `ImportError` for a zstd member
    without `zstandard` (installed with inspect_ai)."""
    name = info.filename[:80]
    if info.compress_type not in _METHODS:
        raise UnsafeArchive(f"member {name!r} uses compression method {info.compress_type}")
    if info.compress_type == ZSTD:
        import zstandard  # noqa: F401
    out = bytearray()
    try:
        for piece in _inflated(_raw(fh, info, size), info.compress_type):
            if len(out) + len(piece) > info.file_size:
                raise UnsafeArchive(
                    f"member {name!r} inflates past its declared {info.file_size} bytes: a zip bomb"
                )
            out += piece
    except UnsafeArchive:
        raise
    except Exception as exc:  # zlib.error, zstandard.ZstdError, OSError: it does not inflate
        raise UnsafeArchive(f"member {name!r} does not inflate ({str(exc)[:120]})") from None
    if len(out) != info.file_size or zlib.crc32(out) != info.CRC:
        raise UnsafeArchive(f"member {name!r} is corrupt (its size or CRC-32 is not what it declares)")
    return out
