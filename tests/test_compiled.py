"""The one numba decorator: cached where it can be, compiled per process where it cannot, never unimportable."""

from __future__ import annotations

import numba
import pytest

from agenticvbench import compiled as compiled_module


@pytest.mark.privileges
def test_a_refused_cache_falls_back_to_compiling_in_process(monkeypatch) -> None:
    """numba raises at decoration time when no cache locator exists (read-only install and home); the kernel
    must still be built, without the cache, rather than breaking the import of its module."""
    calls: list[dict[str, object]] = []
    real = numba.njit

    def njit(*args: object, **options: object):
        if args:  # numba's own internal uses
            return real(*args, **options)
        calls.append(options)
        if options.get("cache"):
            raise RuntimeError("cannot cache function 'f': no locator available for file")
        return real(**options)

    monkeypatch.setattr(compiled_module.numba, "njit", njit)

    @compiled_module.compiled()
    def f(x: int) -> int:
        return x + 1

    assert f(41) == 42
    assert [c["cache"] for c in calls] == [True, False] and all(c["nogil"] for c in calls)
