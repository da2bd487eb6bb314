"""Token buckets and the bounded, validating readers every usage source shares: a count is a non-negative integer
below `MAX_TOKENS` and a cost a finite non-negative number, or the field is dropped with a note naming where it
was; logs are read from their last `MAX_LOG_BYTES` only, through `JobDir` (no symlink, regular files only)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from agenticvbench.runs.jobdir import JobDir
from agenticvbench.sanitize import one_line

MAX_LOG_BYTES = 8 * 1024 * 1024
MAX_TOKENS = 10**13
MAX_USD = 1e9  # a reported cost at or above this (per trial or model) is not believed
BUCKETS = ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens")
N = TypeVar("N", int, float)


@dataclass
class Tokens:
    """Disjoint token buckets and a reported cost (None = not reported)."""

    input_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None

    @property
    def empty(self) -> bool:
        """True when nothing was reported."""
        return all(v is None for v in asdict(self).values())


def token_count(value: Any, where: str, notes: list[str]) -> int | None:
    """A token count: a non-negative int below `MAX_TOKENS` (no bool, float or string), else None with a note
    naming `where` (None stays None, without a note)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_TOKENS:
        notes.append(f"{where}: not a token count ({str(value)[:40]!r}); ignored")
        return None
    return value


def usd_amount(value: Any, where: str, notes: list[str]) -> float | None:
    """A cost in USD: a finite non-negative number, else None with a note naming `where`."""
    if value is None:
        return None
    ok = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value < MAX_USD
    )
    if not ok:
        notes.append(f"{where}: not a cost in USD ({str(value)[:40]!r}); ignored")
        return None
    return float(value)


def get_path(obj: Any, *keys: str) -> Any:
    """`obj[k1][k2]...`, None where a level is not a dict."""
    for k in keys:
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj


def read_log_tail(job: JobDir, parts: tuple[str, ...]) -> str | None:
    """The last `MAX_LOG_BYTES` of a log file as text (None when missing or unsafe)."""
    try:
        fd, size = job.open_file(*parts)
    except OSError:
        return None
    try:
        os.set_blocking(fd, True)
        os.lseek(fd, max(0, size - MAX_LOG_BYTES), os.SEEK_SET)
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(MAX_LOG_BYTES)
    finally:
        os.close(fd)
    return raw.decode("utf-8", errors="replace")


def summed(parts: Iterable[Tokens], cost_usd: float | None) -> Tokens:
    """The bucket-wise sums of several `Tokens` (a bucket no part reports stays None), with `cost_usd`."""
    parts = list(parts)
    return Tokens(**{b: known_sum(getattr(t, b) for t in parts) for b in BUCKETS}, cost_usd=cost_usd)


def known_sum(values: Iterable[N | None]) -> N | None:
    """The sum of the values that are not None; None when every value is."""
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def tokens_from_dict(data: Any, where: str = "tokens", notes: list[str] | None = None) -> Tokens:
    """A `Tokens` back from its JSON form; a bad field becomes None with a note `<where>.<field>: ...` (into
    `notes` when given)."""
    notes = [] if notes is None else notes
    if data is not None and not isinstance(data, dict):
        notes.append(f"{where}: not an object ({one_line(str(data)[:40])!r}); ignored")
    d = data if isinstance(data, dict) else {}
    counts = {b: token_count(d.get(b), f"{where}.{b}", notes) for b in BUCKETS}
    return Tokens(**counts, cost_usd=usd_amount(d.get("cost_usd"), f"{where}.cost_usd", notes))
