"""notebooks/hub_leaderboard.ipynb reproduces a published leaderboard from a pinned revision: the demo runs are
published twice to the loopback Hub (2000, then 500 resamples), and the notebook, pointed at the first commit
through `HF_ENDPOINT`, reproduces that commit's digest, not the head's."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from hub_server import HubServer
from nbclient import NotebookClient

from agenticvbench.cli.main import main
from agenticvbench.hub.card import parse_card

pytestmark = pytest.mark.slow  # a kernel, two publications and a pull

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "hub_leaderboard.ipynb"
REPO = "org/board"


def _text(nb: nbformat.NotebookNode) -> str:
    return "\n".join(
        o.get("text", "") or o.get("data", {}).get("text/markdown", "")
        for c in nb.cells
        for o in c.get("outputs", [])
    )


def test_the_notebook_reproduces_a_pinned_revision(
    write_hub: HubServer, scored_demo_runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = [str(scored_demo_runs["perfect"]), str(scored_demo_runs["partial"])]
    assert main(["publish", *runs, "--repo", REPO, "-q"]) == 0
    pinned = write_hub.head(REPO)
    assert main(["publish", *runs, "--repo", REPO, "--resamples", "500", "-q"]) == 0
    head = write_hub.head(REPO)
    digests = {c.sha: parse_card(c.content("README.md") or b"").digest for c in (pinned, head)}
    assert digests[pinned.sha] != digests[head.sha]

    monkeypatch.setenv("HF_HUB_DISABLE_XET", "1")  # the kernel is another process: the client reads the env
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    out = tmp_path / "pulled"
    cell.source += (
        f"\n# injected by the test\nREPO = {REPO!r}\nREVISION = {pinned.sha!r}\nOUT = {str(out)!r}\n"
    )
    NotebookClient(
        nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    text = _text(nb)
    assert f"{REPO}@{pinned.sha}: 2 run(s); problems: none" in text
    assert f"digest reproduced: {digests[pinned.sha]}" in text and "all checks passed" in text
    assert "| demo | perfect |" in text  # the board itself was displayed
    assert (
        write_hub.count("GET", f"/resolve/{pinned.sha}/") > 0
        and write_hub.count("GET", f"/resolve/{head.sha}/") == 0
    )
