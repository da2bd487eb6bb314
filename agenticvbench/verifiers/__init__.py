"""The one verifier registry: family name -> verifier.

Verifier modules register themselves with `@register`; `get_verifier` imports a family's module on first use, so
a new family is one new module plus one line in `_MODULES`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from agenticvbench.verifiers.base import Verifier

_MODULES: dict[str, str] = {
    "sequencing": "agenticvbench.verifiers.sequencing",
    "assembly": "agenticvbench.verifiers.assembly",
    "repair": "agenticvbench.verifiers.repair",
    "recap": "agenticvbench.verifiers.recap",
}
_REGISTRY: dict[str, Verifier] = {}
T = TypeVar("T")


def register(family: str):
    """Class decorator: instantiate the verifier class and register it for `family`, unless a verifier is already
    registered for it (a verifier set explicitly, e.g. a test's or a plug-in's, survives a later import of the
    built-in module, which other modules may trigger at any time)."""

    def deco(cls: type[T]) -> type[T]:
        _REGISTRY.setdefault(family, cls())  # type: ignore[arg-type]
        return cls

    return deco


def get_verifier(family: str) -> Verifier:
    """Return the verifier for `family`, importing its module if needed; KeyError for an unknown family."""
    if family not in _REGISTRY:
        if family not in _MODULES:
            raise KeyError(f"no verifier for family {family!r}")
        importlib.import_module(_MODULES[family])
    return _REGISTRY[family]


def families() -> list[str]:
    """Every family that has a verifier module."""
    return list(_MODULES)
