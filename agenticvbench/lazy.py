"""The one lazy-export mechanism of the package's public `__init__` modules.

A package lists which submodule holds each public name; the name is imported on first access (PEP 562
`__getattr__`), so importing the package stays cheap (no pandas, matplotlib or the `openai` SDK until used).
Editors and mypy see the real signatures because each package also imports the same names under
`if TYPE_CHECKING:`; `tests/test_public_api.py` checks that the two lists agree and that every name resolves.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], eager: Mapping[str, Any] | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`(__getattr__, __dir__)` for `package`: `exports` maps a public name to the dotted module that defines it
    (relative names such as `.aggregate` resolve against `package`); `eager` holds names already imported.

    A resolved name is cached in the package's namespace, so the lookup runs once per name."""
    names = dict(exports)

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*names, *(eager or {})})

    return __getattr__, __dir__


__all__ = ["lazy_exports"]
