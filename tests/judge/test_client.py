"""The OpenAI-compatible judge client against the loopback fake endpoint: request shape, audio, retries, costs."""

from __future__ import annotations

import base64
import time

import cv2
import numpy as np
import pytest

from agenticvbench.judge import JudgeCache, JudgeRequest, VideoJudge, prompts
from agenticvbench.judge.media import sample_times, sample_video

FACTS = {"has_audio": True, "integrated_lufs": -23.0, "mean_volume_db": -25.5, "longest_silence_s": 0.0}


def test_sample_times() -> None:
    assert sample_times(2.0, 1.0, 16) == [0.0, 1.0]
    assert sample_times(10.0, 1.0, 4) == [1.25, 3.75, 6.25, 8.75]  # too many: slice midpoints
    assert sample_times(0.0, 1.0, 4) == [0.0]


def test_frames_are_sampled_and_downscaled(clip) -> None:
    video = sample_video(clip, frame_rate=2.0, max_frames=3, max_side=32)
    assert (video.width, video.height) == (64, 64)
    assert video.duration == pytest.approx(2.0)
    times = [t for t, _ in video.frames]
    assert times == pytest.approx([0.4, 1.0, 1.7], abs=0.051)  # first frame at/after each slice midpoint
    url = video.frames[0][1]
    assert url.startswith("data:image/jpeg;base64,")
    img = cv2.imdecode(np.frombuffer(base64.b64decode(url.split(",", 1)[1]), np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[:2] == (32, 32)


def test_request_shape_usage_and_cost(clip, server, make_settings, fake) -> None:
    s = make_settings(server.base_url, frame_rate=1.0, max_frames=4)
    judge = VideoJudge(s, clip)
    call = judge.judge(JudgeRequest("V-01", "The opening shot shows a colour test pattern."))
    assert (call.outcome, call.reason, call.cached, call.attempts) == ("pass", "criterion met", False, 1)
    body = server.requests[0]
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"][0] == {"role": "system", "content": prompts.SYSTEM_PROMPT}
    assert fake.n_images(body) == 2  # 2 s at 1 fps
    text = fake.request_text(body)
    assert "The opening shot shows a colour test pattern." in text and '"pass": true|false' in text
    assert prompts.AUDIO_HEADER not in text  # not a sound item
    p_tok = fake.PROMPT_BASE_TOKENS + 2 * fake.TOKENS_PER_IMAGE
    assert (call.prompt_tokens, call.completion_tokens) == (p_tok, fake.COMPLETION_TOKENS)
    assert call.cost_usd == pytest.approx((p_tok * 0.15 + fake.COMPLETION_TOKENS * 0.60) / 1e6)
    st = judge.stats.to_dict()
    assert st["calls"] == 1 and st["total_tokens"] == p_tok + fake.COMPLETION_TOKENS
    assert st["cost_usd"] == pytest.approx(call.cost_usd)


def test_unpriced_model_has_unknown_cost(clip, server, make_settings) -> None:
    judge = VideoJudge(make_settings(server.base_url, model="local-vlm"), clip)
    call = judge.judge(JudgeRequest("V-01", "anything"))
    assert call.outcome == "pass" and call.cost_usd is None
    assert judge.stats.unpriced_calls == 1 and judge.stats.cost_usd == 0


def test_sound_items_get_audio_facts_and_transcript(clip, server, make_settings, fake) -> None:
    measured = []

    def facts() -> dict:
        measured.append(1)
        return FACTS

    judge = VideoJudge(make_settings(server.base_url, transcribe=True), clip, audio_facts=facts)
    calls = judge.judge_many(
        [
            JudgeRequest("A-1", "Background music is audible throughout."),
            JudgeRequest("A-2", "Dialogue stays intelligible."),
            JudgeRequest("V-1", "Shots are well framed."),
        ]
    )
    assert [c.audio_included for c in calls] == [True, True, False]
    by_item = {fake.request_text(b).split("Criterion:")[1]: fake.request_text(b) for b in server.requests}
    music = next(t for k, t in by_item.items() if "music" in k)
    assert "integrated loudness: -23.00 LUFS" in music and "welcome to the recap" in music
    framing = next(t for k, t in by_item.items() if "framed" in k)
    assert prompts.AUDIO_HEADER not in framing
    assert len(measured) == 1 and server.transcription_calls == 1  # once per video, not per item
    assert judge.stats.transcriptions == 1


def test_retries_on_429_then_succeeds(clip, server, make_settings) -> None:
    server.fail_next(2, 429, retry_after=0)
    judge = VideoJudge(make_settings(server.base_url), clip)
    call = judge.judge(JudgeRequest("N-1", "anything"))
    assert (call.outcome, call.attempts) == ("pass", 3)
    assert server.calls == 3 and judge.stats.retries == 2 and judge.stats.calls == 3


def test_500_exhausts_retries_then_unscored_but_endpoint_stays_usable(clip, server, make_settings) -> None:
    server.fail_next(3, 500)
    judge = VideoJudge(make_settings(server.base_url, max_retries=2), clip)
    first = judge.judge(JudgeRequest("N-1", "anything"))
    assert first.outcome == "unscored" and "HTTP 500" in first.reason and "3 attempt" in first.reason
    second = judge.judge(JudgeRequest("N-2", "anything"))  # a 5xx streak is not fatal for later items
    assert second.outcome == "pass" and server.calls == 4


def test_timeouts_are_retried(clip, server, make_settings) -> None:
    """A request past its deadline is retried (the deadline is wall-clock, so leave room on a loaded machine)."""
    server.slow_next(1, 2.5)
    judge = VideoJudge(make_settings(server.base_url, timeout=1.2), clip)
    call = judge.judge(JudgeRequest("N-1", "anything"))
    assert (call.outcome, call.attempts) == ("pass", 2)


def test_auth_error_is_not_retried_and_stops_the_judge(clip, server, make_settings) -> None:
    """A 401 will not heal: no retries, and later items are unscored without calling the endpoint again."""
    server.fail_next(1, 401)
    judge = VideoJudge(make_settings(server.base_url, max_concurrency=1), clip)
    calls = judge.judge_many([JudgeRequest("N-1", "a"), JudgeRequest("N-2", "b")])
    assert [c.outcome for c in calls] == ["unscored", "unscored"]
    assert "HTTP 401" in calls[0].reason and calls[1].reason == calls[0].reason
    assert server.calls == 1 and judge.stats.retries == 0 and judge.stats.unscored == 2


def test_response_format_rejected_falls_back_once(clip, server, make_settings) -> None:
    server.reject_response_format = True
    judge = VideoJudge(make_settings(server.base_url, max_concurrency=1), clip)
    calls = judge.judge_many([JudgeRequest("N-1", "a"), JudgeRequest("N-2", "b")])
    assert [c.outcome for c in calls] == ["pass", "pass"]
    assert server.calls == 3  # rejected once, then plain requests only
    assert "response_format" not in server.requests[-1]
    assert judge.stats.json_mode is False and any("response_format" in n for n in judge.stats.notes)


def test_unparseable_reply_is_unscored_and_not_cached(clip, server, make_settings, tmp_path) -> None:
    server.reply_when("MARK-X", '{"pass": "false", "reason": "string boolean"}')
    cache = JudgeCache(tmp_path / "judge")
    judge = VideoJudge(make_settings(server.base_url), clip, cache=cache)
    call = judge.judge(JudgeRequest("N-1", "MARK-X criterion"))
    assert call.outcome == "unscored" and "not a JSON boolean" in call.reason
    assert not list((tmp_path / "judge").glob("??/*.json"))  # no verdict (capability probes live in probes/)


def test_unreachable_endpoint_is_unscored_not_a_crash(clip, make_settings, fake) -> None:
    port = fake.closed_port()
    judge = VideoJudge(make_settings(f"http://127.0.0.1:{port}/v1", max_retries=1, max_concurrency=1), clip)
    t0 = time.perf_counter()
    calls = judge.judge_many([JudgeRequest(f"N-{i}", "a") for i in range(5)])
    assert all(c.outcome == "unscored" for c in calls)
    assert "cannot connect to 127.0.0.1" in calls[0].reason
    assert judge.stats.retries == 1  # only the first item retried; the rest stopped at once
    assert time.perf_counter() - t0 < 5


def test_concurrent_items_keep_their_own_verdicts(clip, server, make_settings) -> None:
    for i in range(0, 8, 2):
        server.reply_when(f"ITEM-{i} ", f'{{"pass": false, "reason": "item {i} fails"}}')
    judge = VideoJudge(make_settings(server.base_url, max_concurrency=4), clip)
    calls = judge.judge_many([JudgeRequest(f"I{i}", f"ITEM-{i} criterion") for i in range(8)])
    assert [c.item_id for c in calls] == [f"I{i}" for i in range(8)]
    assert [c.outcome for c in calls] == ["fail", "pass"] * 4
    assert calls[2].reason == "item 2 fails"
    assert server.calls == 8


def test_mode_off_makes_no_call(clip, server, make_settings) -> None:
    judge = VideoJudge(make_settings(server.base_url, mode="off"), clip)
    call = judge.judge(JudgeRequest("N-1", "a"))
    assert call.outcome == "unscored" and call.reason.startswith("judge off")
    assert server.calls == 0


def test_malformed_completion_body_is_unscored_not_a_crash(clip, server, make_settings) -> None:
    server.garbage_next(1)
    judge = VideoJudge(make_settings(server.base_url, max_concurrency=1), clip)
    bad, good = judge.judge_many([JudgeRequest("N-1", "a"), JudgeRequest("N-2", "b")])
    assert bad.outcome == "unscored" and bad.reason == "empty reply from judge"
    assert good.outcome == "pass"
