"""The identity of the decoding toolchain: the ffmpeg binary (path, size, a SHA-256 of its first and last
MiB, version line) and PyAV with the libav libraries it links. It is part of every result's fingerprint, so a result computed with one ffmpeg or
PyAV is never reused after either changes (a fixed binary rescoring what a broken one measured)."""

from __future__ import annotations

import hashlib
import os
import subprocess
from functools import lru_cache
from typing import Any

from agenticvbench.errors import ToolError

#: Bytes hashed at each end of the binary: a full hash of the 170 MB bundled ffmpeg took 1.6 s per process.
EDGE_BYTES = 1 << 20


def _edges_sha256(path: str, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        h.update(fh.read(EDGE_BYTES))
        if size > 2 * EDGE_BYTES:
            fh.seek(size - EDGE_BYTES)
        h.update(fh.read(EDGE_BYTES))
    return h.hexdigest()


@lru_cache(maxsize=8)
def _binary(path: str, size: int, mtime_ns: int) -> dict[str, Any]:
    try:
        out = subprocess.run([path, "-hide_banner", "-version"], capture_output=True, timeout=60, check=False)
        version = (
            out.stdout.decode("utf-8", "replace").splitlines()[0] if out.stdout else f"exit {out.returncode}"
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        version = f"not runnable: {exc}"
    return {"path": path, "size": size, "edges_sha256": _edges_sha256(path, size), "version": version}


def ffmpeg_identity() -> dict[str, Any]:
    """The ffmpeg binary's identity (read once per process per path, size and mtime; the mtime itself is left out
    so machines of one cluster agree), or why there is none."""
    from agenticvbench.media.ffmpeg import ffmpeg_exe

    try:
        path = os.path.realpath(ffmpeg_exe())
        st = os.stat(path)
    except (ToolError, OSError) as exc:
        return {"missing": str(exc)}
    return _binary(path, st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=1)
def pyav_identity() -> dict[str, Any]:
    """PyAV's version and the libav library versions it was built with."""
    import av

    return {"pyav": av.__version__, "libav": {k: list(v) for k, v in sorted(av.library_versions.items())}}


def toolchain_identity() -> dict[str, Any]:
    """ffmpeg and PyAV identity, for fingerprints and provenance."""
    return {"ffmpeg": ffmpeg_identity(), **pyav_identity()}
