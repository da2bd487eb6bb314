"""`memo.Memo` (compute once per key, failures memoised or not by choice) and `memo.JsonStore` (best-effort JSON
entries: a bad file is a miss, a failed write is noted, never raised)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from agenticvbench.memo import MISSING, JsonStore, Memo

THREADS = 16


def _hammer(memo: Memo, key: str, compute) -> list[object]:  # type: ignore[no-untyped-def]
    """Call `memo.get(key, compute)` from THREADS threads released together; each thread's value or exception."""
    start = threading.Barrier(THREADS)
    out: list[object] = [None] * THREADS

    def worker(i: int) -> None:
        start.wait()
        try:
            out[i] = memo.get(key, compute)
        except Exception as exc:  # noqa: BLE001 - collected for the assertions
            out[i] = exc

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    return out


def test_concurrent_callers_of_one_key_compute_once() -> None:
    """The point of the per-key lock: 16 threads asking at once run the (slow) computation once and all get
    its value; a second key is computed independently."""
    memo = Memo(memoise_failures=True)
    runs: list[int] = []

    def slow() -> int:
        runs.append(1)
        time.sleep(0.05)  # long enough for every other thread to be waiting on the lock
        return 42

    assert _hammer(memo, "k", slow) == [42] * THREADS
    assert len(runs) == 1
    assert memo.get("other", lambda: 7) == 7 and "other" in memo and "absent" not in memo


def test_failure_memoised_is_raised_to_every_caller_without_recomputing() -> None:
    """A memo that memoises failures (media measurements: a broken file is decoded once) re-raises the same
    exception object and never calls compute again."""
    memo = Memo(memoise_failures=True)
    runs: list[int] = []

    def broken() -> int:
        runs.append(1)
        time.sleep(0.02)
        raise OSError("corrupt file")

    got = _hammer(memo, "k", broken)
    assert len(runs) == 1
    assert all(isinstance(e, OSError) and str(e) == "corrupt file" for e in got)
    assert len({id(e) for e in got}) == 1  # one memoised exception, not 16
    with pytest.raises(OSError, match="corrupt file"):
        memo.result("k")


def test_failure_not_memoised_is_retried_by_the_next_caller() -> None:
    """A memo that does not memoise failures (the judge: a failed sampling or hash is tried again) propagates the
    exception to that caller only; the next caller computes, and a success is then memoised."""
    memo = Memo(memoise_failures=False)
    attempts: list[int] = []

    def flaky() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError(f"attempt {len(attempts)}")
        return "ok"

    for n in (1, 2):
        with pytest.raises(ConnectionError, match=f"attempt {n}"):
            memo.get("k", flaky)
        assert "k" not in memo
    assert memo.get("k", flaky) == "ok" and memo.get("k", flaky) == "ok"
    assert len(attempts) == 3
    with pytest.raises(ValueError):
        memo.put_failure("k", RuntimeError("x"))  # refused: this memo never stores a failure


def test_load_hit_skips_compute_and_save_runs_before_memoising() -> None:
    """`load` answers first (MISSING = miss); `save` sees a freshly computed value only, and its exception is
    not memoised (the next caller computes again)."""
    memo = Memo(memoise_failures=True)
    saved: list[int] = []
    assert (
        memo.get("hit", lambda: pytest.fail("computed despite a hit"), load=lambda: 5, save=saved.append) == 5
    )
    assert memo.get("miss", lambda: 6, load=lambda: MISSING, save=saved.append) == 6
    assert saved == [6]

    def bad_save(value: int) -> None:
        raise TypeError("cannot store")

    with pytest.raises(TypeError):
        memo.get("s", lambda: 1, save=bad_save)
    assert "s" not in memo and memo.get("s", lambda: 2) == 2


def test_store_roundtrip_with_codec_and_atomic_files(tmp_path: Path) -> None:
    """A written entry reads back through the decoder, as indented key-sorted JSON, with no temporary left."""
    store = JsonStore(tmp_path / "root")
    assert store.read("ab/k.json") is MISSING
    encode = lambda v: {"value": [list(p) for p in v]}  # noqa: E731
    decode = lambda raw: [tuple(p) for p in raw["value"]]  # noqa: E731
    assert store.write("ab/k.json", [(0.0, 1.5)], encode=encode) is None
    assert store.read("ab/k.json", decode) == [(0.0, 1.5)]
    assert json.loads((tmp_path / "root" / "ab" / "k.json").read_text()) == {"value": [[0.0, 1.5]]}
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")] and store.errors == []


@pytest.mark.parametrize(
    "content",
    [
        b'{"value": [[0.0, 1.',
        b"\xff\xfe{}",
        b"[" * 100 + b"]" * 100,
        b'{"other": 1}',
        b'["value"]',
    ],
    ids=["torn", "not-utf8", "too-deep", "foreign-dict", "foreign-list"],
)
def test_torn_or_foreign_entry_is_a_miss(tmp_path: Path, content: bytes) -> None:
    """Whatever is in an entry's file, a reader either decodes it or sees a miss: it never raises."""
    store = JsonStore(tmp_path)
    (tmp_path / "e.json").write_bytes(content)
    assert store.read("e.json", lambda raw: raw["value"][0]) is MISSING


def test_oversized_or_non_regular_entry_is_a_miss_without_reading_it(tmp_path: Path) -> None:
    """The read is bounded: a file over `max_bytes`, a directory or a FIFO (which would block a plain open) in
    an entry's place is a miss."""
    store = JsonStore(tmp_path, max_bytes=64)
    (tmp_path / "big.json").write_text(json.dumps({"value": "x" * 100}))
    assert store.read("big.json") is MISSING
    assert JsonStore(tmp_path).read("big.json") == {"value": "x" * 100}  # the same file under the default cap
    (tmp_path / "dir.json").mkdir()
    os.mkfifo(tmp_path / "fifo.json")
    assert store.read("dir.json") is MISSING and store.read("fifo.json") is MISSING


@pytest.mark.privileges
def test_unwritable_root_is_recorded_not_raised(tmp_path: Path) -> None:
    """A root under a regular file (mkdir fails even for root) and a value JSON cannot hold (NaN) are both
    returned and noted in `errors`, one line each naming the label, and never raised."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    store = JsonStore(blocker / "cache")
    failed = store.write("a/b.json", {"v": 1}, label="shots")
    assert isinstance(failed, OSError)
    assert isinstance(JsonStore(tmp_path).write("nan.json", float("nan"), label="rms"), ValueError)
    assert len(store.errors) == 1 and store.errors[0].startswith("shots: cache not written (")
    assert not (tmp_path / "nan.json").exists()


def test_entry_names_stay_inside_the_root(tmp_path: Path) -> None:
    """An entry name is a plain relative path: `..` or an absolute path is refused (ValueError), and a write
    returns that error instead of writing outside the root."""
    store = JsonStore(tmp_path / "root")
    for bad in ("../escape.json", "/etc/passwd", "a/../../b.json"):
        with pytest.raises(ValueError):
            store.path(bad)
        assert isinstance(store.write(bad, {"v": 1}), ValueError)
    assert not (tmp_path / "escape.json").exists()
