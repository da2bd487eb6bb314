"""Fixtures of the publish/pull tests: a fresh loopback Hub the real client writes to, and one staged publication
of the scored demo runs (perfect, partial) to build hostile repos from."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import huggingface_hub.constants
import pytest
from hub_server import HubServer

from agenticvbench.hub.publish import Staged, stage


@pytest.fixture
def write_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    """An empty loopback Hub, with the client pointed at it (any token; LFS rather than Xet, which it does not
    speak)."""
    server = HubServer().start()
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.setenv("HF_TOKEN", "hf_loopback")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def staged_demo(scored_demo_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Staged:
    """The scored demo runs staged as a repo (`--dry-run`), once per session. Treat as read-only."""
    folder = tmp_path_factory.mktemp("staged") / "repo"
    return stage([scored_demo_runs["perfect"], scored_demo_runs["partial"]], folder, resamples=2000, seed=0)
