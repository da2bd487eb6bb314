"""Recap rubric items, their validation, and the final formula.

Item fields (the HF union schema fills absent keys with None, so None always means "absent"):
`id` (required), `dispatch` (python | llm | compound), `kind` + `params` (python), `prompt` falling back to
`criterion` (llm), `stages` (compound), `weight` (default 1, may be negative), `pillar` (default 0: 0 format,
1 visual, 2 narrative, 3 polish; other integers are reported as `pillar_<n>`), `narrative_essential` (optional).

Validation happens before anything runs. An item without an id, an unknown dispatch or kind (D-C4), an llm item
or stage with no text, or a bad weight/pillar/params is a `RubricError` naming the item: the task is `malformed`
instead of silently failing items. Duplicate ids: the last definition wins (as upstream, whose results are a
dict keyed by id); it keeps the position of the first one and a warning names the id. Earlier duplicates are
not run at all (their results would be discarded anyway, and judge calls cost money).

Final formula (lineage A, D-C6), over items whose outcome is pass or fail:
- weight >= 0: added to `total_positive`, and to `earned` when the item passed;
- weight < 0: |w| is added to `deductions` when the item FAILED (a passing negative item changes nothing);
- `final_score = clamp((earned - deductions) / total_positive, 0, 1)`, and 0 when total_positive is 0.

`narrative_essential` (lineage B's flag) is honoured when present on a negative item: `true` means the item
describes an essential good state, so it deducts when it fails (the lineage-A rule, unchanged); an explicit
`false` means lineage B's "penalty fires" reading, so it deducts when it PASSES (the check detected the defect),
and a warning names the item. Absent/None keeps lineage A. On positive items the flag has no effect.

`unscored` items (an llm verdict that could not be obtained or read) are excluded from earned, total_positive and
deductions alike; the caller reports how many and says the score covers only the scored items.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

PILLAR_NAMES: dict[int, str] = {0: "format", 1: "visual", 2: "narrative", 3: "polish"}
Outcome = Literal["pass", "fail", "unscored"]


class RubricError(ValueError):
    """A malformed rubric; the message names the item (id and position) and the field."""


def pillar_name(pillar: int) -> str:
    """`format`, `visual`, `narrative`, `polish`, or `pillar_<n>` for any other number."""
    return PILLAR_NAMES.get(pillar, f"pillar_{pillar}")


@dataclass(frozen=True)
class Stage:
    """One compound stage: a python check (`kind`, `params`, `save_as`) or an llm question (`prompt`)."""

    dispatch: str
    kind: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    save_as: str | None = None
    prompt: str | None = None


@dataclass(kw_only=True, frozen=True)
class RubricItem:
    """One validated rubric item."""

    id: str
    dispatch: str
    weight: float = 1.0
    pillar: int = 0
    kind: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    prompt: str | None = None  # the llm text: `prompt`, falling back to `criterion`
    criterion: str | None = None
    stages: tuple[Stage, ...] = ()
    narrative_essential: bool | None = None
    index: int = 0  # position in the raw rubric

    @property
    def pillar_name(self) -> str:
        """The pillar's name."""
        return pillar_name(self.pillar)

    def deducts(self, outcome: Outcome) -> bool:
        """True when this (negative) item takes |weight| off the score for `outcome` (see module docstring)."""
        if self.weight >= 0 or outcome == "unscored":
            return False
        if self.narrative_essential is False:
            return outcome == "pass"
        return outcome == "fail"


def _label(raw: Mapping[str, Any], index: int) -> str:
    rid = raw.get("id")
    return f"item #{index}" + (f" ('{rid}')" if rid not in (None, "") else "")


def _finite(value: int | float) -> bool:
    """False for NaN/inf, and for an int too large for a float (10**400: `math.isfinite` would overflow)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _short(value: Any) -> str:
    """repr cut to 40 characters, so a 400-digit number does not flood the error message."""
    try:
        text = repr(value)
    except ValueError:  # an int beyond Python's int-to-str digit limit
        return f"an integer of {value.bit_length()} bits"
    return text if len(text) <= 40 else f"{text[:37]}..."


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _params(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise RubricError(f"{where}: 'params' must be an object, got {type(value).__name__}")
    return {k: v for k, v in value.items() if v is not None}


def _check(raw: Mapping[str, Any], where: str, known_kinds: Collection[str] | None) -> dict[str, Any]:
    """The validated `kind` and `params` of a python check (an item or a compound stage)."""
    kind = raw.get("kind")
    if not isinstance(kind, str) or not kind:
        raise RubricError(f"{where}: python check has no 'kind'")
    if known_kinds is not None and kind not in known_kinds:
        raise RubricError(f"{where}: unknown kind '{kind}'")
    return {"kind": kind, "params": _params(raw.get("params"), where)}


def _stage(raw: Any, where: str, item_text: str | None, known_kinds: Collection[str] | None) -> Stage:
    if not isinstance(raw, Mapping):
        raise RubricError(f"{where}: must be an object")
    dispatch = raw.get("dispatch")
    if dispatch == "python":
        save_as = raw.get("save_as")
        if save_as is not None and not isinstance(save_as, str):
            raise RubricError(f"{where}: 'save_as' must be a string")
        return Stage("python", **_check(raw, where, known_kinds), save_as=save_as or None)
    if dispatch == "llm":
        prompt = _text(raw.get("prompt")) or _text(raw.get("criterion")) or item_text
        if prompt is None:
            raise RubricError(f"{where}: llm stage has no 'prompt'")
        return Stage("llm", prompt=prompt)
    raise RubricError(f"{where}: unknown stage dispatch {dispatch!r} (expected python or llm)")


def parse_item(raw: Any, index: int, *, known_kinds: Collection[str] | None = None) -> RubricItem:
    """Validate one raw item dict; raises `RubricError` naming it."""
    if not isinstance(raw, Mapping):
        raise RubricError(f"item #{index}: must be an object, got {type(raw).__name__}")
    where = _label(raw, index)
    rid = raw.get("id")
    if isinstance(rid, bool) or not isinstance(rid, (str, int)) or rid == "":
        raise RubricError(f"{where}: missing 'id'")
    weight = 1.0 if raw.get("weight") is None else raw["weight"]
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not _finite(weight):
        raise RubricError(f"{where}: 'weight' must be a finite number, got {_short(weight)}")
    pillar = 0 if raw.get("pillar") is None else raw["pillar"]
    if (
        isinstance(pillar, bool)
        or not isinstance(pillar, (int, float))
        or (isinstance(pillar, float) and not math.isfinite(pillar))
        or pillar != int(pillar)
        or pillar < 0
    ):  # finiteness first: int(nan) / int(inf) raise
        raise RubricError(f"{where}: 'pillar' must be a non-negative integer, got {_short(pillar)}")
    essential = raw.get("narrative_essential")
    if essential is not None and not isinstance(essential, bool):
        raise RubricError(f"{where}: 'narrative_essential' must be true or false, got {essential!r}")
    dispatch = raw.get("dispatch")
    prompt, criterion = _text(raw.get("prompt")), _text(raw.get("criterion"))
    common: dict[str, Any] = {
        "id": str(rid),
        "dispatch": dispatch,
        "weight": float(weight),
        "pillar": int(pillar),
        "criterion": criterion,
        "narrative_essential": essential,
        "index": index,
    }
    if dispatch == "python":
        return RubricItem(**common, **_check(raw, where, known_kinds), prompt=prompt or criterion)
    if dispatch == "llm":
        if (prompt or criterion) is None:
            raise RubricError(f"{where}: llm item has neither 'prompt' nor 'criterion'")
        return RubricItem(**common, prompt=prompt or criterion)
    if dispatch == "compound":
        stages = [] if raw.get("stages") is None else raw["stages"]
        if not isinstance(stages, list):
            raise RubricError(f"{where}: 'stages' must be a list")
        parsed = tuple(
            _stage(s, f"{where} stage #{j}", prompt or criterion, known_kinds) for j, s in enumerate(stages)
        )
        return RubricItem(**common, stages=parsed, prompt=prompt or criterion)
    raise RubricError(f"{where}: unknown dispatch {dispatch!r} (expected python, llm or compound)")


def parse_rubric(
    raw: Any, *, known_kinds: Collection[str] | None = None
) -> tuple[list[RubricItem], list[str]]:
    """Validate a raw rubric (a list of item dicts) and resolve duplicate ids; returns (items, warnings).

    `known_kinds` (None: not checked here) is the set of python check kinds the runner can execute.
    """
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        raise RubricError(f"rubric must be a list of items, got {type(raw).__name__}")
    if not raw:
        raise RubricError("rubric has no items")
    parsed = [parse_item(r, i, known_kinds=known_kinds) for i, r in enumerate(raw)]
    slot: dict[str, int] = {}
    items: list[RubricItem] = []
    warnings: list[str] = []
    for item in parsed:
        if item.id in slot:
            items[slot[item.id]] = item
            warnings.append(f"duplicate rubric item id '{item.id}': the last definition (#{item.index}) wins")
        else:
            slot[item.id] = len(items)
            items.append(item)
    for item in items:
        if item.weight < 0 and item.narrative_essential is False:
            warnings.append(
                f"item '{item.id}': narrative_essential=false, so this negative item deducts when it "
                "passes (lineage B 'fires' semantics, D-C6)"
            )
    return items, warnings


@dataclass(kw_only=True)
class RubricScore:
    """The final formula's inputs and result, plus the informational per-pillar breakdown."""

    final_score: float
    earned: float
    deductions: float
    total_positive: float
    pillar_breakdown: dict[str, dict[str, float]]
    passed: int
    failed: int
    unscored: int
    deducted_items: list[str]


def aggregate(items: Sequence[RubricItem], outcomes: Mapping[str, Outcome]) -> RubricScore:
    """Apply the final formula (module docstring) to each item's outcome (keyed by item id)."""
    earned = deductions = total = 0.0
    pillars: dict[int, list[float]] = {}
    counts = {"pass": 0, "fail": 0, "unscored": 0}
    deducted: list[str] = []
    for item in items:
        outcome = outcomes[item.id]
        counts[outcome] += 1
        if outcome == "unscored":
            continue
        if item.weight >= 0:
            total += item.weight
            got = item.weight if outcome == "pass" else 0.0
            earned += got
            acc = pillars.setdefault(item.pillar, [0.0, 0.0])
            acc[0] += got
            acc[1] += item.weight
        elif item.deducts(outcome):
            deductions += -item.weight
            deducted.append(item.id)
    final = 0.0 if total <= 0 else min(1.0, max(0.0, (earned - deductions) / total))
    breakdown = {
        pillar_name(p): {"earned": e, "max": m, "score": e / m}
        for p, (e, m) in sorted(pillars.items())
        if m > 0
    }
    return RubricScore(
        final_score=final,
        earned=earned,
        deductions=deductions,
        total_positive=total,
        pillar_breakdown=breakdown,
        passed=counts["pass"],
        failed=counts["fail"],
        unscored=counts["unscored"],
        deducted_items=deducted,
    )
