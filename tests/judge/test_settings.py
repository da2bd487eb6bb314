"""Judge settings: validation, environment defaults, the automatic mode, cost and provenance."""

from __future__ import annotations

import pytest

from agenticvbench.judge import JudgeSettings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "AVB_JUDGE_MODE",
        "AVB_JUDGE_MODEL",
        "AVB_JUDGE_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize(
    "kw",
    [
        {"mode": "sometimes"},
        {"frame_rate": 0},
        {"max_frames": 0},
        {"max_retries": -1},
        {"max_concurrency": 0},
    ],
)
def test_invalid_settings_are_refused(kw: dict) -> None:
    with pytest.raises(ValueError):
        JudgeSettings(**kw)


def test_from_env_then_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AVB_JUDGE_MODEL", "env-model")
    monkeypatch.setenv("AVB_JUDGE_BASE_URL", "http://judge.local:8000/v1")
    s = JudgeSettings.from_env(model=None, max_frames=8)
    assert (s.model, s.max_frames, s.base_url_host) == ("env-model", 8, "judge.local:8000")
    assert JudgeSettings.from_env(model="flag-model").model == "flag-model"


def test_auto_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key and no endpoint: off (unscored at once) rather than failing every call against api.openai.com."""
    assert JudgeSettings.auto_mode() == "off"
    assert JudgeSettings.auto_mode("http://127.0.0.1:8000/v1") == "cache"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert JudgeSettings.auto_mode() == "cache"
    monkeypatch.setenv("AVB_JUDGE_MODE", "replay")
    assert JudgeSettings.auto_mode() == "replay"


def test_cost_and_provenance() -> None:
    s = JudgeSettings()
    assert s.cost_usd(1_000_000, 1_000_000) == pytest.approx(0.75)  # gpt-4o-mini list price
    assert JudgeSettings(model="my-local-vlm").cost_usd(10, 10) is None
    prov = JudgeSettings(base_url="https://user:tok@host.example/v1").provenance()
    assert prov["judge_base_url_host"] == "host.example"  # no user info (it may hold a token)
    assert prov["judge_model"] == "gpt-4o-mini" and prov["judge_sampling"]["max_frames"] == 16
