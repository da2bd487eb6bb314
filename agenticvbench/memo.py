"""Compute-once memos and a best-effort on-disk JSON store: the one implementation of both.

`Memo` computes each key's value at most once per instance, even with concurrent callers: one lock per key, so
two different keys compute in parallel while callers of the same key wait for the first one's result. Whether a
failure is memoised is chosen per memo: a media measurement memoises its exception (a broken file is decoded once,
not once per rubric item), a judge's lookups do not (a failed call is retried by the next item).

`JsonStore` keeps one small JSON file per entry under a root directory. Writes use the package's atomic writer
(readers see the old file or the whole new one); a write that fails is returned and noted in `errors`, never
raised, because a cache must not be able to fail the work it caches. Reads are bounded and defensive: a missing,
torn, oversized, non-regular or undecodable file is a miss (`MISSING`), so the caller recomputes and overwrites.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from pathlib import Path, PurePath
from typing import Any, TypeVar

from agenticvbench.fsutil import atomic_write_json, parse_json_bounded, read_capped

T = TypeVar("T")


class _Missing:
    """Type of `MISSING` (a readable repr in test failures)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A lookup found nothing: no entry, or one that could not be read (distinct from a stored None)."""

#: Largest entry `JsonStore.read` accepts; a bigger file is a miss (a recap's OCR text of a long video is ~1 MB).
MAX_ENTRY_BYTES = 16 * 1024 * 1024

#: What a decoder may raise for an entry it does not recognise (read as a miss).
DECODE_ERRORS = (ValueError, KeyError, TypeError, IndexError)


class _Failure:
    """A memoised exception: re-raised on every later request instead of recomputing."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class Memo:
    """Values computed at most once per key, thread-safe (see the module docstring).

    `memoise_failures`: when True, an exception raised by `compute` is stored and re-raised to every later caller
    of that key; when False it propagates to this caller only and the next caller computes again.
    """

    def __init__(self, *, memoise_failures: bool) -> None:
        self.memoise_failures = memoise_failures
        self._outcomes: dict[Hashable, Any] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._guard = threading.Lock()

    def lock(self, name: Hashable) -> threading.Lock:
        """The lock of `name` (a key, or any name a caller uses to serialise a group of keys), created once."""
        with self._guard:
            return self._locks.setdefault(name, threading.Lock())

    def __contains__(self, key: Hashable) -> bool:
        """True once `key` has a memoised value or failure."""
        return key in self._outcomes

    def get(
        self,
        key: Hashable,
        compute: Callable[[], T],
        *,
        load: Callable[[], Any] | None = None,
        save: Callable[[T], None] | None = None,
    ) -> T:
        """`key`'s value, computed by the first caller while later ones wait.

        With `load`, it is asked first (under the key's lock) and a result other than `MISSING` is memoised
        without computing. With `save`, a freshly computed value is handed to it before it is memoised. Only
        exceptions of `compute` are memoised (when `memoise_failures`); those of `load` and `save` propagate.
        """
        with self.lock(key):
            if key not in self._outcomes:
                self._fill(key, compute, load, save)
        return self.result(key)

    def _fill(
        self,
        key: Hashable,
        compute: Callable[[], T],
        load: Callable[[], Any] | None,
        save: Callable[[T], None] | None,
    ) -> None:
        if load is not None:
            cached = load()
            if cached is not MISSING:
                self._outcomes[key] = cached
                return
        try:
            value = compute()
        except Exception as exc:  # noqa: BLE001 - memoised and re-raised to every caller, or re-raised now
            if not self.memoise_failures:
                raise
            self._outcomes[key] = _Failure(exc)
            return
        if save is not None:
            save(value)
        self._outcomes[key] = value

    def put(self, key: Hashable, value: Any) -> None:
        """Memoise `value` for `key` (a caller computing several keys at once, holding their group's lock)."""
        self._outcomes[key] = value

    def put_failure(self, key: Hashable, exc: BaseException) -> None:
        """Memoise `exc` as `key`'s outcome; refused (ValueError) by a memo that does not memoise failures."""
        if not self.memoise_failures:
            raise ValueError("this memo does not memoise failures")
        self._outcomes[key] = _Failure(exc)

    def result(self, key: Hashable) -> Any:
        """The memoised value of `key`, re-raising a memoised failure; KeyError when nothing is memoised yet."""
        value = self._outcomes[key]
        if isinstance(value, _Failure):
            raise value.exc
        return value


class JsonStore:
    """One JSON file per entry under `root`, best-effort (see the module docstring).

    Entries are named by paths relative to `root` (no absolute paths, no `..`). `errors` lists, one line each,
    the writes that failed; callers report them (e.g. as warnings) or ignore them.
    """

    def __init__(self, root: str | Path, *, max_bytes: int = MAX_ENTRY_BYTES) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self.errors: list[str] = []
        self._guard = threading.Lock()

    def path(self, name: str | PurePath) -> Path:
        """Where entry `name` lives; ValueError for a name that would leave `root`."""
        rel = PurePath(name)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise ValueError(f"cache entry name {str(name)!r} is not a plain relative path")
        return self.root / rel

    def read(self, name: str | PurePath, decode: Callable[[Any], Any] | None = None) -> Any:
        """The parsed JSON of entry `name`, passed through `decode` when given, or `MISSING`.

        A miss is: no file, not a regular file, unreadable, over `max_bytes`, not UTF-8 JSON, nested too deeply,
        or a `decode` that raises one of `DECODE_ERRORS` (or returns `MISSING`) for an entry it does not know.
        """
        path = self.path(name)
        try:
            data = parse_json_bounded(read_capped(path, self.max_bytes), str(path))
        except (OSError, ValueError):  # TooLargeError is a ValueError
            return MISSING
        if decode is None:
            return data
        try:
            return decode(data)
        except DECODE_ERRORS:
            return MISSING

    def write(
        self, name: str | PurePath, value: Any, *, encode: Callable[[Any], Any] | None = None, label: str = ""
    ) -> Exception | None:
        """Atomically write `value` (through `encode` when given) as entry `name`; returns None, or the exception
        that stopped the write, also noted in `errors` as "<label>: cache not written (<type>: <message>)".
        Never raises for an unwritable root, a full disk or a value JSON cannot hold (NaN: ValueError)."""
        try:
            atomic_write_json(self.path(name), encode(value) if encode is not None else value)
        except (OSError, ValueError) as exc:
            with self._guard:
                self.errors.append(f"{label or name}: cache not written ({type(exc).__name__}: {exc})")
            return exc
        return None
