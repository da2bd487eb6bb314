"""`avb studiobench validate-task|validate-run` and `avb export openvibe`: output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agenticvbench.cli.main import main
from agenticvbench.demo.studiobench import build_studiobench_demo
from agenticvbench.interop.openvibe import validate


@pytest.fixture(scope="module")
def sb(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_studiobench_demo(tmp_path_factory.mktemp("sb"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write_mirror(root: Path, prompts: dict[int, str]) -> Path:
    """A one-family (sequencing) parquet mirror with the Hub's 6 columns."""
    rows: list[dict[str, Any]] = [
        {
            "task_id": tid,
            "task_family": "sequencing",
            "prompt": prompt,
            "reference_file_urls": [f"sequencing/materials/{tid}.zip"],
            "verifier_reference_urls": None,
            "rubric_json": json.dumps({"correct_order": ["2", "1"], "n_slots": 2}),
        }
        for tid, prompt in prompts.items()
    ]
    schema = pa.schema(
        [
            ("task_id", pa.int64()),
            ("task_family", pa.string()),
            ("prompt", pa.string()),
            ("reference_file_urls", pa.list_(pa.string())),
            ("verifier_reference_urls", pa.list_(pa.string())),
            ("rubric_json", pa.string()),
        ]
    )
    (root / "data").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), root / "data" / "train-00000-of-00001.parquet")
    return root


def test_validate_task_valid_files_exit_0(sb: dict[str, Path], capsys) -> None:
    code, out, _ = run(capsys, "studiobench", "validate-task", sb["task_valid"], sb["task_warning"])
    assert code == 0
    assert "valid    " in out and "warning /audio_profile" in out and "2 task file(s), 0 invalid" in out


def test_validate_task_invalid_exit_1_json(sb: dict[str, Path], capsys) -> None:
    code, out, _ = run(
        capsys,
        "studiobench",
        "validate-task",
        "--json",
        sb["task_valid"],
        sb["task_invalid"],
        sb["task_not_json"],
    )
    assert code == 1
    doc = json.loads(out)
    assert doc["valid"] is False
    assert [t["valid"] for t in doc["tasks"]] == [True, False, False]
    assert "/mood" in {e["path"] for e in doc["tasks"][1]["errors"]}
    assert doc["tasks"][2]["errors"][0]["path"] == ""


def test_validate_run_valid_exit_0(sb: dict[str, Path], capsys) -> None:
    code, out, _ = run(
        capsys, "studiobench", "validate-run", sb["run_valid"], "--task", sb["tasks_dir"], "--json"
    )
    assert code == 0
    (r,) = json.loads(out)["runs"]
    assert r["submitted"] and r["valid_for_bench"] and r["ok"]
    assert r["limits"]["call_limit"] == 200 and r["limits"]["wall_clock_limit_s"] == 14400


def test_validate_run_without_task_fails_duration(sb: dict[str, Path], capsys) -> None:
    code, out, _ = run(capsys, "studiobench", "validate-run", sb["run_valid"])
    assert code == 1 and "duration: task 'DEMO-001' not given" in out


def test_validate_run_batch_tree_table(sb: dict[str, Path], capsys) -> None:
    code, out, _ = run(
        capsys,
        "studiobench",
        "validate-run",
        sb["runs_dir"] / "valid",
        sb["runs_dir"] / "foreign_tool",
        sb["runs_dir"] / "over_limits",
        "--task",
        sb["task_valid"],
    )
    assert code == 1
    assert "isolation: call log has tools outside the studiobench server: Bash" in out
    assert "warning: 208 tool calls exceed" in out and "1850s/14400s" in out
    assert "3 run(s), 2 valid for the bench, 1 with problems" in out


def test_validate_run_secret_is_a_failure_but_not_printed(sb: dict[str, Path], capsys) -> None:
    code, out, _ = run(
        capsys, "studiobench", "validate-run", sb["run_secret_in_mcp"], "--task", sb["tasks_dir"]
    )
    assert code == 1 and "mcp_json:" in out and "sk-demo" not in out


def test_export_openvibe_to_file(tmp_path: Path, capsys) -> None:
    mirror = write_mirror(tmp_path / "mirror", {37: "Reorder the shots.", 38: "Reorder these shots too."})
    out_file = tmp_path / "bench.json"
    code, _, err = run(
        capsys, "export", "openvibe", "--dataset", mirror, "--out", out_file, "--owner", "prj_x"
    )
    assert code == 0 and "2 tasks, 1 judges" in err
    doc = json.loads(out_file.read_text())
    assert validate(doc)["valid"] and doc["owner"] == "prj_x"
    assert [t["id"] for t in doc["tasks"]] == ["sequencing-37", "sequencing-38"]


def test_export_openvibe_stdout_and_refusal(tmp_path: Path, capsys) -> None:
    mirror = write_mirror(tmp_path / "ok", {37: "Reorder the shots."})
    code, out, _ = run(capsys, "export", "openvibe", "--dataset", mirror, "--recap-rubric", "digest")
    assert code == 0 and validate(json.loads(out))["valid"]
    bad = write_mirror(tmp_path / "bad", {37: "x"})
    out_file = tmp_path / "never.json"
    code, out, err = run(capsys, "export", "openvibe", "--dataset", bad, "--out", out_file)
    assert code == 1 and "/tasks/0/prompt" in err and not out_file.exists() and out == ""


def test_export_openvibe_missing_dataset_is_an_input_error(tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, "export", "openvibe", "--dataset", tmp_path / "nope.parquet")
    assert code == 3 and "avb: error" in err


@pytest.mark.slow
def test_export_openvibe_demo_benchmark(tmp_path: Path, capsys) -> None:
    """The embedded demo benchmark (every family, inline repair profiles) exports to a valid document."""
    from agenticvbench.demo import build_demo

    demo = build_demo(tmp_path / "demo")
    out_file = tmp_path / "demo-bench.json"
    code, _, _ = run(capsys, "export", "openvibe", "--dataset", demo.mirror, "--out", out_file)
    assert code == 0
    doc = json.loads(out_file.read_text())
    assert validate(doc)["valid"]
    assert {j["config"]["family"] for j in doc["judges"]} == {"recap", "sequencing", "repair", "assembly"}
    assert all("profile" in t["expected"] for t in doc["tasks"] if t["id"].startswith("repair-"))
