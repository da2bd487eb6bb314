"""The one verifier registry: family name -> verifier, and the one owner of the headline rule.

Verifier modules register themselves with `@register`; `get_verifier` imports a family's module on first use, so
a new family is one new module plus one line in `FAMILY_SPECS`.

`FAMILY_SPECS` also declares each family's headline field (the result field leaderboards average) without importing
the family's module: repair and recap pull in PyAV and OpenCV, and `avb leaderboard` must not pay for them. Each
verifier's `headline_field` attribute reads it from here; `headline_field(family)` is what reports, Harbor rewards
and exports ask. Source: PhiloLabs/AgentVBench REPRODUCE.md at commit f058cd6, step 3 (aggregate
adjusted_final_score for sequencing and assembly, final_score for repair); recap, whose grader is not public, uses
final_score of this package's rubric runner.

Each family explains its own stored results (`FamilyExplanation`): `FAMILY_SPECS` names the light function that does
it (the same one the verifier exposes as `explain`), and `family_explainer(family)` is what `avb explain` and the
reports ask, again without loading a family's decoding stack.

Everything else the layers above need to know about a family is declared here too, so that no module outside
`verifiers/` branches on a family's name: whether it is judged and which output the judge watches (`uses_judge`,
`judged_output`: the engine's fingerprint, comparability, judge agreement, the Harbor verifier's judge settings),
how many of a stored result's items were left unscored (`unscored_items`, the one reader of that count), how its
media are screened (`screen_spec`: the duration limit and which checks compare an output with the task's inputs),
and whether its explanation's first lost line restates the headline arithmetic (`explanation_leads_with_arithmetic`).
Hooks are "module:function" strings imported on first use, like the explainer, so asking loads no decoder.
A plug-in family (registered, not in `FAMILY_SPECS`) answers through attributes of its verifier of the same name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from agenticvbench.results.model import Result
    from agenticvbench.verifiers.base import FamilyExplanation, Verifier

#: The result fields a headline can be: the two official score fields.
HeadlineField = Literal["final_score", "adjusted_final_score"]


@dataclass(frozen=True)
class ScreenSpec:
    """How `integrity.screen` treats a family's submitted media (defaults: a plain output of up to an hour)."""

    #: Longest plausible output, in seconds: a longer header or packet span is rejected before decoding.
    max_output_s: float = 3600.0
    #: Flag an output byte-identical to one of the task's own inputs (`identical_to_input`).
    identical_to_input: bool = False
    #: Also flag an output that is nearly an input film, pictures and audio (`near_copy_of_input`).
    near_copy_of_input: bool = False
    #: Output names checked for too few video frames for their seconds (`degenerate_video`).
    sparse_video: tuple[str, ...] = ()


@dataclass(kw_only=True, frozen=True)
class Family:
    """What the registry knows about a built-in family before importing its module."""

    module: str  # registers the verifier when imported
    headline_field: HeadlineField
    explainer: str  # "module:function" explaining a stored result; importing it loads no media stack
    #: The output file an LLM judge watches (its SHA-256 names the judged video); None: the family has no judge.
    judged_output: str | None = None
    #: "module:function" counting a stored result's items left unscored; None: the family never leaves any.
    unscored: str | None = None
    screen: ScreenSpec = ScreenSpec()
    #: The explanation's first lost line is the headline arithmetic, not a loss (one-line summaries skip it).
    leads_with_arithmetic: bool = False


FAMILY_SPECS: dict[str, Family] = {
    "sequencing": Family(
        module="agenticvbench.verifiers.sequencing",
        headline_field="adjusted_final_score",
        explainer="agenticvbench.verifiers.sequencing:explain_sequencing",
        leads_with_arithmetic=True,
    ),
    "assembly": Family(
        module="agenticvbench.verifiers.assembly",
        headline_field="adjusted_final_score",
        explainer="agenticvbench.verifiers.assembly:explain_assembly",
    ),
    "repair": Family(
        module="agenticvbench.verifiers.repair.verifier",
        headline_field="final_score",
        explainer="agenticvbench.verifiers.repair.explain:explain_repair",
        screen=ScreenSpec(identical_to_input=True, sparse_video=("fixed.mp4",)),
    ),
    "recap": Family(
        module="agenticvbench.verifiers.recap.verifier",
        headline_field="final_score",
        explainer="agenticvbench.verifiers.recap.explain:explain_recap",
        judged_output="final.mp4",
        unscored="agenticvbench.verifiers.recap.explain:unscored_items",
        screen=ScreenSpec(max_output_s=4 * 3600.0, identical_to_input=True, near_copy_of_input=True),
    ),
}
_REGISTRY: dict[str, Verifier] = {}
_CLASSES: dict[str, type] = {}  # the class each built-in module registered, to rebuild a removed entry
T = TypeVar("T")


def register(family: str):
    """Class decorator: instantiate the verifier class and register it for `family`, unless a verifier is already
    registered for it (a verifier set explicitly, e.g. a test's or a plug-in's, survives a later import of the
    built-in module, which other modules may trigger at any time)."""

    def deco(cls: type[T]) -> type[T]:
        _CLASSES[family] = cls
        _REGISTRY.setdefault(family, cls())  # type: ignore[arg-type]
        return cls

    return deco


def get_verifier(family: str) -> Verifier:
    """Return the verifier for `family`, importing its module if needed; KeyError for an unknown family.

    A built-in family whose module was imported but whose entry was removed since (a test or plug-in that swapped
    it and put nothing back) gets a fresh instance of its registered class, instead of a KeyError that depended on
    what ran before."""
    if family not in _REGISTRY:
        if family not in FAMILY_SPECS:
            raise KeyError(f"no verifier for family {family!r}")
        importlib.import_module(FAMILY_SPECS[family].module)
        if family not in _REGISTRY and family in _CLASSES:
            _REGISTRY[family] = _CLASSES[family]()
    return _REGISTRY[family]


def families() -> list[str]:
    """Every family that has a verifier module."""
    return list(FAMILY_SPECS)


def headline_field(family: str) -> HeadlineField:
    """The result field that is `family`'s headline (what leaderboards average), without importing the family's
    module for a built-in family; a plug-in family's registered verifier says. KeyError for an unknown family."""
    if family in FAMILY_SPECS:
        return FAMILY_SPECS[family].headline_field
    if family in _REGISTRY:
        return _REGISTRY[family].headline_field
    raise KeyError(f"no verifier for family {family!r}")


def family_explainer(family: str) -> Callable[[Result], FamilyExplanation] | None:
    """The function that explains a stored, scored result of `family`: for a built-in family the light function
    `FAMILY_SPECS` names (importing no decoder), for a plug-in its registered verifier's `explain`; None when the
    family has none (reports then show the generic explanation)."""
    spec = FAMILY_SPECS.get(family)
    return _hook(spec.explainer) if spec is not None else _plugin(family, "explain", None)


def _hook(ref: str) -> Any:
    """The function a "module:function" hook names, importing its (light) module on first use."""
    module, name = ref.split(":")
    return getattr(importlib.import_module(module), name)


def _plugin(family: str, name: str, default: Any) -> Any:
    """Attribute `name` of the verifier registered for a plug-in family, `default` when it has none."""
    return getattr(_REGISTRY.get(family), name, default)


def _declared(family: str, name: str, default: Any) -> Any:
    """Field `name` of a built-in family's `Family` spec, else the plug-in verifier's attribute of that name."""
    spec = FAMILY_SPECS.get(family)
    return getattr(spec, name) if spec is not None else _plugin(family, name, default)


def judged_output(family: str) -> str | None:
    """The output file an LLM judge watches for `family` (recap: `final.mp4`); None for a family without a judge."""
    return _declared(family, "judged_output", None)


def uses_judge(family: str) -> bool:
    """True when `family`'s scores depend on an LLM judge (its identity is part of a result's fingerprint)."""
    return judged_output(family) is not None


def unscored_items(result: Result) -> int:
    """How many of a stored result's items were left unscored (a judge off, failed or a replay miss); 0 for a
    family that never leaves any. The one reader of that count: reuse, the run summary, comparability."""
    spec = FAMILY_SPECS.get(result.family)
    if spec is None:
        fn = _plugin(result.family, "unscored_items", None)
    else:
        fn = _hook(spec.unscored) if spec.unscored else None
    return int(fn(result)) if fn is not None else 0


def screen_spec(family: str) -> ScreenSpec:
    """How `family`'s submitted media are screened (`ScreenSpec`; the defaults for a family nobody declared)."""
    return _declared(family, "screen", ScreenSpec())


def explanation_leads_with_arithmetic(family: str) -> bool:
    """True when `family`'s explanation opens its lost lines with the headline's arithmetic (sequencing), which
    a one-line summary leaves out unless it is all there is."""
    return bool(_declared(family, "leads_with_arithmetic", False))


def headline_name(family: str) -> str:
    """`headline_field(family)`, or `headline_score` (the stored copy every result carries) for a family no
    verifier knows, e.g. in a hand-edited result file: for labels, never raises."""
    try:
        return headline_field(family)
    except KeyError:
        return "headline_score"


def headline_rule(join: str = " and ") -> str:
    """The headline rule in words, e.g. `adjusted_final_score for sequencing and assembly, final_score for repair
    and recap` (`join` between family names), for captions that state it."""
    by_field: dict[str, list[str]] = {}
    for fam in FAMILY_SPECS:
        by_field.setdefault(headline_field(fam), []).append(fam)
    return ", ".join(f"{f} for {join.join(fams)}" for f, fams in by_field.items())
