"""ULIDs (https://github.com/ulid/spec): a 48-bit millisecond timestamp and 80 random bits, Crockford base32.

A ULID is 26 characters: 10 for the timestamp (most significant first), 16 for the randomness. 26 characters
hold 130 bits, so the first character of a valid ULID is `0`..`7`. OpenVibe ids are `bmk_` + a ULID.
"""

from __future__ import annotations

import os
import re
import time

#: Crockford's base32 alphabet: digits and upper-case letters without I, L, O, U.
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_DECODE = {c: i for i, c in enumerate(CROCKFORD)}
MAX_TIMESTAMP_MS = (1 << 48) - 1
ULID_RE = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")


def _encode(value: int, length: int) -> str:
    return "".join(CROCKFORD[(value >> 5 * k) & 31] for k in reversed(range(length)))


def new_ulid(timestamp_ms: int | None = None, randomness: bytes | None = None) -> str:
    """A fresh ULID for `timestamp_ms` (default: now) and `randomness` (default: 10 bytes from `os.urandom`).

    Both arguments exist so tests can build a known ULID; production callers pass neither.
    """
    ts = int(time.time() * 1000) if timestamp_ms is None else int(timestamp_ms)
    if not 0 <= ts <= MAX_TIMESTAMP_MS:
        raise ValueError(f"ULID timestamp must fit in 48 bits, got {ts}")
    rnd = os.urandom(10) if randomness is None else bytes(randomness)
    if len(rnd) != 10:
        raise ValueError(f"ULID randomness must be 10 bytes (80 bits), got {len(rnd)}")
    return _encode(ts, 10) + _encode(int.from_bytes(rnd, "big"), 16)


def is_ulid(text: str) -> bool:
    """True when `text` is a canonical (upper-case, 26-character, non-overflowing) ULID."""
    return isinstance(text, str) and bool(ULID_RE.match(text))


def decode_ulid(text: str) -> tuple[int, bytes]:
    """Split a ULID into (timestamp in ms, 10 random bytes); `ValueError` when it is not a canonical ULID."""
    if not is_ulid(text):
        raise ValueError(f"not a ULID: {text!r}")
    value = 0
    for c in text:
        value = (value << 5) | _DECODE[c]
    return value >> 80, (value & ((1 << 80) - 1)).to_bytes(10, "big")


def ulid_timestamp_ms(text: str) -> int:
    """The millisecond timestamp a ULID was made at."""
    return decode_ulid(text)[0]
