"""Prompt profiles (legacy, violation), the judge config file, and one recap scoring with audio items end to end."""

from __future__ import annotations

import json

import pytest

from agenticvbench.judge import JudgeRequest, JudgeSettings, VideoJudge, prompts
from agenticvbench.judge.profiles import PROFILES, VIOLATION_HEADER, get_profile
from agenticvbench.judge.verdict import Verdict


def test_profile_hashes_are_pinned() -> None:
    for profile in PROFILES.values():
        assert prompts.KNOWN_HASHES[profile.template_version] == profile.prompt_hash()
    assert PROFILES["legacy"].prompt_hash() == prompts.prompt_hash()  # the legacy template is unchanged
    with pytest.raises(ValueError, match="legacy, violation"):
        get_profile("lenient")


@pytest.mark.parametrize(
    "fires_on, reply, outcome",
    [
        ("fail", Verdict("pass", "black gap at 3 s"), "fail"),  # violation present: the penalty fires
        ("fail", Verdict("fail", "no gap"), "pass"),
        ("pass", Verdict("pass", "present"), "pass"),  # narrative_essential false: passing deducts
        ("fail", Verdict("unscored", "unreadable"), "unscored"),
    ],
)
def test_violation_outcomes(fires_on: str, reply: Verdict, outcome: str) -> None:
    req = JudgeRequest("N-1", "There is a black gap.", fires_on=fires_on)  # type: ignore[arg-type]
    assert PROFILES["violation"].outcome(req, reply).outcome == outcome
    assert PROFILES["legacy"].outcome(req, reply) == reply


def test_violation_framing_is_sent_for_negative_items_only(clip, server, make_settings, fake) -> None:
    judge = VideoJudge(make_settings(server.base_url, profile="violation"), clip)
    server.reply_when("BLACK", '{"pass": false, "reason": "none seen"}')
    neg = judge.judge(JudgeRequest("N-1", "A BLACK gap shows.", fires_on="fail"))
    pos = judge.judge(JudgeRequest("P-1", "The title card shows."))
    assert neg.outcome == "pass" and neg.reason.startswith("violation not present")
    assert pos.outcome == "pass" and pos.profile == "violation"
    texts = {fake.request_text(b).count(VIOLATION_HEADER) for b in server.requests}
    assert texts == {0, 1}


def test_config_file_sets_modalities_and_options_override_it(tmp_path, monkeypatch) -> None:
    for var in ("AVB_JUDGE_MODEL", "AVB_JUDGE_PROFILE", "AVB_JUDGE_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    cfg = tmp_path / "judge.toml"
    cfg.write_text(
        'model = "file-model"\nprofile = "violation"\naudio_format = "wav"\n'
        '[modalities.video]\nmodel = "omni"\nbase_url = "http://omni.local:8000/v1"\n'
    )
    s = JudgeSettings.from_env(config=cfg, audio_model="hears")
    assert (s.model, s.profile, s.audio_format) == ("file-model", "violation", "wav")
    assert s.judge_for("video") == (("omni",), "http://omni.local:8000/v1")
    assert s.judge_for("audio") == (("hears",), None) and s.judge_for("visual") == (("file-model",), None)
    assert s.provenance()["judge_modalities"]["video"]["base_url_host"] == "omni.local:8000"
    monkeypatch.setenv("AVB_JUDGE_PROFILE", "legacy")
    assert JudgeSettings.from_env(config=cfg, model="flag").model == "flag"
    assert JudgeSettings.from_env(config=cfg).profile == "legacy"  # the environment beats the file
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"modalities": {"smell": {"model": "x"}}}))
    with pytest.raises(ValueError, match="unknown modality 'smell'"):
        JudgeSettings.from_env(config=bad)
    bad.write_text(json.dumps({"api_key": "sk-..."}))
    with pytest.raises(ValueError, match="unknown key 'api_key'"):
        JudgeSettings.from_env(config=bad)


def test_recap_scoring_with_audio_items_end_to_end(clip, fake, make_settings, tmp_path) -> None:
    """Through the recap verifier and the fake endpoint: the audio item is heard, the visual one seen, the
    routing is in the item detail, and the profile and capabilities in provenance."""
    from agenticvbench.verifiers.recap import score_recap

    items = [
        {"id": "V-1", "dispatch": "llm", "prompt": "The title card shows a colour pattern.", "weight": 1},
        {
            "id": "A-1",
            "dispatch": "llm",
            "prompt": "A steady tone is audible; the music never stops.",
            "weight": 1,
        },
        {"id": "N-1", "dispatch": "llm", "prompt": "The audio clips loudly (distortion).", "weight": -1},
    ]
    with fake.FakeOpenAIServer() as srv:
        srv.reply_when("distortion", '{"pass": false, "reason": "clean tone"}')
        settings = make_settings(srv.base_url, profile="violation")
        out = score_recap(clip, items, judge_settings=settings, cache_dir=tmp_path / "c", task_id=4)
        kinds = sorted(tuple(fake.part_kinds(b))[-1:] for b in srv.requests)
    assert out.status == "scored" and out.final_score == 1.0
    by_id = {d["item_id"]: d for d in out.detail["items"]}
    assert by_id["V-1"]["route"]["modality"] == "visual" and by_id["A-1"]["route"]["modality"] == "audio"
    assert by_id["A-1"]["judge"]["delivery"] == ["audio"] and by_id["N-1"]["outcome"] == "pass"
    assert by_id["N-1"]["reason"].startswith("violation not present")
    assert kinds == [("audio",), ("audio",), ("image",)]
    assert out.provenance["judge_profile"] == "violation"
    assert out.provenance["prompt_template_version"] == "recap-judge-violation-v1"
    assert {c["part"] for c in out.provenance["judge_capabilities"]} == {"image", "audio"}
    assert set(out.extra["judge"]["by_modality"]) == {"visual", "audio"}
