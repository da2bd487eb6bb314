"""What an MP4/MOV file's sample tables declare, read without libavformat, to refuse tables that lie about size.

libavformat builds an index entry for every sample the `stsz` box declares before a single packet is read. A
1.5 kB file whose `stsz` declares 30 M samples of constant size makes every open allocate hundreds of MB (several
opens of one output drove one repair task to 2.3-2.4 GB). Samples with a constant size of `s` bytes occupy
`s * count` bytes of the file, so a track declaring more sample bytes than the file holds is a lie; the check
reads only box headers and the three counters of each `stsz`/`stz2`, through the pinned descriptor when the file
is pinned, at most `MAX_BOXES` boxes.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agenticvbench.fsutil import open_regular
from agenticvbench.runs.pinned import pinned

MAX_BOXES = 100_000
_CONTAINERS = frozenset({b"moov", b"trak", b"mdia", b"minf", b"stbl"})
_ISO_SUFFIXES = frozenset({".mp4", ".mov", ".m4v", ".m4a", ".3gp"})


@dataclass(frozen=True)
class TrackTable:
    """One track's `stsz`: the constant sample size (0 when each sample has its own entry) and the count."""

    sample_size: int
    sample_count: int

    @property
    def declared_bytes(self) -> int:
        """Bytes the samples must occupy at least (each sample is at least one byte)."""
        return self.sample_count * max(self.sample_size, 1)


def _boxes(fd: int, start: int, end: int, budget: list[int]) -> Iterator[tuple[bytes, int, int]]:
    off = start
    while off + 8 <= end and budget[0] > 0:
        budget[0] -= 1
        head = os.pread(fd, 16, off)
        if len(head) < 8:
            return
        size, kind = struct.unpack(">I4s", head[:8])
        body = off + 8
        if size == 1:
            if len(head) < 16:
                return
            size = struct.unpack(">Q", head[8:16])[0]
            body = off + 16
        elif size == 0:
            size = end - off
        if size < body - off or off + size > end:
            return  # a broken box: libavformat reports it in its own words
        yield kind, body, off + size
        off += size


def sample_tables(path: str | Path) -> list[TrackTable]:
    """The `stsz`/`stz2` of every track of an ISO-BMFF file ([] for other formats or when unreadable)."""
    if Path(path).suffix.lower() not in _ISO_SUFFIXES:
        return []
    pin = pinned(path)
    if pin is not None:
        return _tables(pin.fd, pin.size)
    try:
        with open_regular(path) as fh:
            return _tables(fh.fileno(), os.fstat(fh.fileno()).st_size)
    except OSError:
        return []


def _tables(fd: int, size: int) -> list[TrackTable]:
    out: list[TrackTable] = []
    budget = [MAX_BOXES]
    stack = [(0, size)]
    while stack:
        start, end = stack.pop()
        for kind, body, box_end in _boxes(fd, start, end, budget):
            if kind in _CONTAINERS:
                stack.append((body, box_end))
            elif kind in (b"stsz", b"stz2"):
                raw = os.pread(fd, 12, body)
                if len(raw) == 12:
                    _flags, field, count = struct.unpack(">III", raw)
                    out.append(TrackTable(field if kind == b"stsz" else 0, count))
    return out


def lying_table(path: str | Path, file_size: int) -> str:
    """Why the file's sample tables cannot be true ('' when they can): a track declaring more sample bytes than
    the whole file holds."""
    for t in sample_tables(path):
        if t.declared_bytes > file_size:
            return (
                f"a sample table declares {t.sample_count} samples"
                + (f" of {t.sample_size} bytes" if t.sample_size else "")
                + f" in a {file_size}-byte file"
            )
    return ""
