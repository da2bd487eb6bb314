"""The on-disk verdict cache: keys, atomic entries, warm re-scoring without network, and replay mode."""

from __future__ import annotations

import json
import shutil

import pytest

from agenticvbench.judge import JudgeCache, JudgeRequest, VideoJudge, prompt_hash
from agenticvbench.judge.cache import cache_key, media_digest
from agenticvbench.judge.prompts import KNOWN_HASHES, PROMPT_TEMPLATE_VERSION

SAMPLING = {"frame_rate": 1.0, "max_frames": 4}


def test_prompt_hash_is_pinned_to_the_template_version() -> None:
    """Editing the template without bumping PROMPT_TEMPLATE_VERSION would reuse stale cached verdicts."""
    assert KNOWN_HASHES[PROMPT_TEMPLATE_VERSION] == prompt_hash()


def test_key_depends_on_model_version_prompt_and_media(clip, tmp_path, fake) -> None:
    digest = media_digest(clip, SAMPLING)
    base = cache_key("m", "v1", "prompt", digest)
    assert cache_key("m2", "v1", "prompt", digest) != base
    assert cache_key("m", "v2", "prompt", digest) != base
    assert cache_key("m", "v1", "prompt!", digest) != base
    assert media_digest(clip, {**SAMPLING, "max_frames": 8}) != digest
    moved = shutil.copy(clip, tmp_path / "renamed.mp4")
    assert media_digest(moved, SAMPLING) == digest  # content, not path
    other = fake.make_clip(tmp_path / "other.mp4", seconds=1.0)
    assert media_digest(other, SAMPLING) != digest


def test_put_get_roundtrip_and_bad_entries(tmp_path) -> None:
    cache = JudgeCache(tmp_path)
    key = "ab" * 32
    assert cache.get(key) is None
    cache.put(key, {"outcome": "fail", "reason": "too long"})
    entry = json.loads(cache.path(key).read_text())
    assert entry["key"] == key and entry["schema"] == 1
    assert cache.get(key)["reason"] == "too long"
    with pytest.raises(ValueError):
        cache.put(key, {"outcome": "unscored", "reason": "x"})
    cache.path(key).write_text('{"outcome": "pa')  # torn file reads as a miss
    assert cache.get(key) is None
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_warm_cache_makes_no_network_call(clip, server, make_settings, tmp_path) -> None:
    server.reply_when("SECOND", '{"pass": false, "reason": "missing"}')
    reqs = [
        JudgeRequest("A", "FIRST criterion"),
        JudgeRequest("B", "SECOND criterion"),
        JudgeRequest("C", "Background music is audible"),
    ]
    s = make_settings(server.base_url, transcribe=True)
    cold = VideoJudge(s, clip, cache=JudgeCache(tmp_path), audio_facts=lambda: {"has_audio": True})
    first = cold.judge_many(reqs)
    assert server.calls == 3 and server.transcription_calls == 1 and cold.stats.cache_misses == 3
    warm = VideoJudge(s, clip, cache=JudgeCache(tmp_path), audio_facts=lambda: {"has_audio": True})
    second = warm.judge_many(reqs)
    assert server.calls == 3 and server.transcription_calls == 1  # not one more request
    assert [(c.outcome, c.reason) for c in second] == [(c.outcome, c.reason) for c in first]
    assert all(c.cached for c in second)
    st = warm.stats.to_dict()
    assert (st["calls"], st["cache_hits"], st["total_tokens"], st["cost_usd"]) == (0, 3, 0, 0)


def test_a_different_model_misses_the_cache(clip, server, make_settings, tmp_path) -> None:
    VideoJudge(make_settings(server.base_url), clip, cache=JudgeCache(tmp_path)).judge(JudgeRequest("A", "x"))
    VideoJudge(make_settings(server.base_url, model="gpt-4o"), clip, cache=JudgeCache(tmp_path)).judge(
        JudgeRequest("A", "x")
    )
    assert server.calls == 2


def test_replay_mode_uses_cache_only(clip, server, make_settings, tmp_path) -> None:
    VideoJudge(make_settings(server.base_url), clip, cache=JudgeCache(tmp_path)).judge(
        JudgeRequest("A", "known")
    )
    replay = VideoJudge(make_settings(server.base_url, mode="replay"), clip, cache=JudgeCache(tmp_path))
    hit, miss = replay.judge_many([JudgeRequest("A", "known"), JudgeRequest("B-7", "never asked")])
    assert hit.outcome == "pass" and hit.cached
    assert miss.outcome == "unscored" and "replay miss" in miss.reason and "'B-7'" in miss.reason
    assert server.calls == 1 and replay.stats.unscored == 1
