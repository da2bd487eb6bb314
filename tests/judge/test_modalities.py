"""Audio, audio-visual and video items through the fake endpoint: the parts sent, capability probes (2xx/4xx,
cached), items the judge cannot receive, and what changes the verdict cache key."""

from __future__ import annotations

import base64

import pytest

from agenticvbench.judge import JudgeCache, JudgeRequest, VideoJudge
from agenticvbench.judge.probe import PROBE_TEXT
from agenticvbench.judge.routing import route_item

AUDIO = JudgeRequest("A-1", "Is background music audible?", route=route_item("llm", (), "music audible"))
VISUAL = JudgeRequest("V-1", "Is the title card legible?", route=route_item("llm", (), "title card"))
BOTH = JudgeRequest(
    "AV-1", "Does music play over the title card?", route=route_item("llm", (), "music title card")
)
VIDEO = JudgeRequest(
    "VID-1", "Do cuts land on the beat of the music?", route=route_item("llm", (), "beat music")
)


def test_probe_marker_matches_the_fake(fake) -> None:
    assert fake.PROBE_MARKER in PROBE_TEXT


def test_audio_item_sends_the_audio_itself(clip, server, make_settings, fake) -> None:
    judge = VideoJudge(make_settings(server.base_url), clip)
    call = judge.judge(AUDIO)
    assert call.outcome == "pass" and (call.modality, call.delivery) == ("audio", ["audio"])
    body = server.requests[0]
    assert fake.part_kinds(body) == ["audio"]  # no frames for an audio item
    part = fake.media_parts(body)[0]
    assert part["type"] == "input_audio" and part["input_audio"]["format"] == "mp3"
    assert call.media_bytes["audio"] == len(base64.b64decode(part["input_audio"]["data"]))
    assert call.prompt_tokens == fake.PROMPT_BASE_TOKENS + fake.TOKENS_PER_AUDIO
    assert judge.stats.by_modality["audio"]["calls"] == 1 and judge.stats.calls == 1
    assert judge.stats.probes == 1 and server.probe_calls == 1  # probes are not calls
    assert judge.stats.capabilities[0]["part"] == "audio" and judge.stats.capabilities[0]["supported"]


def test_audio_visual_and_video_items(clip, server, make_settings, fake) -> None:
    judge = VideoJudge(make_settings(server.base_url, max_frames=2), clip)
    both, video = judge.judge(BOTH), judge.judge(VIDEO)
    assert both.delivery == ["image", "audio"] and video.delivery == ["video"]
    kinds = {fake.request_text(b).split("Criterion:")[1][:20]: fake.part_kinds(b) for b in server.requests}
    assert sorted(map(tuple, kinds.values())) == [("image", "image", "audio"), ("video",)]


def test_video_falls_back_to_frames_and_audio_when_refused(clip, server, make_settings, fake) -> None:
    server.refuse("video")
    judge = VideoJudge(make_settings(server.base_url), clip)
    call = judge.judge(VIDEO)
    assert call.outcome == "pass" and call.delivery == ["image", "audio"]
    assert any("video parts refused" in n for n in judge.stats.notes)
    assert {c["part"]: c["supported"] for c in judge.stats.capabilities} == {
        "video": False,
        "image": True,
        "audio": True,
    }


def test_refused_audio_is_unscored_with_the_missing_capability(clip, server, make_settings, tmp_path) -> None:
    server.refuse("audio")
    judge = VideoJudge(make_settings(server.base_url), clip, cache=JudgeCache(tmp_path / "judge"))
    audio, visual = judge.judge(AUDIO), judge.judge(VISUAL)
    assert audio.outcome == "unscored" and visual.outcome == "pass"
    assert "cannot receive audio input" in audio.reason and "audio (HTTP 400)" in audio.reason
    assert server.calls == 1  # only the visual item was asked: never graded blind


def test_audio_url_style_when_input_audio_is_refused(clip, server, make_settings, fake) -> None:
    server.refuse("input_audio")
    judge = VideoJudge(make_settings(server.base_url), clip)
    call = judge.judge(AUDIO)
    assert call.outcome == "pass"
    part = fake.media_parts(server.requests[0])[0]
    assert part["type"] == "audio_url" and part["audio_url"]["url"].startswith("data:audio/mpeg;base64,")
    styles = [(c["style"], c["supported"]) for c in judge.stats.capabilities]
    assert styles == [("audio_url", True)]


def test_probes_are_cached_on_disk(clip, server, make_settings, tmp_path) -> None:
    s = make_settings(server.base_url)
    VideoJudge(s, clip, cache=JudgeCache(tmp_path / "judge")).judge(AUDIO)
    assert server.probe_calls == 1 and list((tmp_path / "judge" / "probes").glob("*.json"))
    again = VideoJudge(s, clip, cache=JudgeCache(tmp_path / "judge"))
    again.judge(JudgeRequest("A-2", "Is the narration audible?", route=AUDIO.route))
    assert server.probe_calls == 1 and again.stats.probes == 0 and server.calls == 2
    assert again.stats.capabilities[0]["status"] == 200


def test_probe_status_decides_not_the_reply(clip, server, make_settings) -> None:
    """A probe answered 200 with a reply that says nothing useful still means 'supported'."""
    server.reply_when("avb-capability-probe", "I cannot hear audio")
    call = VideoJudge(make_settings(server.base_url), clip).judge(AUDIO)
    assert call.outcome == "pass"


def test_inconclusive_probe_is_unscored_and_not_cached(clip, server, make_settings, tmp_path) -> None:
    server.refuse("audio", status=503)
    judge = VideoJudge(make_settings(server.base_url, max_retries=0), clip, cache=JudgeCache(tmp_path / "j"))
    call = judge.judge(AUDIO)
    assert call.outcome == "unscored" and "capability probe (audio) failed" in call.reason
    assert not list((tmp_path / "j").glob("probes/*.json"))


def test_audio_encoding_and_profile_change_the_cache_key(clip, server, make_settings, tmp_path) -> None:
    cache = JudgeCache(tmp_path / "judge")
    s = make_settings(server.base_url)
    assert not VideoJudge(s, clip, cache=cache).judge(AUDIO).cached
    assert VideoJudge(s, clip, cache=cache).judge(AUDIO).cached
    for changed in (
        s.with_(audio_format="wav"),
        s.with_(audio_bitrate_kbps=64),
        s.with_(audio_max_s=5.0),
        s.with_(profile="violation"),
    ):
        assert not VideoJudge(changed, clip, cache=cache).judge(AUDIO).cached, changed
    # frames-only items keep the legacy key: the frame sampling is all that matters there
    assert not VideoJudge(s, clip, cache=cache).judge(VISUAL).cached
    assert VideoJudge(s.with_(audio_format="wav"), clip, cache=cache).judge(VISUAL).cached


def test_wav_audio_and_a_named_time_range(clip, server, make_settings, fake) -> None:
    judge = VideoJudge(make_settings(server.base_url, audio_format="wav"), clip)
    req = JudgeRequest("A-3", "Between 0.5 and 1.0 s music is audible.", route=AUDIO.route)
    assert judge.judge(req).outcome == "pass"
    part = fake.media_parts(server.requests[0])[0]
    data = base64.b64decode(part["input_audio"]["data"])
    assert part["input_audio"]["format"] == "wav" and data[:4] == b"RIFF"
    assert len(data) == pytest.approx(44 + 0.5 * 16000 * 2, abs=400)  # mono 16 kHz, 0.5 s only
    assert "from t=0.50 s to t=1.00 s" in fake.request_text(server.requests[0])


def test_audio_model_gets_the_audio_items(clip, server, make_settings) -> None:
    s = make_settings(server.base_url, modality_judges={"audio": {"model": "audio-model"}})
    judge = VideoJudge(s, clip)
    judge.judge_many([AUDIO, VISUAL])
    assert sorted(b["model"] for b in server.requests) == ["audio-model", "gpt-4o-mini"]


def test_replay_reads_audio_verdicts_without_probing(clip, server, make_settings, tmp_path) -> None:
    cache = JudgeCache(tmp_path / "judge")
    s = make_settings(server.base_url)
    VideoJudge(s, clip, cache=cache).judge(AUDIO)
    probes = server.probe_calls
    call = VideoJudge(s.with_(mode="replay"), clip, cache=cache).judge(AUDIO)
    assert call.cached and call.outcome == "pass" and server.probe_calls == probes


def test_fake_endpoint_through_the_environment(clip, server, monkeypatch, fake) -> None:
    """`$AVB_JUDGE_BASE_URL` pointing at the fake is honoured; the fake checks what it accepts."""
    from agenticvbench.judge import JudgeSettings

    monkeypatch.setenv("AVB_JUDGE_BASE_URL", server.base_url)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    s = JudgeSettings.from_env(max_frames=2, max_side=32)
    assert VideoJudge(s, clip).judge(AUDIO).outcome == "pass" and server.calls == 1
    assert fake.part_problem({"type": "input_audio", "input_audio": {"data": "AAAA", "format": "mp3"}})
    assert fake.part_problem({"type": "video_url", "video_url": {"url": "data:video/mp4;base64,AAAA"}})


def test_explain_names_the_profile_and_each_route(clip, server, make_settings, tmp_path) -> None:
    from agenticvbench.results.model import Result
    from agenticvbench.verifiers.recap import score_recap
    from agenticvbench.verifiers.recap.explain import explain_recap

    items = [
        {"id": "V-1", "dispatch": "llm", "prompt": "The title card is legible.", "weight": 1},
        {"id": "A-1", "dispatch": "llm", "prompt": "Music is audible.", "weight": 1},
    ]
    out = score_recap(
        clip, items, judge_settings=make_settings(server.base_url), cache_dir=tmp_path, task_id=1
    )
    result = Result(
        task_id=1,
        family="recap",
        status="scored",
        final_score=out.final_score,
        detail=out.detail,
        provenance=out.provenance,
    )
    lines = explain_recap(result).sections["judge"]
    assert lines[0].startswith("profile legacy (template recap-judge-v1)")
    assert "A-1: audio (rule sound: music, audible); audio" in lines
    assert "V-1: visual (rule picture); image" in lines
