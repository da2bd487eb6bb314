"""Judge ensembles: several models and several samples vote; each answer is cached on its own; cost is summed."""

from __future__ import annotations

from agenticvbench.judge import JudgeCache, JudgeRequest, VideoJudge


def test_three_models_majority_cached_per_model(clip, fake, make_settings, tmp_path) -> None:
    """Two of three models pass: the item passes, the votes are recorded, each model's answer is cached, and a
    warm rerun makes no request."""
    with fake.FakeOpenAIServer() as srv:
        s = make_settings(srv.base_url, model="gpt-4o-mini,gpt-4o,my-vlm")
        srv.default_reply = '{"pass": true, "reason": "ok"}'
        orig = srv._chat

        def by_model(body):  # the third model disagrees
            if body.get("model") == "my-vlm":
                body = {**body, "messages": [*body["messages"], {"role": "user", "content": "MODEL-3"}]}
            return orig(body)

        srv._chat = by_model
        srv.reply_when("MODEL-3", '{"pass": false, "reason": "no"}')
        cache = JudgeCache(tmp_path / "judge")
        call = VideoJudge(s, clip, cache=cache).judge(JudgeRequest("N-1", "The title card is shown."))
        assert srv.calls == 3
        again = VideoJudge(s, clip, cache=cache).judge(JudgeRequest("N-1", "The title card is shown."))
        assert srv.calls == 3
    assert call.outcome == "pass" and "2 pass, 1 fail" in call.reason
    assert [v["model"] for v in call.votes] == ["gpt-4o-mini", "gpt-4o", "my-vlm"]
    assert call.cost_usd is None  # one model is unpriced: the sum is unknown, never a guess
    assert again.outcome == "pass" and again.cached
    assert s.provenance()["judge_ensemble"]["models"] == ["gpt-4o-mini", "gpt-4o", "my-vlm"]


def test_samples_tie_is_unscored_and_later_samples_use_temperature(clip, fake, make_settings) -> None:
    """Two samples that disagree are a tie (`unscored`); the second sample is asked at the sampling
    temperature, the first at 0."""
    with fake.FakeOpenAIServer() as srv:
        orig = srv._chat

        def by_temp(body):
            if body.get("temperature", 0) > 0:
                body = {**body, "messages": [*body["messages"], {"role": "user", "content": "HOT"}]}
            return orig(body)

        srv._chat = by_temp
        srv.reply_when("HOT", '{"pass": false, "reason": "no"}')
        s = make_settings(srv.base_url, samples=2, max_concurrency=1)
        call = VideoJudge(s, clip, cache=None).judge(JudgeRequest("N-1", "Criterion."))
        temps = [r.get("temperature") for r in srv.requests]
        expected_tokens = sum(
            fake.PROMPT_BASE_TOKENS + fake.TOKENS_PER_IMAGE * fake.n_images(r) for r in srv.requests
        )
    assert call.outcome == "unscored" and "tie" in call.reason
    assert temps == [0.0, s.sample_temperature]
    assert call.prompt_tokens == expected_tokens  # summed over both samples
