"""`avb pull` on hostile repos: each is the staged demo publication with one thing changed, served by the loopback
Hub, pulled with the real client. Nothing may land outside the pull's folder, nothing oversized is downloaded, and
whatever disagrees is named and exits 1 (refusals exit 3)."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hub_server import HubServer, commit_from_dir, commit_sha

from agenticvbench.cli.main import main
from agenticvbench.hub.layout import PULL_RECORD
from agenticvbench.hub.publish import Staged
from agenticvbench.results.model import canonical_sha256

REPO = "org/hostile"
RESULT = "runs/partial/avb-results/84.json"

Pull = Callable[..., tuple[int, dict, str]]


@pytest.fixture
def pull_hostile(
    write_hub: HubServer, staged_demo: Staged, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Pull:
    """Serve the staged publication with `overrides` (path -> bytes) and `sizes` (declared sizes), pull it;
    (exit code, the pull record or {}, stderr)."""

    def run(
        overrides: Mapping[str, bytes] | None = None, sizes: Mapping[str, int] | None = None
    ) -> tuple[int, dict, str]:
        commit = commit_from_dir(commit_sha("hostile"), staged_demo.folder, overrides)
        commit.declared_sizes.update(sizes or {})
        write_hub.add_repo(REPO, [commit], {"main": commit.sha})
        capsys.readouterr()
        code = main(["pull", REPO, "--out", str(tmp_path / "out"), "-q"])
        record = tmp_path / "out" / PULL_RECORD
        return code, json.loads(record.read_text()) if record.is_file() else {}, capsys.readouterr().err

    return run


def test_the_unchanged_publication_pulls_clean(pull_hostile: Pull) -> None:
    code, record, _ = pull_hostile()
    assert code == 0 and record["reproduced"] and not record["problems"]


def test_a_path_that_escapes_refuses_the_pull(pull_hostile: Pull, tmp_path: Path) -> None:
    code, record, err = pull_hostile({"runs/../../escape.json": b"{}"})
    assert code == 3 and "could leave the folder" in err and not record
    assert not (tmp_path / "escape.json").exists() and not (tmp_path / "out").exists()


def test_a_10_gb_declared_size_is_refused_before_any_download(
    pull_hostile: Pull, write_hub: HubServer
) -> None:
    code, _, err = pull_hostile(sizes={RESULT: 10 * 1024**3})
    assert code == 3 and "10737418240 bytes" in err
    assert write_hub.count("GET", "/resolve/") == 0 and write_hub.count("HEAD", "/resolve/") == 0


def _with_results_table(staged: Staged, change: Callable[[list[dict]], None]) -> bytes:
    rows = pq.read_table(staged.folder / "data/results.parquet").to_pylist()
    change(rows)
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buf)
    return buf.getvalue()


def test_a_table_with_nan_is_named(pull_hostile: Pull, staged_demo: Staged) -> None:
    def nan(rows: list[dict]) -> None:
        rows[0]["headline_score"] = math.nan

    code, record, err = pull_hostile({"data/results.parquet": _with_results_table(staged_demo, nan)})
    assert code == 1 and not record["reproduced"]
    assert any("non-finite" in p for p in record["problems"]) and "non-finite" in err


def test_a_table_that_disagrees_with_its_files_is_named(pull_hostile: Pull, staged_demo: Staged) -> None:
    def raise_score(rows: list[dict]) -> None:
        row = next(r for r in rows if r["run"] == "partial" and r["task_id"] == 84)
        row["headline_score"] = 1.0

    code, record, _ = pull_hostile({"data/results.parquet": _with_results_table(staged_demo, raise_score)})
    assert code == 1 and any("task 84: headline_score is 1.0" in p for p in record["problems"])


def test_a_card_that_lies_about_its_digest(pull_hostile: Pull, staged_demo: Staged) -> None:
    text = (staged_demo.folder / "README.md").read_text()
    lie = text.replace(staged_demo.card.digest, "sha256:" + "0" * 64)
    code, record, err = pull_hostile({"README.md": lie.encode()})
    assert code == 1 and record["claimed_digest"] == "sha256:" + "0" * 64
    assert record["computed_digest"] == staged_demo.card.digest and "does not describe these results" in err


def test_a_forged_result_field_is_caught_by_its_hash(
    pull_hostile: Pull, staged_demo: Staged, tmp_path: Path
) -> None:
    data = json.loads((staged_demo.folder / RESULT).read_text())
    data["headline_score"] = 1.0  # raised without fixing result_sha256
    code, record, _ = pull_hostile({RESULT: json.dumps(data).encode()})
    assert code == 1 and not (tmp_path / "out" / RESULT).exists()
    assert any("result_sha256 does not match" in p for p in record["problems"])


def test_a_forged_result_with_a_fixed_hash_breaks_the_digest(pull_hostile: Pull, staged_demo: Staged) -> None:
    data = json.loads((staged_demo.folder / RESULT).read_text())
    data["headline_score"] = data["adjusted_final_score"] = 1.0
    data.pop("signature", None)
    data["result_sha256"] = canonical_sha256(data)
    code, record, _ = pull_hostile({RESULT: json.dumps(data).encode()})
    assert code == 1 and record["computed_digest"] != record["claimed_digest"]
    assert any("headline_score" in p for p in record["problems"])  # and the tables disagree with it


def test_a_card_with_yaml_aliases_is_refused(pull_hostile: Pull, staged_demo: Staged) -> None:
    text = (staged_demo.folder / "README.md").read_text()
    bomb = text.replace("pretty_name: AgenticVBench results", 'pretty_name: &a ["x", "x"]\nbomb: [*a, *a]')
    code, _, err = pull_hostile({"README.md": bomb.encode()})
    assert code == 3 and "anchors, aliases or tags" in err


def test_files_outside_the_layout_are_ignored(pull_hostile: Pull, tmp_path: Path) -> None:
    code, record, _ = pull_hostile({"runs/partial/84/solution.json": b"{}", "notes.txt": b"hi"})
    assert code == 0 and sorted(record["ignored"]) == ["notes.txt", "runs/partial/84/solution.json"]
    assert not (tmp_path / "out/notes.txt").exists()


def test_a_folder_pull_did_not_write_is_refused(
    write_hub: HubServer, staged_demo: Staged, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine/keep.txt").write_text("mine")
    write_hub.add_repo(
        REPO, [commit_from_dir(commit_sha("x"), staged_demo.folder)], {"main": commit_sha("x")}
    )
    assert main(["pull", REPO, "--out", str(tmp_path / "mine"), "-q"]) == 3
    assert "not written by `avb pull`" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["keep.txt"]
