"""The recap verifier end to end: real python kinds on a tiny clip, the judge on the loopback fake endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import openai_server
import pytest

from agenticvbench.dataset.tasks import RecapTask
from agenticvbench.judge import JudgeSettings, prompt_hash
from agenticvbench.runs.submission import Submission
from agenticvbench.verifiers import get_verifier
from agenticvbench.verifiers.base import VerifyContext
from agenticvbench.verifiers.recap import RecapVerifier, score_recap

fake = openai_server  # the loopback OpenAI-compatible server (tests/openai_server.py)

DUR_OK = {"dispatch": "python", "kind": "ffprobe_duration_range", "params": {"min": 1, "max": 3}}
ITEMS = [
    {"id": "F-01", **DUR_OK, "weight": 1, "pillar": 0},
    {
        "id": "F-02",
        "dispatch": "python",
        "kind": "ffprobe_resolution_eq",
        "params": {"width": 1920, "height": 1080},
        "weight": 1,
        "pillar": 0,
    },
    {
        "id": "N-01",
        "dispatch": "llm",
        "prompt": "The recap opens on a colourful test pattern.",
        "weight": 2,
        "pillar": 2,
    },
    {
        "id": "N-02",
        "dispatch": "llm",
        "prompt": "MARK-FAIL The story is told in order.",
        "weight": 1,
        "pillar": 2,
    },
    {
        "id": "C-01",
        "dispatch": "compound",
        "weight": 1,
        "pillar": 1,
        "stages": [
            {**DUR_OK, "save_as": "dur"},
            {
                "dispatch": "llm",
                "prompt": 'Measured: {dur}. Is the pacing brisk? Answer {"pass": true|false}.',
            },
        ],
    },
    {
        "id": "X-01",
        "dispatch": "python",
        "kind": "ffprobe_audio_streams",
        "params": {"eq": 0},
        "weight": -1,
        "pillar": 3,
    },
]


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fake.make_clip(tmp_path_factory.mktemp("recap-verifier") / "final.mp4")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "AVB_JUDGE_MODE",
        "AVB_JUDGE_MODEL",
        "AVB_JUDGE_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    with fake.FakeOpenAIServer() as srv:
        srv.reply_when("MARK-FAIL", '{"pass": false, "reason": "scripted failure"}')
        yield srv


def settings(base_url: str, **kw) -> JudgeSettings:
    return JudgeSettings(
        base_url=base_url,
        max_frames=2,
        max_side=32,
        backoff_s=0.01,
        backoff_max_s=0.02,
        max_retries=1,
        timeout=10,
        **kw,
    )


def task(items: list[dict], task_id: int = 7) -> RecapTask:
    t = RecapTask(
        task_id=task_id,
        prompt="cut a recap",
        reference_file_urls=[],
        verifier_reference_urls=None,
        rubric_json=json.dumps(items),
    )
    t._parse(items)
    return t


def test_registered() -> None:
    assert isinstance(get_verifier("recap"), RecapVerifier)
    assert RecapVerifier.family == "recap" and RecapVerifier.version


def test_full_task_then_warm_rescore_makes_no_call(clip, server, tmp_path) -> None:
    sub = Submission(7, clip.parent)
    ctx = VerifyContext(cache_dir=tmp_path / "cache", judge=settings(server.base_url))
    verifier = get_verifier("recap")
    assert verifier.input_files(task(ITEMS), sub) == [clip]
    out = verifier.verify(task(ITEMS), sub, ctx)
    # earned F-01 1 + N-01 2 + C-01 1 = 4 of 6; X-01 (audio streams == 0) fails and deducts 1 -> 3 / 6
    assert (out.status, out.final_score, out.reason) == ("scored", 0.5, "")
    assert out.components["deducted_items"] == ["X-01"] and out.components["unscored"] == 0
    off = out.official
    assert set(off) == {"task_id", "n_items", "items", "pillar_breakdown", "final_score", "error"}
    assert (off["task_id"], off["n_items"], off["final_score"], off["error"]) == (7, 6, 0.5, "")
    assert [(i["item_id"], i["passed"], i["score"]) for i in off["items"]] == [
        ("F-01", True, 1),
        ("F-02", False, 0),
        ("N-01", True, 1),
        ("N-02", False, 0),
        ("C-01", True, 1),
        ("X-01", False, 0),
    ]
    assert off["items"][3]["reason"] == "scripted failure"
    assert off["pillar_breakdown"]["narrative"] == {"earned": 2.0, "max": 3.0, "score": 2 / 3}
    compound = next(d for d in out.detail["items"] if d["item_id"] == "C-01")
    assert compound["judge_prompt"].startswith("Measured: ") and "{dur}" not in compound["judge_prompt"]
    assert compound["judge_prompt"].endswith('Answer {"pass": true|false}.')
    assert out.warnings == [
        "item 'C-01': upstream would have sent this prompt unfilled (a placeholder has no saved evidence)"
    ]  # str.format reads {"pass": ...} as a field name
    prov = out.provenance
    assert (
        prov["judge_model"] == "gpt-4o-mini" and prov["judge_base_url_host"] == server.base_url.split("/")[2]
    )
    assert prov["prompt_template_version"] == "recap-judge-v1" and prov["prompt_hash"] == prompt_hash()
    judge = out.extra["judge"]
    assert (judge["calls"], judge["cache_hits"], judge["total_tokens"] > 0, judge["cost_usd"] > 0) == (
        3,
        0,
        True,
        True,
    )
    assert server.calls == 3

    again = verifier.verify(task(ITEMS), sub, ctx)
    assert server.calls == 3  # warm cache: not one request
    assert (
        again.final_score == 0.5
        and again.extra["judge"]["cache_hits"] == 3
        and again.extra["judge"]["calls"] == 0
    )


def test_sound_items_carry_measured_audio_facts(clip, server, tmp_path) -> None:
    """Items about sound get the real loudness measurements (the clip has a 440 Hz tone) in the request."""
    items = [
        {"id": "A-01", "dispatch": "llm", "prompt": "Background music is audible."},
        {"id": "V-01", "dispatch": "llm", "prompt": "The frame is colourful."},
    ]
    out = score_recap(clip, items, judge_settings=settings(server.base_url), cache_dir=tmp_path, task_id=2)
    assert out.final_score == 1.0
    texts = {
        fake.request_text(b).split("Criterion:")[-1].strip().splitlines()[0]: fake.request_text(b)
        for b in server.requests
    }
    assert (
        "integrated loudness:" in texts["Background music is audible."]
        and "LUFS" in texts["Background music is audible."]
    )
    assert "Audio track" not in texts["The frame is colourful."]
    assert [d["judge"]["audio_included"] for d in out.detail["items"]] == [True, False]


def test_judge_off_scores_python_items_only(clip, tmp_path) -> None:
    out = get_verifier("recap").verify(
        task(ITEMS), Submission(7, clip.parent), VerifyContext(cache_dir=tmp_path)
    )
    assert out.status == "scored" and out.components["unscored"] == 3
    assert out.reason.startswith("3 of 6 items unscored (judge off): N-01, N-02, C-01")
    assert any("covers only the 3 scored items" in w for w in out.warnings)
    # F-01 passes (1 of 2), X-01 fails and deducts 1 -> 0
    assert (out.components["earned"], out.components["total_positive"], out.final_score) == (1.0, 2.0, 0.0)
    assert [i["passed"] for i in out.official["items"]][2:5] == [None, None, None]
    assert out.provenance["judge_mode"] == "off"


def test_unreachable_endpoint_finishes_with_unscored_items(clip, tmp_path) -> None:
    dead = settings(f"http://127.0.0.1:{fake.closed_port()}/v1", max_concurrency=1)
    out = score_recap(clip, ITEMS[:3], judge_settings=dead, cache_dir=tmp_path, task_id=7)
    assert out.status == "scored" and out.components["unscored"] == 1
    assert "judge unavailable" in out.reason and "N-01" in out.reason
    assert out.final_score == 0.5  # F-01 of F-01 + F-02


def test_spec_worked_example_with_stubbed_judge(clip, server, tmp_path) -> None:
    """Formula worked example [ran, Gemini stubbed]: 9 positive items summing to 11, 7 passed, one failed -1 item."""
    items = [{"id": f"P{i}", **DUR_OK} for i in range(4)]
    items += [{"id": f"L{i}", "dispatch": "llm", "prompt": f"criterion {i}"} for i in range(3)]
    items += [{"id": f"F{i}", "dispatch": "llm", "prompt": f"MARK-FAIL {i}", "weight": 2} for i in range(2)]
    items += [{"id": "NEG", "dispatch": "llm", "prompt": "MARK-FAIL negative", "weight": -1}]
    out = score_recap(clip, items, judge_settings=settings(server.base_url), cache_dir=tmp_path, task_id=1)
    assert out.final_score == pytest.approx(6 / 11)
    assert (out.components["earned"], out.components["total_positive"], out.components["deductions"]) == (
        7,
        11,
        1,
    )


def test_missing_and_unreadable_final_mp4(tmp_path) -> None:
    verifier = get_verifier("recap")
    ctx = VerifyContext(cache_dir=tmp_path)
    empty = Submission(7, tmp_path / "7")
    out = verifier.verify(task(ITEMS), empty, ctx)
    assert (out.status, out.final_score, verifier.input_files(task(ITEMS), empty)) == ("missing", 0.0, [])
    assert "final.mp4" in out.reason and out.official["error"] == out.reason
    (tmp_path / "7").mkdir()
    (tmp_path / "7" / "final.mp4").write_bytes(b"")
    out = verifier.verify(task(ITEMS), empty, ctx)
    assert out.status == "malformed" and "final.mp4 is not a readable video" in out.reason


@pytest.mark.parametrize(
    "items, message",
    [
        ([], "rubric has no items"),
        (
            [{"id": "Q", "dispatch": "python", "kind": "ffprobe_teleport"}],
            "item #0 ('Q'): unknown kind 'ffprobe_teleport'",
        ),
        ([{"id": "Q", "dispatch": "agent", "prompt": "x"}], "item #0 ('Q'): unknown dispatch 'agent'"),
        ([{"dispatch": "llm", "prompt": "x"}], "item #0: missing 'id'"),
    ],
)
def test_malformed_rubric(clip, tmp_path, items, message) -> None:
    """D-C4: an invalid rubric is a malformed task naming the item, not silently failed items."""
    out = score_recap(clip, items, judge_settings=None, cache_dir=tmp_path, task_id=3)
    assert out.status == "malformed" and out.final_score == 0.0
    assert message in out.reason and out.official["error"] == out.reason
