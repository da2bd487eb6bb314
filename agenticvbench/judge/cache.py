"""On-disk verdict cache: one small JSON file per (model, template version, item prompt, media digest).

The key is the SHA-256 of those four values. The media digest is the SHA-256 of the video file's content plus the
sampling settings (`JudgeSettings.sampling_key()`), so re-encoding a video, or showing the model more frames,
never reuses an old verdict, while moving or renaming the file does. Only decisive verdicts (pass or fail) are
stored: an unparseable reply or a failed call is retried on the next run instead of being frozen in the cache.

Entries live in a `memo.JsonStore`: written with the package's one atomic writer, so concurrent workers and
interrupted runs never leave a torn entry; a torn, oversized or foreign file reads as a miss.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import file_sha256, text_sha256
from agenticvbench.memo import MISSING, JsonStore

CACHE_SCHEMA = 1


def media_digest(video: str | Path, sampling: dict[str, Any], video_sha256: str | None = None) -> str:
    """SHA-256 of the video's content hash (computed unless given) and the sampling settings (what the model is
    shown)."""
    sha = video_sha256 or file_sha256(video)
    return text_sha256(json.dumps({"video_sha256": sha, "sampling": sampling}, sort_keys=True))


def cache_key(model: str, template_version: str, item_prompt: str, digest: str) -> str:
    """The cache key of one verdict."""
    return text_sha256(json.dumps([model, template_version, item_prompt, digest]))


class JudgeCache:
    """A directory of cached verdicts (`<root>/<key[:2]>/<key>.json`)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._store = JsonStore(self.root)

    @staticmethod
    def _name(key: str) -> str:
        return f"{key[:2]}/{key}.json"

    def path(self, key: str) -> Path:
        """Where the entry for `key` lives."""
        return self._store.path(self._name(key))

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored record for `key`, or None (absent, torn, or not a verdict of this schema)."""
        data = self._store.read(self._name(key))
        if (
            data is MISSING
            or not isinstance(data, dict)
            or data.get("schema") != CACHE_SCHEMA
            or data.get("key") != key
            or data.get("outcome") not in ("pass", "fail")
        ):
            return None
        return data

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Store a decisive verdict record (must carry `outcome` pass|fail) atomically; a failed write raises
        (OSError: the caller notes it and keeps the verdict)."""
        if record.get("outcome") not in ("pass", "fail"):
            raise ValueError("only pass/fail verdicts are cached")
        failed = self._store.write(self._name(key), {**record, "schema": CACHE_SCHEMA, "key": key}, label=key)
        if failed is not None:
            raise failed
