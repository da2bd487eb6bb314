"""Where the package caches: `$AVB_CACHE`, else the platform's user cache folder (XDG on Linux); Hub files stay
in the Hub's own cache."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agenticvbench.dataset.loader import DatasetSource, default_cache_dir
from agenticvbench.demo import default_demo_dir


def test_avb_cache_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """AVB_CACHE wins over XDG_CACHE_HOME, and everything derived from the cache folder follows it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("AVB_CACHE", str(tmp_path / "avb"))
    assert default_cache_dir() == tmp_path / "avb"
    assert default_demo_dir().is_relative_to(tmp_path / "avb")


@pytest.mark.skipif(sys.platform != "linux", reason="XDG_CACHE_HOME is the Linux convention")
def test_xdg_cache_home_is_honoured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without AVB_CACHE the cache is $XDG_CACHE_HOME/agenticvbench, and ~/.cache/agenticvbench when it is unset."""
    monkeypatch.delenv("AVB_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "agenticvbench"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "agenticvbench"


def test_hub_files_use_the_hub_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A Hub dataset opened without --cache-dir downloads into the Hub's cache (hf_cache_dir None: the Hub decides),
    not into ours; an explicit cache folder keeps everything, Hub files included, under it."""
    calls: list[Path | None] = []

    def fake_download(self: DatasetSource, rel: str, revision: str) -> Path:
        calls.append(self.hf_cache_dir)
        return tmp_path / "snapshots" / ("a" * 40) / rel

    monkeypatch.setattr(DatasetSource, "_hub_download", fake_download)
    src, _ = DatasetSource.open("owner/name")
    assert src.hf_cache_dir is None and calls == [None]
    src, _ = DatasetSource.open("owner/name", cache_dir=tmp_path / "mine")
    assert src.hf_cache_dir == (tmp_path / "mine" / "hub").resolve()
