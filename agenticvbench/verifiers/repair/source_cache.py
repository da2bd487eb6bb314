"""Source cache of the edit rubric: small per-frame source features and the source's per-chunk PCM.

Keyed by the source file's sha256 (`SourceCache`): per source frame the dHash and (for the frames that were lag
candidates) the Laplacian variance, and each chunk's source audio as s16 PCM. Pixels are deliberately not cached:
measured on the golden 640x360 clip, reloading a compressed gray+Lab frame costs ~1.7 ms against ~4.3 ms to decode
and convert it, but even synthetic content needs ~67 KB/frame (real footage several times more; ~40 GB for a
3.6-min 1080p60 source), so the cache would dwarf the dataset. dHash + variance are 16 bytes/frame and save
~1.2 ms/frame of source work.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

import av
import cv2
import numpy as np

from agenticvbench.fsutil import file_sha256

if TYPE_CHECKING:  # pragma: no cover
    from agenticvbench.verifiers.repair.features import FrameFeatures

CACHE_VERSION = 4  # 2: source PCM with AAC end padding; 3: exact Laplacian variance; 4: per-chunk audio spans

_SHA_MEMO: dict[tuple[str, int, int], str] = {}


def _source_sha256(path: Path) -> str:
    """sha256 of the source, memoised per (path, size, mtime) so a batch hashes each source once."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _SHA_MEMO:
        _SHA_MEMO[key] = file_sha256(path)
    return _SHA_MEMO[key]


class SourceCache:
    """Small per-frame source features (dHash, Laplacian variance) and source PCM, keyed by file sha256.

    Files live in `cache_dir/repair-edit-v<CACHE_VERSION>-cv<opencv version>-av<PyAV version>/<sha256>/`:
    `frames.npz` (dhash uint64 with its `known` mask; lapvar float64, NaN where unknown: only lag candidates
    need it, so it is computed for those alone) and `audio_spans.npz` (each chunk's PCM as the official
    extraction returns it, keyed by `edit_audio.span_key`). Every write goes to a temp name and is moved into
    place with `os.replace`, so concurrent scorers see the old or the new file, never a torn one. Without
    `cache_dir` nothing is stored. The cache is best-effort: a write that fails (unwritable directory, full
    disk) is noted in `write_errors` and never raises, so it cannot change a score.
    """

    def __init__(self, cache_dir: Path | None, source: Path) -> None:
        self.root: Path | None = None
        self._dhash = np.zeros(0, np.uint64)
        self._lapvar = np.zeros(0, np.float64)
        self._known = np.zeros(0, bool)
        self._new_dhash: dict[int, int] = {}
        self._new_lapvar: dict[int, float] = {}
        self.hits = 0
        self.write_errors: list[str] = []  # failed writes, for the edit detail (scores are unaffected)
        if cache_dir is None:
            return
        # OpenCV's and PyAV's versions are part of the key: dHash, Laplacian and the decoded audio come from them
        self.root = (
            Path(cache_dir)
            / f"repair-edit-v{CACHE_VERSION}-cv{cv2.__version__}-av{av.__version__}"
            / _source_sha256(source)
        )
        with suppress(Exception):  # no cache yet, or an unreadable one (torn, not a zip): recompute
            with np.load(self.root / "frames.npz") as data:
                dh, lv, kn = data["dhash"], data["lapvar"], data["known"]
            if dh.shape == lv.shape == kn.shape and dh.ndim == 1:
                self._dhash, self._lapvar, self._known = dh, lv, kn

    def lookup(self, index: int) -> tuple[int | None, float | None]:
        """(dhash, lapvar) of source frame `index`; None for what is not cached."""
        if index < self._known.size and self._known[index]:
            self.hits += 1
            lv = float(self._lapvar[index])
            return int(self._dhash[index]), None if np.isnan(lv) else lv
        return None, None

    def record(self, frame: FrameFeatures) -> None:
        """Remember a frame's freshly computed small features for `save` (thread-safe: plain dict stores)."""
        if self.root is None:
            return
        if frame.has_dhash:
            self._new_dhash[frame.index] = frame.dhash
        if frame.has_lapvar:
            self._new_lapvar[frame.index] = frame.lapvar

    @property
    def recorder(self) -> Callable[[FrameFeatures], None] | None:
        """`record` when the cache stores anything, else None (for `FrameFeatures(on_small=...)`)."""
        return self.record if self.root is not None else None

    def save(self) -> None:
        """Merge the recorded features into `frames.npz` (atomically); a no-op when nothing is new."""
        if self.root is None or not (self._new_dhash or self._new_lapvar):
            return
        new_dh, new_lv = dict(self._new_dhash), dict(self._new_lapvar)
        n = max(self._known.size, max([*new_dh, *new_lv]) + 1)
        dh, lv, kn = np.zeros(n, np.uint64), np.full(n, np.nan), np.zeros(n, bool)
        m = self._known.size
        dh[:m], lv[:m], kn[:m] = self._dhash, self._lapvar, self._known
        for i, h in new_dh.items():
            dh[i], kn[i] = h, True
        for i, v in new_lv.items():
            if kn[i]:  # a Laplacian variance is only stored with its frame's dHash
                lv[i] = v
        self._atomic_save("frames.npz", lambda fh: np.savez(fh, dhash=dh, lapvar=lv, known=kn))
        self._dhash, self._lapvar, self._known = dh, lv, kn  # kept in memory even if not stored
        self._new_dhash, self._new_lapvar = {}, {}

    def load_audio_spans(self) -> dict[str, np.ndarray]:
        """The cached per-chunk source PCM (int16, mono, 48 kHz) by span key; empty when none is cached."""
        if self.root is None:
            return {}
        try:
            with np.load(self.root / "audio_spans.npz") as data:
                spans = {key: data[key] for key in data.files}
        except Exception:  # noqa: BLE001 - unreadable in any way (torn, not a zip, bad member): recompute
            return {}
        return {k: v for k, v in spans.items() if v.dtype == np.int16 and v.ndim == 1}

    def save_audio_spans(self, spans: dict[str, np.ndarray]) -> None:
        """Store the per-chunk source PCM (atomically)."""
        if self.root is not None:
            # numpy's stubs read **spans as possibly `allow_pickle`; the keys are span keys, never that
            self._atomic_save("audio_spans.npz", lambda fh: np.savez(fh, **spans))  # type: ignore[arg-type]

    def _atomic_save(self, name: str, writer) -> None:  # type: ignore[no-untyped-def]
        assert self.root is not None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=self.root)
        except OSError as exc:
            self.write_errors.append(f"source cache {name} not written: {exc}")
            return
        try:
            with os.fdopen(fd, "wb") as fh:
                writer(fh)
            os.replace(tmp, self.root / name)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            self.write_errors.append(f"source cache {name} not written: {exc}")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
