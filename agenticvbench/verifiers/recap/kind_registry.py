"""The python check-kind registry: the result type, the `@kind` decorator and parameter helpers.

Kind functions live in `kinds_probe`, `kinds_ffmpeg` and `kinds_content`; `verifiers.recap.kinds` imports them
all and is the module callers use (`run_kind`, `KINDS`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from agenticvbench.verifiers.recap.media_facts import MediaFacts


@dataclass(frozen=True)
class KindResult:
    """One check's verdict. `evidence` is human-readable and also fills compound `{placeholders}`; `error` is
    non-empty when the kind could not run (then `passed` is False)."""

    passed: bool
    evidence: str
    error: str = ""


class UnknownKindError(LookupError):
    """A rubric names a python kind this runner does not know (a malformed rubric, D-C4)."""

    def __init__(self, kind: object) -> None:
        self.kind = kind
        super().__init__(f"unknown kind {kind!r}")


class ParamError(ValueError):
    """A required parameter is missing or has the wrong type."""


KindFn = Callable[["MediaFacts", dict[str, Any]], KindResult]
Need = tuple[Any, ...]
NeedsFn = Callable[[dict[str, Any]], set[Need]]
KINDS: dict[str, KindFn] = {}
NEEDS: dict[str, NeedsFn] = {}


def kind(name: str, needs: set[Need] | NeedsFn | None = None) -> Callable[[KindFn], KindFn]:
    """Register the decorated function as python kind `name`.

    `needs` names the whole-file measurements the kind reads (`MediaFacts.expect`), as a set or as a function
    of the item's params, so a task decodes its video once for all of its items.
    """

    def deco(fn: KindFn) -> KindFn:
        if name in KINDS:
            raise ValueError(f"kind {name!r} registered twice")
        KINDS[name] = fn
        if callable(needs):
            NEEDS[name] = needs
        elif needs is not None:
            fixed = frozenset(needs)
            NEEDS[name] = lambda _params: set(fixed)
        return fn

    return deco


def kind_needs(name: str, params: dict[str, Any] | None) -> set[Need]:
    """The whole-file measurements kind `name` will read with `params` (empty when unknown or unparsable)."""
    fn = NEEDS.get(name) if isinstance(name, str) else None
    if fn is None:
        return set()
    try:
        return fn({k: v for k, v in (params or {}).items() if v is not None})
    except Exception:  # noqa: BLE001 - a bad parameter is reported when the kind runs, not here
        return set()


def req(params: Mapping[str, Any], name: str) -> Any:
    """A required parameter (after None-stripping); `ParamError` naming it when absent."""
    if name not in params:
        raise ParamError(f"missing parameter {name!r}")
    return params[name]


def num(value: Any, name: str) -> float:
    """A parameter as a float (numbers and numeric strings); `ParamError` otherwise."""
    if isinstance(value, bool):
        raise ParamError(f"parameter {name!r} must be a number, got {value!r}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ParamError(f"parameter {name!r} must be a number, got {value!r}") from None
    if math.isnan(out):
        raise ParamError(f"parameter {name!r} is NaN")
    return out


def str_list(value: Any, name: str) -> list[str]:
    """A parameter as a list of strings; a bare string counts as a one-element list."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Sequence):
        raise ParamError(f"parameter {name!r} must be a list of strings, got {value!r}")
    return [str(v) for v in value]


def fmt(x: float | None, unit: str = "") -> str:
    """A number for evidence text: up to 3 decimals, no trailing zeros; `n/a` for None."""
    if x is None:
        return "n/a"
    if math.isinf(x):
        return ("-inf" if x < 0 else "inf") + unit
    text = f"{x:.3f}".rstrip("0").rstrip(".")
    return f"{text}{unit}"
