"""Frame-sized buffers are reused from the heap even when a launcher set glibc malloc thresholds."""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

FRAME = 1920 * 1080 * 3  # one 1080p BGR frame

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc malloc tuning is Linux-only"
)


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def mmapped_while_holding_a_frame(rounds: int = 3) -> list[int]:
    """For each round: bytes glibc holds in mmap-ed chunks while one frame-sized array is alive.

    A frame served by `mmap` costs fresh zeroed pages on every allocation; one served from the heap reuses memory.
    """
    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = _MallInfo2
    out = []
    for _ in range(rounds):
        frame = np.ones(FRAME, np.uint8)
        out.append(int(libc.mallinfo2().hblkhd))
        del frame
    return out


PROBE = textwrap.dedent("""
    import json
    from tests.scoring.test_allocator import mmapped_while_holding_a_frame
    from agenticvbench.scoring.allocator import reuse_frame_buffers

    raw = mmapped_while_holding_a_frame()
    applied = reuse_frame_buffers()
    print(json.dumps({"raw": raw, "applied": applied, "tuned": mmapped_while_holding_a_frame()}))
""")


def test_trim_threshold_from_the_environment_no_longer_maps_every_frame() -> None:
    """Why: Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536. That freezes glibc's mmap threshold at
    128 KiB, so every decoded frame was a fresh mmap (zeroed pages each time; a repair task took 2.3x as long,
    mostly system time). After `reuse_frame_buffers` frames come from the heap."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {"MALLOC_TRIM_THRESHOLD_": "65536", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
        cwd=root,
    )
    got = json.loads(out.stdout)
    assert got["applied"] is True
    assert all(b >= FRAME for b in got["raw"])  # the problem is real: every round maps the frame
    assert got["tuned"][-1] < FRAME  # and gone
