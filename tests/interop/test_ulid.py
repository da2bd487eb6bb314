"""ULIDs: layout (48-bit ms timestamp + 80 random bits), Crockford alphabet, round trip, ordering."""

from __future__ import annotations

import time

import pytest

from agenticvbench.interop.ulid import (
    CROCKFORD,
    MAX_TIMESTAMP_MS,
    decode_ulid,
    is_ulid,
    new_ulid,
    ulid_timestamp_ms,
)


def test_known_vector() -> None:
    """Spec example layout: timestamp 1469918176385 ms encodes to 01ARYZ6S41; zero randomness to 16 zeros."""
    u = new_ulid(1469918176385, bytes(10))
    assert u == "01ARYZ6S41" + "0" * 16
    assert new_ulid(0, b"\xff" * 10) == "0" * 10 + "Z" * 16
    assert new_ulid(MAX_TIMESTAMP_MS, bytes(10)) == "7ZZZZZZZZZ" + "0" * 16


def test_round_trip_and_alphabet() -> None:
    rnd = bytes(range(1, 11))
    u = new_ulid(1_700_000_000_123, rnd)
    assert len(u) == 26 and set(u) <= set(CROCKFORD)
    assert decode_ulid(u) == (1_700_000_000_123, rnd)
    assert not set("ILOU") & set(CROCKFORD)


def test_fresh_ulid_uses_now_and_random_bits() -> None:
    before = int(time.time() * 1000)
    a, b = new_ulid(), new_ulid()
    after = int(time.time() * 1000)
    assert is_ulid(a) and is_ulid(b) and a != b
    assert before <= ulid_timestamp_ms(a) <= after


def test_lexicographic_order_follows_time() -> None:
    assert new_ulid(1000, b"\xff" * 10) < new_ulid(1001, bytes(10))


@pytest.mark.parametrize(
    "bad",
    ["", "01ARYZ6S41" + "0" * 15, "81ARYZ6S41" + "0" * 16, "01ARYZ6S4I" + "0" * 16, "01aryz6s41" + "0" * 16],
)
def test_rejects_non_canonical(bad: str) -> None:
    assert not is_ulid(bad)
    with pytest.raises(ValueError):
        decode_ulid(bad)


def test_rejects_out_of_range_inputs() -> None:
    with pytest.raises(ValueError):
        new_ulid(MAX_TIMESTAMP_MS + 1)
    with pytest.raises(ValueError):
        new_ulid(0, b"short")
