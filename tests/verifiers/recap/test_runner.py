"""The rubric runner with an injected fake kind registry and a stub judge: dispatch and compound semantics."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from agenticvbench.judge.client import JudgeCall, JudgeRequest
from agenticvbench.verifiers.recap.rubric import RubricError, parse_rubric
from agenticvbench.verifiers.recap.runner import (
    KindBackend,
    default_backend,
    fill_placeholders,
    run_rubric,
    upstream_fill_note,
)


@dataclass
class FakeResult:
    passed: bool
    evidence: str
    error: str = ""


class FakeUnknownKind(LookupError):
    pass


class FakeKinds:
    """Kinds `ok_*` pass, `bad_*` fail, `boom` raises, `err` returns an error; records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def __call__(self, kind: str, params: dict, facts: object) -> FakeResult:
        self.calls.append((kind, params))
        if kind == "boom":
            raise RuntimeError("probe exploded")
        if kind == "err":
            return FakeResult(False, "", error="missing parameter 'min'")
        if kind.startswith("ok_"):
            return FakeResult(True, f"{kind} evidence {params}")
        if kind.startswith("bad_"):
            return FakeResult(False, f"{kind} saw 95.0s")
        raise FakeUnknownKind(kind)


class StubJudge:
    """Answers `fail` when the prompt contains FAIL, `unscored` for SKIP, else `pass`; records batches."""

    def __init__(self) -> None:
        self.batches: list[list[JudgeRequest]] = []

    def judge_many(self, requests: list[JudgeRequest]) -> list[JudgeCall]:
        self.batches.append(list(requests))
        out = []
        for r in requests:
            outcome = "fail" if "FAIL" in r.prompt else "unscored" if "SKIP" in r.prompt else "pass"
            out.append(JudgeCall(item_id=r.item_id, outcome=outcome, reason=f"judge said {outcome}"))
        return out


@pytest.fixture
def kinds() -> FakeKinds:
    return FakeKinds()


def run(raw: list[dict], kinds: FakeKinds, judge: StubJudge | None = None, known: set | None = None):
    backend = KindBackend(
        run_kind=kinds,
        make_facts=lambda p, c: object(),
        known_kinds=frozenset(known) if known else None,
        unknown_kind_errors=(FakeUnknownKind,),
    )
    items, _ = parse_rubric(raw, known_kinds=backend.known_kinds)
    judge = judge or StubJudge()
    report = run_rubric(items, facts=object(), judge=judge, backend=backend)
    return {r.item.id: r for r in report.results}, judge, report


def test_fill_placeholders_never_crashes_on_braces() -> None:
    """D-C2: upstream str.format crashed the whole task on a lone brace and left the prompt raw on a missing key."""
    ev = {"dur": "duration 61.2s", "ffprobe_resolution_eq": "1920x1080"}
    assert (
        fill_placeholders("Given {dur} and {ffprobe_resolution_eq}.", ev)
        == "Given duration 61.2s and 1920x1080."
    )
    assert (
        fill_placeholders('Reply {"pass": true} for {dur}', ev) == 'Reply {"pass": true} for duration 61.2s'
    )
    assert (
        fill_placeholders("lone { brace and {unknown} and {dur}", ev)
        == "lone { brace and {unknown} and duration 61.2s"
    )
    assert fill_placeholders("a } b {{literal}} {0} {}", ev) == "a } b {literal} {0} {}"


def test_dispatch_python_and_llm(kinds) -> None:
    res, judge, report = run(
        [
            {"id": "P1", "dispatch": "python", "kind": "ok_dur", "params": {"min": 1, "max": None}},
            {"id": "P2", "dispatch": "python", "kind": "bad_dur"},
            {"id": "L1", "dispatch": "llm", "prompt": "Has a title"},
            {"id": "L2", "dispatch": "llm", "criterion": "FAIL this one"},
            {"id": "L3", "dispatch": "llm", "prompt": "SKIP me"},
        ],
        kinds,
    )
    assert kinds.calls[0] == ("ok_dur", {"min": 1})  # None params stripped
    assert [res[i].outcome for i in ("P1", "P2", "L1", "L2", "L3")] == [
        "pass",
        "fail",
        "pass",
        "fail",
        "unscored",
    ]
    assert res["P2"].reason == "bad_dur saw 95.0s" and res["L1"].reason == "judge said pass"
    assert res["L2"].judge_prompt == "FAIL this one"
    assert len(judge.batches) == 1 and [r.item_id for r in judge.batches[0]] == ["L1", "L2", "L3"]
    assert res["L3"].official() == {
        "item_id": "L3",
        "dispatch": "llm",
        "weight": 1.0,
        "pillar": 0,
        "passed": None,
        "score": None,
        "reason": "judge said unscored",
    }
    assert [r.item.id for r in report.results] == ["P1", "P2", "L1", "L2", "L3"]
    assert set(report.timings) == {"python_s", "judge_s"}


def test_kind_exceptions_and_errors_fail_the_item(kinds) -> None:
    res, _, _ = run(
        [{"id": "B", "dispatch": "python", "kind": "boom"}, {"id": "E", "dispatch": "python", "kind": "err"}],
        kinds,
    )
    assert res["B"].outcome == "fail" and res["B"].reason == "error in boom: probe exploded"
    assert res["E"].outcome == "fail" and "missing parameter 'min'" in res["E"].reason


def test_unknown_kind_at_run_time_is_a_rubric_error(kinds) -> None:
    """D-C4: when the kind list is not known up front, the runner still refuses an unknown kind."""
    with pytest.raises(RubricError, match=r"\('X'\): unknown kind 'mystery'"):
        run([{"id": "X", "dispatch": "python", "kind": "mystery"}], kinds)


def test_compound_fills_evidence_into_first_llm_stage(kinds) -> None:
    res, judge, _ = run(
        [
            {
                "id": "C",
                "dispatch": "compound",
                "stages": [
                    {"dispatch": "python", "kind": "ok_dur", "params": {"min": 1}, "save_as": "dur"},
                    {"dispatch": "python", "kind": "ok_res"},
                    {
                        "dispatch": "llm",
                        "prompt": 'Given {dur} and {ok_res}, answer {"pass": bool}; keep {other} and {',
                    },
                    {"dispatch": "python", "kind": "boom"},
                    {"dispatch": "llm", "prompt": "FAIL second llm stage"},
                ],
            }
        ],
        kinds,
    )
    prompt = judge.batches[0][0].prompt
    assert prompt == (
        "Given ok_dur evidence {'min': 1} and ok_res evidence {}, answer {\"pass\": bool}; keep {other} and {"
    )
    assert res["C"].outcome == "pass" and res["C"].evidence == {
        "dur": "ok_dur evidence {'min': 1}",
        "ok_res": "ok_res evidence {}",
    }
    assert [k for k, _ in kinds.calls] == ["ok_dur", "ok_res"]  # stages after the first llm stage are ignored


def test_compound_failing_python_stage_fails_immediately(kinds) -> None:
    res, judge, _ = run(
        [
            {
                "id": "C",
                "dispatch": "compound",
                "stages": [
                    {"dispatch": "python", "kind": "bad_dur", "save_as": "dur"},
                    {"dispatch": "python", "kind": "ok_res"},
                    {"dispatch": "llm", "prompt": "never asked"},
                ],
            }
        ],
        kinds,
    )
    assert res["C"].outcome == "fail"
    assert res["C"].reason == "python stage 'bad_dur' failed: bad_dur saw 95.0s"
    assert judge.batches == [[]] and [k for k, _ in kinds.calls] == ["bad_dur"]


def test_compound_without_llm_stage_and_empty_stages(kinds) -> None:
    res, judge, _ = run(
        [
            {
                "id": "ALL",
                "dispatch": "compound",
                "stages": [{"dispatch": "python", "kind": "ok_a"}, {"dispatch": "python", "kind": "ok_b"}],
            },
            {"id": "EMPTY", "dispatch": "compound", "stages": []},
            {"id": "NONE", "dispatch": "compound", "stages": None},
        ],
        kinds,
    )
    assert [res[i].outcome for i in ("ALL", "EMPTY", "NONE")] == ["pass", "pass", "pass"]
    assert judge.batches == [[]]


def test_compound_llm_verdict_is_the_item_result(kinds) -> None:
    res, _, _ = run(
        [
            {
                "id": "C",
                "dispatch": "compound",
                "stages": [
                    {"dispatch": "python", "kind": "ok_dur"},
                    {"dispatch": "llm", "prompt": "FAIL given {ok_dur}"},
                ],
            }
        ],
        kinds,
    )
    assert res["C"].outcome == "fail" and res["C"].detail()["judge_prompt"].startswith(
        "FAIL given ok_dur evidence"
    )


def test_default_backend_uses_the_real_kind_registry() -> None:
    backend = default_backend()
    assert backend.known_kinds is not None and len(backend.known_kinds) == 20
    assert {
        "ffprobe_duration_range",
        "scenedetect_median_shot_duration",
        "ffmpeg_decode_no_errors",
    } <= backend.known_kinds
    assert backend.loudness_facts is not None and backend.unknown_kind_errors


def test_upstream_fill_differences_are_noted(kinds) -> None:
    """D-C2: say where upstream's str.format would have crashed (lone brace) or sent the prompt unfilled."""
    assert upstream_fill_note("Given {dur}", {"dur": "x"}) is None
    assert "crashed" in upstream_fill_note("Given {dur} and a lone {", {"dur": "x"})
    assert "unfilled" in upstream_fill_note("Given {missing}", {"dur": "x"})
    res, _, _ = run(
        [
            {
                "id": "C",
                "dispatch": "compound",
                "stages": [
                    {"dispatch": "python", "kind": "ok_dur", "save_as": "dur"},
                    {"dispatch": "llm", "prompt": "{dur} }"},
                ],
            }
        ],
        kinds,
    )
    assert (
        len(res["C"].notes) == 1
        and "D-C2" in res["C"].notes[0]
        and res["C"].detail()["notes"] == res["C"].notes
    )


def test_kind_error_is_prefixed_once_with_the_real_backend(main_clip) -> None:
    """Regression: `kinds.run_kind` already reports `error in <kind>: ...`, and the runner prefixed it again
    ("error in ffprobe_duration_range: error in ffprobe_duration_range: missing parameter 'max'"). Uses the
    real kinds backend, since a stub would not show what the real error text looks like."""
    backend = default_backend()
    items, _ = parse_rubric(
        [
            {"id": "D", "dispatch": "python", "kind": "ffprobe_duration_range", "params": {"min": 1}},
            {
                "id": "C",
                "dispatch": "compound",
                "stages": [{"dispatch": "python", "kind": "ffprobe_duration_range", "params": {"min": 1}}],
            },
        ],
        known_kinds=backend.known_kinds,
    )
    report = run_rubric(items, facts=backend.make_facts(main_clip, None), judge=StubJudge(), backend=backend)
    direct, compound = report.results
    assert (
        direct.outcome == "fail"
        and direct.reason == "error in ffprobe_duration_range: missing parameter 'max'"
    )
    assert compound.outcome == "fail" and compound.reason.count("error in ffprobe_duration_range:") == 1
