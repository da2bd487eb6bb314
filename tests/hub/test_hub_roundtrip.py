"""Publish -> pull -> leaderboard, end to end with the real `huggingface_hub` client against the loopback Hub."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hub_server import HubServer

from agenticvbench.cli.main import main
from agenticvbench.demo import DemoBenchmark
from agenticvbench.hub.board import digest, numbers_from_json
from agenticvbench.hub.board import main as digest_main
from agenticvbench.hub.card import parse_card
from agenticvbench.hub.layout import PULL_RECORD
from agenticvbench.hub.publish import Staged

REPO = "org/demo-results"


def _publish(runs: dict[str, Path], *extra: str) -> int:
    return main(["publish", str(runs["perfect"]), str(runs["partial"]), "--repo", REPO, "-q", *extra])


def test_publish_pull_leaderboard_reproduce_the_digest(
    write_hub: HubServer,
    scored_demo_runs: dict[str, Path],
    demo: DemoBenchmark,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _publish(scored_demo_runs) == 0
    head = write_hub.head(REPO)
    assert write_hub.count("POST", "/commit/") == 1  # one commit for the whole publication
    assert write_hub.count("PUT", "/lfs-upload/") == 3  # the three tables went through LFS
    card = parse_card(head.content("README.md") or b"")
    for name, run in scored_demo_runs.items():  # every result file byte for byte
        for f in sorted((run / "avb-results").glob("*.json")):
            assert head.content(f"runs/{name}/avb-results/{f.name}") == f.read_bytes()
    assert ".avb-folder" not in " ".join(head.files)

    out = tmp_path / "pulled"
    capsys.readouterr()
    assert main(["pull", REPO, "--out", str(out)]) == 0
    assert "digest reproduced" in capsys.readouterr().out
    record = json.loads((out / PULL_RECORD).read_text())
    assert record["commit"] == head.sha and record["requested"] == "main" and record["reproduced"]
    assert record["claimed_digest"] == record["computed_digest"] == card.digest
    assert "not signed with this machine's key" in record["signatures"]

    board = tmp_path / "board.json"
    runs = [str(out / "runs" / n) for n in ("partial", "perfect")]
    argv = ["leaderboard", *runs, "--dataset", str(demo.mirror), "--no-floor", "--format", "json"]
    assert main([*argv, "--out", str(board)]) == 0
    assert digest(numbers_from_json(json.loads(board.read_text()))) == card.digest
    capsys.readouterr()
    assert (
        digest_main([str(board)]) == 0 and capsys.readouterr().out.strip() == card.digest
    )  # as the card says

    assert main(["pull", "--check", "--out", str(out), "-q"]) == 0  # offline, again


def test_tables_hold_one_row_per_result(staged_demo: Staged) -> None:
    results = pq.read_table(
        io.BytesIO((staged_demo.folder / "data/results.parquet").read_bytes())
    ).to_pylist()
    assert len(results) == 18 and {r["run"] for r in results} == {"perfect", "partial"}
    row = next(r for r in results if r["run"] == "partial" and r["task_id"] == 84)
    assert row["status"] == "scored" and row["headline_score"] == pytest.approx(0.625)
    assert json.loads(row["components"])["n_correct"] == 3 and row["result_sha256"]
    runs = pq.read_table(staged_demo.folder / "data/runs.parquet").to_pylist()
    assert [(r["run"], r["model"], r["results"]) for r in runs] == [
        ("perfect", "perfect", 9),
        ("partial", "partial", 9),
    ]
    items = pq.read_table(staged_demo.folder / "data/recap_items.parquet").to_pylist()
    assert {"python", "llm"} <= {r["dispatch"] for r in items}
    assert not (staged_demo.folder / "data/costs.parquet").exists()  # no judge usage in the demo


def test_card_declares_tables_and_records_the_settings(staged_demo: Staged) -> None:
    text = (staged_demo.folder / "README.md").read_text()
    card = parse_card(text.encode())
    assert card.tables == ["runs", "results", "recap_items"]
    assert "config_name: results, data_files: data/results.parquet, default: true" in text
    assert card.settings.resamples == 2000 and card.settings.seed == 0 and card.settings.clusters
    assert card.dataset["kind"] == "local" and len(card.dataset["parquet_sha256"]) == 64
    assert "## Reproduce" in text and "python -m agenticvbench.hub.board" in text and card.digest in text


def test_dry_run_writes_the_folder_and_sends_nothing(
    write_hub: HubServer, scored_demo_runs: dict[str, Path], tmp_path: Path
) -> None:
    assert _publish(scored_demo_runs, "--dry-run", str(tmp_path / "repo")) == 0
    assert not write_hub.requests and REPO not in write_hub.repos
    assert (tmp_path / "repo/README.md").is_file() and (
        tmp_path / "repo/runs/partial/avb-results/84.json"
    ).is_file()


def test_pull_request_private_repo_and_pinned_revisions(
    write_hub: HubServer, scored_demo_runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _publish(scored_demo_runs, "--private") == 0
    first = write_hub.head(REPO).sha
    assert write_hub.repos[REPO]["private"]
    assert _publish(scored_demo_runs, "--create-pr", "--resamples", "500") == 0
    assert write_hub.head(REPO).sha == first  # main untouched; the PR has its own ref
    pr = write_hub.repos[REPO]["refs"]["refs/pr/1"]
    assert main(["pull", f"{REPO}@refs/pr/1", "--out", str(tmp_path / "pr"), "-q"]) == 0
    assert json.loads((tmp_path / "pr" / PULL_RECORD).read_text())["commit"] == pr
    assert main(["pull", f"{REPO}@{first}", "--out", str(tmp_path / "first"), "-q"]) == 0
    record = json.loads((tmp_path / "first" / PULL_RECORD).read_text())
    assert (
        record["commit"] == first
        and record["claimed_digest"]
        != json.loads((tmp_path / "pr" / PULL_RECORD).read_text())["claimed_digest"]
    )  # 500 resamples give other intervals
    monkeypatch.delenv("HF_TOKEN")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "no-token-home"))
    assert (
        main(["pull", REPO, "--out", str(tmp_path / "anon"), "-q"]) == 3
    )  # private: not visible without a token


def test_republishing_replaces_the_runs(
    write_hub: HubServer, scored_demo_runs: dict[str, Path], tmp_path: Path
) -> None:
    assert _publish(scored_demo_runs) == 0
    assert main(["publish", str(scored_demo_runs["perfect"]), "--repo", REPO, "-q"]) == 0
    files = write_hub.head(REPO).files
    assert not any(p.startswith("runs/partial/") for p in files)
    assert main(["pull", REPO, "--out", str(tmp_path / "p"), "-q"]) == 0


def test_a_run_with_an_invalid_result_is_refused(
    write_hub: HubServer,
    scored_demo_runs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import shutil

    run = tmp_path / "perfect"
    shutil.copytree(scored_demo_runs["perfect"], run)
    (run / "avb-results/37.json").write_text("{}")
    assert main(["publish", str(run), "--repo", REPO, "-q"]) == 3
    assert "invalid result file" in capsys.readouterr().err and not write_hub.requests


def test_a_second_file_for_one_task_is_refused(
    write_hub: HubServer,
    scored_demo_runs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import shutil

    run = tmp_path / "perfect"
    shutil.copytree(scored_demo_runs["perfect"], run)
    shutil.copy(run / "avb-results/37.json", run / "avb-results/037.json")
    assert main(["publish", str(run), "--repo", REPO, "-q", "--dry-run", str(tmp_path / "repo")]) == 3
    assert "one file per task" in capsys.readouterr().err
