"""The Hub path of the loader, with the real `huggingface_hub` client talking to a loopback Hub server."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hub_server import MAIN_SHA, OLD_SHA, OLD_TASK_IDS, HubServer

from agenticvbench.dataset.loader import DEFAULT_DATASET, PARQUET_PATH, load_tasks
from agenticvbench.demo import DemoBenchmark
from agenticvbench.errors import DatasetError

PARQUET_URL = f"/datasets/{DEFAULT_DATASET}/resolve/main/{PARQUET_PATH}"


@pytest.fixture
def cache(hub_server: HubServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Point the loader at the loopback Hub (online) and give the test a fresh cache dir."""
    monkeypatch.setenv("HF_ENDPOINT", hub_server.url)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return tmp_path / "cache"


def test_download_parquet_and_media(hub_server: HubServer, demo: DemoBenchmark, cache: Path) -> None:
    tasks = {t.task_id: t for t in load_tasks(cache_dir=cache)}
    assert sorted(tasks) == [1, 2, 37, 38, 65, 66, 67, 83, 84]
    src = tasks[1].source
    assert src is not None and src.kind == "hub" and src.resolved_revision == MAIN_SHA
    assert src.provenance() == {
        "dataset": DEFAULT_DATASET,
        "kind": "hub",
        "revision": "main",
        "resolved_revision": MAIN_SHA,
    }
    (film,) = tasks[1].materials()  # a full resolve URL in the row
    assert film.read_bytes() == (demo.mirror / "recap/materials/1/film.mp4").read_bytes()
    assert f"/snapshots/{MAIN_SHA}/" in film.as_posix() and film.is_relative_to(cache / "hub")
    (source,) = tasks[66].verifier_references()
    assert source.read_bytes() == (demo.mirror / "repair/sources/demo2_source.mp4").read_bytes()
    # media are fetched at the resolved sha, never at the moving branch
    assert hub_server.count("GET", f"/resolve/{MAIN_SHA}/recap/materials/1/film.mp4") == 1


def test_second_call_is_a_cache_hit(hub_server: HubServer, cache: Path) -> None:
    """A cached file is not downloaded again: the branch costs one HEAD, a sha-pinned file no request at all."""
    (t,) = load_tasks(task_ids=[67], cache_dir=cache)
    t.materials()
    gets, total = hub_server.count("GET", PARQUET_URL), len(hub_server.requests)
    (again,) = load_tasks(task_ids=[67], cache_dir=cache)
    assert hub_server.count("GET", PARQUET_URL) == gets
    assert len(hub_server.requests) == total + 1 and hub_server.requests[-1] == ("HEAD", PARQUET_URL)
    before = len(hub_server.requests)
    assert again.materials() == t.materials()
    assert len(hub_server.requests) == before


def test_pinned_revision_gives_that_commits_parquet(hub_server: HubServer, cache: Path) -> None:
    old = load_tasks(revision=OLD_SHA, cache_dir=cache)
    assert tuple(t.task_id for t in old) == OLD_TASK_IDS
    assert all(t.prompt.startswith("[old] ") for t in old)
    assert old[0].source is not None and old[0].source.resolved_revision == OLD_SHA
    new = load_tasks(revision="main", cache_dir=cache)
    assert len(new) == 9 and not new[2].prompt.startswith("[old]")
    clips = old[0].materials()  # materials of an old commit come from that commit
    assert all(f"/materials/{OLD_SHA}/" in p.as_posix() for p in clips)
    assert hub_server.count("GET", f"/resolve/{OLD_SHA}/sequencing/materials/37.zip") >= 1


def test_offline_mode_works_from_cache(
    hub_server: HubServer, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (t,) = load_tasks(task_ids=[37], cache_dir=cache)
    clips = t.materials()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = len(hub_server.requests)
    tasks = {x.task_id: x for x in load_tasks(cache_dir=cache)}
    assert tasks[37].source is not None and tasks[37].source.resolved_revision == MAIN_SHA
    assert tasks[37].materials() == clips
    with pytest.raises(DatasetError, match="not cached"):
        tasks[83].materials()  # never downloaded
    assert len(hub_server.requests) == before


def test_offline_mode_without_cache_fails_cleanly(
    hub_server: HubServer, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = len(hub_server.requests)
    with pytest.raises(DatasetError, match=r"data/train-00000-of-00001\.parquet is not cached"):
        load_tasks(cache_dir=cache)
    assert len(hub_server.requests) == before


def test_zip_materials_are_extracted(hub_server: HubServer, demo: DemoBenchmark, cache: Path) -> None:
    (t,) = load_tasks("assembly", task_ids=[84], cache_dir=cache)
    clips = t.materials()
    assert sorted(p.name for p in clips) == sorted(f"{i}.mp4" for i in range(1, 13))
    with zipfile.ZipFile(demo.mirror / "assembly/materials/84.zip") as zf:
        assert all(p.read_bytes() == zf.read(p.name) for p in clips)
    assert all(p.is_relative_to(cache / "materials" / MAIN_SHA / "assembly/materials/84") for p in clips)


def test_unknown_revision_and_repo(hub_server: HubServer, cache: Path) -> None:
    with pytest.raises(DatasetError, match="cannot fetch"):
        load_tasks(revision="f" * 40, cache_dir=cache)
    with pytest.raises(DatasetError, match="nobody/nothing"):
        load_tasks(dataset="nobody/nothing", cache_dir=cache)


def test_snapshot_download_against_the_loopback_hub(
    hub_server: HubServer, demo: DemoBenchmark, tmp_path: Path
) -> None:
    """The server speaks enough of the API for a whole-repo download, at a branch and at a pinned commit."""
    from huggingface_hub import snapshot_download

    main = Path(
        snapshot_download(DEFAULT_DATASET, repo_type="dataset", cache_dir=tmp_path, endpoint=hub_server.url)
    )
    assert main.name == MAIN_SHA
    for rel in ("recap/materials/2/film.mp4", "sequencing/materials/38.zip", PARQUET_PATH, "README.md"):
        assert (main / rel).read_bytes() == (demo.mirror / rel).read_bytes()
    old = Path(
        snapshot_download(
            DEFAULT_DATASET,
            repo_type="dataset",
            cache_dir=tmp_path,
            revision=OLD_SHA,
            endpoint=hub_server.url,
            allow_patterns=["data/*"],
        )
    )
    assert old.name == OLD_SHA
    assert (old / PARQUET_PATH).read_bytes() != (main / PARQUET_PATH).read_bytes()
