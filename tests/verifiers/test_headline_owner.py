"""One owner of the headline rule: the registry's `FAMILY_SPECS`. Everything else (each verifier's
`headline_field`, `VerifierOutcome.headline`, the engine's `headline_score`, the aggregate's caption, `avb explain`,
Harbor's reward and the OpenVibe export) must agree with it for every family."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agenticvbench.analysis.aggregate import group_headline
from agenticvbench.analysis.explain import explain_result
from agenticvbench.analysis.task_universe import task_universe
from agenticvbench.harbor.reward import reward_from_result
from agenticvbench.results.model import Result
from agenticvbench.verifiers import FAMILY_SPECS, families, headline_field, headline_name
from agenticvbench.verifiers.assembly import AssemblyVerifier
from agenticvbench.verifiers.base import VerifierOutcome
from agenticvbench.verifiers.recap import RecapVerifier
from agenticvbench.verifiers.repair import RepairVerifier
from agenticvbench.verifiers.sequencing import SequencingVerifier

#: The published rule, written out independently of the registry: PhiloLabs/AgentVBench REPRODUCE.md at f058cd6,
#: step 3 (recap uses final_score of this package's rubric runner).
EXPECTED = {
    "sequencing": "adjusted_final_score",
    "assembly": "adjusted_final_score",
    "repair": "final_score",
    "recap": "final_score",
}
VERIFIERS = {
    "sequencing": SequencingVerifier,
    "assembly": AssemblyVerifier,
    "repair": RepairVerifier,
    "recap": RecapVerifier,
}  # the classes (other tests swap registry entries)
TASK_OF = {"recap": 1, "sequencing": 37, "repair": 65, "assembly": 83}


def _result(family: str) -> Result:
    final, adjusted = 0.7, (0.4 if EXPECTED[family] == "adjusted_final_score" else None)
    return Result(
        task_id=TASK_OF[family],
        family=family,
        status="scored",
        final_score=final,
        adjusted_final_score=adjusted,
        headline_score=adjusted if adjusted is not None else final,
        run={"path": "/runs/h__m__r1", "harness": "h", "model": "m", "rep": 1},
    )


def test_registry_states_the_published_rule() -> None:
    """The registry is the owner; it must hold the published rule for every family."""
    assert families() == list(EXPECTED)
    assert {f: headline_field(f) for f in families()} == EXPECTED


@pytest.mark.parametrize("family", list(EXPECTED))
def test_everything_asks_the_one_owner(family: str) -> None:
    """The verifier, its outcome, the aggregate caption, explain and the Harbor reward give the same field."""
    verifier = VERIFIERS[family]
    assert verifier.headline_field == FAMILY_SPECS[family].headline_field == EXPECTED[family]
    outcome = VerifierOutcome(final_score=0.7, adjusted_final_score=0.4)
    assert outcome.headline(verifier.headline_field) == (
        0.4 if EXPECTED[family] == "adjusted_final_score" else 0.7
    )
    r = _result(family)
    head = group_headline([r], task_universe([r]), resamples=0).families[family]
    assert head.aggregation.startswith(f"mean of {EXPECTED[family]} over ")
    assert explain_result(r).headline_field == EXPECTED[family]
    as_json = {"final_score": r.final_score, "adjusted_final_score": r.adjusted_final_score}
    assert reward_from_result(family, as_json)["reward"] == getattr(r, EXPECTED[family])


def test_outcome_without_its_headline_field_has_no_headline() -> None:
    """A sequencing-like verifier that forgot adjusted_final_score gets None (the engine refuses it) instead of
    silently falling back to final_score, as the old 'adjusted if present' rule did."""
    assert VerifierOutcome(final_score=0.7).headline("adjusted_final_score") is None


def test_unknown_family_label_does_not_raise() -> None:
    """A hand-edited result with an unknown family still gets a label in explain and the aggregate."""
    assert headline_name("nonsense") == "headline_score"
    with pytest.raises(KeyError):
        headline_field("nonsense")


def test_asking_the_owner_imports_no_family_module() -> None:
    """Reports ask the registry; that must not import a verifier module (repair pulls in PyAV, recap OpenCV)."""
    code = (
        "import sys; from agenticvbench.verifiers import headline_field, headline_rule; "
        "[headline_field(f) for f in ('sequencing', 'assembly', 'repair', 'recap')]; headline_rule(); "
        "import agenticvbench.analysis.aggregate; "
        "print(sorted(m for m in sys.modules if m.startswith('agenticvbench.verifiers.') or m in ('av', 'cv2')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
