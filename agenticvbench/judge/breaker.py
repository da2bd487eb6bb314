"""A run-wide circuit breaker for the judge endpoint.

After `threshold` consecutive requests that timed out or could not connect, the judge is not called again in
that run: every remaining llm item is `unscored` with the breaker's reason. A successful request resets the
count. This turns "an endpoint that never answers" from minutes per item into about one request deadline for the
whole run.

State is split in two, because `avb verify` scores tasks in a pool of processes (or on Dask workers):

- **per process**: the consecutive-failure count lives in one `CircuitBreaker` object per run and process
  (`breaker_for()`), shared by every task and judge thread of that process. Counting per process keeps the hot
  path free of file locking; a process trips after `threshold` of its own consecutive failures;
- **shared**: tripping writes a small marker file, `breaker-<run_id>.json`, in the run's judge cache directory
  (`<cache>/judge/breaker/`, or the system temp directory when there is no cache). Every process checks for the
  marker before each request and each retry, so one process tripping stops them all within one request. Dask
  workers share the marker when they share the cache directory, as they must for the verdict cache anyway.

A run is one `JudgeSettings.run_id` (a fresh random id per settings object, so per CLI command); the marker of
one run never affects another.
"""

from __future__ import annotations

import json
import tempfile
import threading
from datetime import datetime, timezone
from pathlib import Path

from agenticvbench.fsutil import atomic_write_json

_registry: dict[tuple[str, str], CircuitBreaker] = {}
_registry_lock = threading.Lock()


class CircuitBreaker:
    """Consecutive-failure counter of one run in this process, plus the run's shared marker file."""

    def __init__(self, run_id: str, marker_dir: Path, threshold: int) -> None:
        self.run_id = run_id
        self.marker = marker_dir / f"breaker-{run_id}.json"
        self.threshold = threshold
        self._lock = threading.Lock()
        self._consecutive = 0
        self._reason: str | None = None

    def open_reason(self) -> str | None:
        """Why the judge must not be called any more in this run, or None while the breaker is closed."""
        if self.threshold <= 0:
            return None
        if self._reason is not None:
            return self._reason
        try:
            data = json.loads(self.marker.read_text(encoding="utf-8")[:4096])
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        reason = data.get("reason") if isinstance(data, dict) else None
        with self._lock:
            self._reason = str(reason) if reason else "judge circuit breaker open"
        return self._reason

    def success(self) -> None:
        """A request got an HTTP answer: reset the consecutive count."""
        with self._lock:
            self._consecutive = 0

    def failure(self, what: str) -> bool:
        """A request timed out or could not connect; returns True when this failure opened the breaker."""
        if self.threshold <= 0:
            return False
        with self._lock:
            self._consecutive += 1
            if self._reason is not None or self._consecutive < self.threshold:
                return False
            self._reason = (
                f"judge circuit breaker open: {self._consecutive} consecutive requests failed "
                f"(last: {what}); the judge is not called again in this run"
            )
            reason = self._reason
        try:
            atomic_write_json(
                self.marker,
                {
                    "run_id": self.run_id,
                    "reason": reason,
                    "opened_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                },
            )
        except OSError:  # the other processes then trip on their own failures; this one is already open
            pass
        return True


def marker_dir_for(cache_root: Path | None) -> Path:
    """Where a run's marker lives: `<cache>/judge/breaker`, else `<tmp>/avb-judge-breaker`."""
    if cache_root is not None:
        return cache_root / "judge" / "breaker"
    return Path(tempfile.gettempdir()) / "avb-judge-breaker"


def breaker_for(run_id: str, marker_dir: Path, threshold: int) -> CircuitBreaker:
    """This process's breaker for the run (created on first use, then shared by all its tasks and threads)."""
    key = (run_id, str(marker_dir))
    with _registry_lock:
        return _registry.setdefault(key, CircuitBreaker(run_id, marker_dir, threshold))
