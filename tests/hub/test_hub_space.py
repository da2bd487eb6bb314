"""`avb publish-bundle DIR --space ORG/NAME`: a static bundle goes to a static Space in one commit, with the real
client against the loopback Hub, and comes back byte for byte."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hub_server import HubServer

from agenticvbench.cli.main import main

SPACE = "org/demo-bundle"


@pytest.fixture(scope="module")
def bundle(scored_demo_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "site"
    runs = [str(scored_demo_runs["perfect"]), str(scored_demo_runs["partial"])]
    assert main(["view", *runs, "--bundle", str(out), "--media", "none", "-q"]) == 0
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_bundle_goes_to_a_static_space_and_comes_back(
    write_hub: HubServer, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from huggingface_hub import snapshot_download

    assert main(["publish-bundle", str(bundle), "--space", SPACE]) == 0
    assert f"to the Space {SPACE}@" in capsys.readouterr().out
    repo = write_hub.repos[SPACE]
    assert repo["type"] == "space" and repo["sdk"] == "static"
    assert write_hub.count("POST", "/api/spaces/org/demo-bundle/commit/") == 1
    head = write_hub.head(SPACE)
    readme = (head.content("README.md") or b"").decode()
    assert "sdk: static" in readme and "app_file: index.html" in readme
    got = snapshot_download(SPACE, repo_type="space", cache_dir=tmp_path / "cache", endpoint=write_hub.url)
    pulled = _files(Path(got))
    assert {k: v for k, v in pulled.items() if k not in ("README.md", ".gitattributes")} == _files(bundle)
    assert "index.html" in pulled and any(k.startswith("task-") for k in pulled)


def test_republishing_replaces_the_space(write_hub: HubServer, bundle: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(bundle, site)
    assert main(["publish-bundle", str(site), "--space", SPACE, "-q"]) == 0
    page = next(p for p in sorted(site.glob("task-*.html")))
    page.unlink()
    assert main(["publish-bundle", str(site), "--space", SPACE, "-q"]) == 0
    files = write_hub.head(SPACE).files
    assert page.name not in files and "index.html" in files and ".gitattributes" in files


@pytest.mark.parametrize("damage", ["no-index", "symlink", "home-path"])
def test_what_is_not_a_bundle_is_refused(
    write_hub: HubServer, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    site = tmp_path / "site"
    shutil.copytree(bundle, site)
    if damage == "no-index":
        (site / "index.html").unlink()
    elif damage == "symlink":
        (site / "files").mkdir(exist_ok=True)
        os.symlink("/etc/hostname", site / "files" / "1.txt")
    else:
        page = site / "index.html"
        page.write_text(page.read_text() + os.path.expanduser("~/runs/agent-a"))
    assert main(["publish-bundle", str(site), "--space", SPACE, "-q"]) == 3
    err = capsys.readouterr().err
    assert {"no-index": "not a bundle", "symlink": "not a regular file", "home-path": "home folder"}[
        damage
    ] in err
    assert SPACE not in write_hub.repos  # refused before anything was sent


def test_a_space_is_not_a_dataset(write_hub: HubServer, bundle: Path, tmp_path: Path) -> None:
    """The loopback serves a repo under its own type only: the Space is not readable as a dataset."""
    assert main(["publish-bundle", str(bundle), "--space", SPACE, "-q"]) == 0
    assert main(["pull", SPACE, "--out", str(tmp_path / "p"), "-q"]) == 3
