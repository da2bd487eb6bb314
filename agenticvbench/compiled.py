"""The one way the package compiles its numeric kernels: `numba.njit` without the GIL, cached on disk if it can."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba


def compiled(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """`numba.njit` without the GIL, with its on-disk cache when there is a writable place for it.

    numba caches next to the module, or in the user's cache folder when the install is read-only; with neither
    (a read-only container whose home is read-only too) it refuses `cache=True` at import time, so there the
    kernels are compiled once per process instead (a few seconds) rather than making their module unimportable.
    """

    def wrap(fn: Callable[..., Any]) -> Any:
        try:
            return numba.njit(cache=True, nogil=True, boundscheck=False, **options)(fn)
        except RuntimeError:  # "cannot cache function ...: no locator available"
            return numba.njit(cache=False, nogil=True, boundscheck=False, **options)(fn)

    return wrap
