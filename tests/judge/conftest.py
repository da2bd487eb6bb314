"""Fixtures for the judge tests: a tiny generated clip, the loopback fake endpoint, and fast judge settings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import openai_server
import pytest

from agenticvbench.judge import JudgeSettings

fake_module = openai_server  # the loopback OpenAI-compatible server (tests/openai_server.py)


@pytest.fixture(scope="session")
def fake() -> ModuleType:
    """The fake-endpoint module (FakeOpenAIServer, closed_port, n_images, request_text, token constants)."""
    return fake_module


@pytest.fixture(scope="session")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 s, 64x64, 10 fps testsrc2 with a 440 Hz tone."""
    return fake_module.make_clip(tmp_path_factory.mktemp("judge-media") / "final.mp4")


@pytest.fixture
def server() -> Iterator:
    """A fresh scripted endpoint per test."""
    with fake_module.FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def make_settings(monkeypatch: pytest.MonkeyPatch) -> Callable[..., JudgeSettings]:
    """Judge settings pointed at a base URL, with millisecond backoff so retry tests stay fast."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)

    def make(base_url: str, **kw) -> JudgeSettings:
        base = {
            "base_url": base_url,
            "model": "gpt-4o-mini",
            "frame_rate": 1.0,
            "max_frames": 4,
            "max_side": 32,
            "backoff_s": 0.01,
            "backoff_max_s": 0.05,
            "max_retries": 3,
            "timeout": 10.0,
            "max_concurrency": 4,
        }
        base.update(kw)
        return JudgeSettings(**base)

    return make
