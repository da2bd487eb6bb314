"""A family explains its own results: the registry names one light function per family, the verifier exposes the
same function as `explain`, and `avb explain` asks the registry instead of re-reading a family's detail keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agenticvbench import verifiers
from agenticvbench.analysis.explain import explain_result, lost_points
from agenticvbench.results.model import Result
from agenticvbench.verifiers import families, family_explainer
from agenticvbench.verifiers.assembly import AssemblyVerifier
from agenticvbench.verifiers.base import FamilyExplanation
from agenticvbench.verifiers.recap import RecapVerifier
from agenticvbench.verifiers.repair import RepairVerifier
from agenticvbench.verifiers.sequencing import SequencingVerifier

REPO = Path(__file__).resolve().parents[2]
VERIFIERS = {
    "sequencing": SequencingVerifier,
    "assembly": AssemblyVerifier,
    "repair": RepairVerifier,
    "recap": RecapVerifier,
}
RUN = {"path": "/runs/h__m__r1", "harness": "h", "model": "m", "rep": 1}


def _repair(detail: object) -> Result:
    return Result(
        task_id=65,
        family="repair",
        status="scored",
        final_score=0.5,
        headline_score=0.5,
        run=RUN,
        components={"format": 1.0, "localization": 0.0, "edit": 0.5},
        detail=detail,
    )  # type: ignore[arg-type]


@pytest.mark.parametrize("family", ["sequencing", "assembly", "repair", "recap"])
def test_the_verifier_and_the_registry_name_one_function(family: str) -> None:
    """One implementation: the verifier's `explain` is the very function the registry hands to reports."""
    assert family in families()
    assert VERIFIERS[family].explain is family_explainer(family)


@pytest.mark.slow
def test_explaining_repair_and_recap_loads_no_media_stack() -> None:
    """`avb report` explains every result; before the explanations moved beside the verifiers behind light
    package `__init__`s, reading a repair or recap result imported PyAV (the repair package's entry point)."""
    code = (
        "import sys, json\n"
        "from agenticvbench.results.model import Result\n"
        "from agenticvbench.analysis.explain import explain_result\n"
        "run = {'path': '/r/h__m__r1', 'harness': 'h', 'model': 'm', 'rep': 1}\n"
        "rep = Result(task_id=65, family='repair', status='scored', final_score=0.5, headline_score=0.5, run=run,\n"
        "             components={'format': 1.0, 'localization': 0.0, 'edit': 0.5},\n"
        "             detail={'edit': {'score': 30.0, 'chunks': [{'start_s': 0, 'end_s': 10, 'video_ssim_in': 0.2}]}})\n"
        "rec = Result(task_id=1, family='recap', status='scored', final_score=1.0, headline_score=1.0, run=run,\n"
        "             detail={'items': [{'item_id': 'a', 'weight': 1, 'outcome': 'fail', 'reason': 'r'}]})\n"
        "out = [explain_result(r).to_text() for r in (rep, rec)]\n"
        "heavy = ('av', 'cv2', 'openai', 'scenedetect', 'agenticvbench.verifiers.repair.verifier',\n"
        "         'agenticvbench.verifiers.recap.verifier', 'agenticvbench.media')\n"
        "print(json.dumps({'loaded': sorted(m for m in heavy if m in sys.modules), 'text': out}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    got = json.loads(proc.stdout)
    assert got["loaded"] == []
    assert "0-10 s: lowest similarity 0.200" in got["text"][0] and "a (lost 1): r" in got["text"][1]


def test_plugin_family_explains_itself_or_gets_the_generic_explanation(monkeypatch) -> None:
    """A plug-in family with `explain` is asked; one without it still gets an explanation, never a crash."""

    class WithExplain:
        family, version, headline_field = "plugin", "1", "final_score"

        def explain(self, result: Result) -> FamilyExplanation:
            return FamilyExplanation(computation="plugin maths", lost=["plugin lost"])

    class Without:
        family, version, headline_field = "bare", "1", "final_score"

    monkeypatch.setitem(verifiers._REGISTRY, "plugin", WithExplain())
    monkeypatch.setitem(verifiers._REGISTRY, "bare", Without())
    plugin = Result(
        task_id=7, family="plugin", status="scored", final_score=0.25, headline_score=0.25, run=RUN
    )
    bare = Result(task_id=8, family="bare", status="scored", final_score=0.75, headline_score=0.75, run=RUN)
    assert (explain_result(plugin).computation, lost_points(plugin)) == ("plugin maths", ["plugin lost"])
    assert explain_result(bare).computation == "headline_score = 0.7500" and lost_points(bare) == []


@pytest.mark.parametrize(
    "detail",
    [
        None,
        [],
        {"format": "x", "localization": 3, "edit": []},
        {"edit": {"chunks": "not a list"}},
        {"edit": {"chunks": [1, None, {"start_s": "x"}]}},
        {"format": {"items": {"fps": "x", "duration_s": {"pass": False, "fixed": 1, "source": 2}}}},
    ],
)
def test_a_hand_edited_repair_detail_explains_without_raising(detail: object) -> None:
    """Result files can be hand-edited: a detail part of the wrong type reads as empty, and the rubric maths
    (from the components, which the schema checks) is still shown."""
    ex = explain_result(_repair(detail))
    assert (
        ex.computation
        == "final_score = (format 5.00/5 + localization 0.00/35 + edit 30.00/60) / 100 = 0.5000"
    )
    assert ex.lost[:2] == [
        "localization: 0.000 of 1 (costs 35.0 of 100 points)",
        "edit: 0.500 of 1 (costs 30.0 of 100 points)",
    ]
    if isinstance(detail, dict) and "format" in detail and isinstance(detail["format"], dict):
        assert "duration_s: fixed 1 vs source 2" in ex.sections["format"]


def test_worst_chunks_are_the_lowest_similarity_first() -> None:
    """The chunk list is ordered by each chunk's lowest signal, computed here independently of the code."""
    chunks = [
        {"start_s": 10 * i, "end_s": 10 * i + 10, "video_ssim_in": s, "audio_xcorr_out": a}
        for i, (s, a) in enumerate([(0.9, 0.8), (0.3, 0.95), (0.7, 0.1), (0.99, 0.98)])
    ]
    lines = explain_result(_repair({"edit": {"score": 30.0, "chunks": chunks}})).sections["worst chunks"]
    floors = sorted((min(c["video_ssim_in"], c["audio_xcorr_out"]), c["start_s"]) for c in chunks)[:3]
    assert [line.split(" s:")[0] for line in lines] == [f"{s:g}-{s + 10:g}" for _, s in floors]
