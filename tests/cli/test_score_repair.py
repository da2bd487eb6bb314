"""`avb score repair`: official JSON fields, cell resolution (--task-id / --cell / --profile) and exit codes.

The edit rubric is replaced by a fake (through `sys.modules`): these tests are about the CLI plumbing, and the
shipped cells' profiles describe multi-minute sources that the 20-s golden clip does not match.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agenticvbench.cli.score import repair as repair_cmd

GOLDEN_DIR = Path(__file__).parents[1] / "data" / "repair-edit"
PROFILE = json.loads((GOLDEN_DIR / "expected.json").read_text(encoding="utf-8"))["profile"]
KEYS = {
    "task_id",
    "cell",
    "variant",
    "format_score",
    "format_max",
    "localization_score",
    "localization_max",
    "edit_score",
    "edit_max",
    "final_score",
    "detail",
    "error",
}


@dataclass
class _Res:
    score: float
    detail: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


@pytest.fixture
def edit_calls(monkeypatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def score_edit(fixed: Path, source: Path, **kw: Any) -> _Res:
        calls.append({"fixed": fixed, "source": source, **kw})
        return _Res(30.0, {"score": 30.0, "max": 60.0}, ["D-R6: example"])

    mod = types.ModuleType("agenticvbench.verifiers.repair.edit")
    mod.score_edit = score_edit  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agenticvbench.verifiers.repair.edit", mod)
    return calls


def _files(tmp_path: Path, report: str = "## Diagnosis\n- start: 0:08\n- end: 0:10\n") -> list[str]:
    (tmp_path / "report.md").write_text(report, encoding="utf-8")
    return ["--fixed-mp4", str(GOLDEN_DIR / "f_copy.mp4"), "--report-md", str(tmp_path / "report.md")]


def main(argv: list[str]) -> int:
    """`avb score repair ARGV` through this command's own parser (the full CLI imports every command module)."""
    parser = argparse.ArgumentParser(prog="avb score")
    repair_cmd.register(parser.add_subparsers(dest="family"))
    args = parser.parse_args(argv)
    return int(args.func(args))


def _run(capsys, argv: list[str]) -> tuple[int, dict[str, Any], str]:
    code = main(["repair", *argv])
    cap = capsys.readouterr()
    return code, json.loads(cap.out), cap.err


def test_profile_mode(tmp_path, capsys, edit_calls):
    prof = tmp_path / "profile.json"
    prof.write_text(json.dumps(PROFILE), encoding="utf-8")
    code, out, err = _run(
        capsys,
        [
            *_files(tmp_path),
            "--source-mp4",
            str(GOLDEN_DIR / "source.mp4"),
            "--profile",
            str(prof),
            "--no-cache",
            "--workers",
            "1",
        ],
    )
    assert code == 0 and set(out) == KEYS and out["error"] == ""
    assert out["variant"] == "v01_frozen_scene" and out["task_id"] == ""
    assert (out["format_score"], out["localization_score"], out["edit_score"]) == (1.0, 1.0, 0.5)
    assert out["final_score"] == pytest.approx((5 + 35 + 30) / 100)
    assert set(out["detail"]) == {"format", "localization", "edit"}
    assert edit_calls[0]["cache_dir"] is None and edit_calls[0]["workers"] == 1
    assert "avb: warning: D-R6: example" in err


def test_profile_with_injections_is_combined(tmp_path, capsys, edit_calls):
    combined = {k: v for k, v in PROFILE.items() if k != "injection"}
    combined["injections"] = [PROFILE["injection"], {**PROFILE["injection"], "start_s": 12.0, "end_s": 14.0}]
    prof = tmp_path / "profile.json"
    prof.write_text(json.dumps(combined), encoding="utf-8")
    code, out, _ = _run(
        capsys,
        [
            *_files(tmp_path),
            "--source-mp4",
            str(GOLDEN_DIR / "source.mp4"),
            "--profile",
            str(prof),
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
    )
    assert code == 0 and out["variant"] == "_combined"
    assert out["detail"]["localization"]["n_truth"] == 2
    assert edit_calls[0]["window"] == (8.0, 14.0)
    assert edit_calls[0]["cache_dir"] == tmp_path / "cache" / "repair-edit"


def test_cell_mode(tmp_path, capsys, edit_calls):
    code, out, _ = _run(
        capsys,
        [
            *_files(tmp_path, "- start: 14.683\n- end: 17.527\n"),
            "--source-mp4",
            str(GOLDEN_DIR / "source.mp4"),
            "--cell",
            "v4/s1",
        ],
    )
    assert code == 0 and out["cell"] == "v4/s1" and out["variant"] == "v05_noise_floor_spike"
    assert out["localization_score"] == 1.0
    call = edit_calls[0]
    assert (call["duration_s"], call["window"], call["video_share"], call["audio_share"]) == (
        150.071,
        (14.683, 17.527),
        0.1,
        0.9,
    )


def test_unknown_cell_prints_zeros_and_exits_1(tmp_path, capsys, edit_calls):
    code, out, _ = _run(
        capsys, [*_files(tmp_path), "--source-mp4", str(GOLDEN_DIR / "source.mp4"), "--cell", "v9/s9"]
    )
    assert code == 1 and set(out) == KEYS and "v9/s9" in out["error"]
    assert out["final_score"] == 0.0 and edit_calls == []


def test_bad_profile_file_exits_1(tmp_path, capsys, edit_calls):
    prof = tmp_path / "profile.json"
    prof.write_text("{not json", encoding="utf-8")
    code, out, _ = _run(
        capsys, [*_files(tmp_path), "--source-mp4", str(GOLDEN_DIR / "source.mp4"), "--profile", str(prof)]
    )
    assert code == 1 and "could not load profile" in out["error"] and out["final_score"] == 0.0


def test_oversized_report_exits_1(tmp_path, capsys, edit_calls):
    """A report.md over its 1 MB cap is never read: the official-compatible CLI gives an error and exits 1."""
    args = _files(tmp_path)
    (tmp_path / "report.md").write_bytes(b"- start: 8\n- end: 10\n" + b"x" * (1 << 20))
    code, out, _ = _run(capsys, [*args, "--source-mp4", str(GOLDEN_DIR / "source.mp4"), "--cell", "v1/s1"])
    assert code == 1 and "report.md" in out["error"] and out["final_score"] == 0.0


def test_source_required_without_task_id(tmp_path, capsys):
    """A cell without a source video is a usage error: exit 2, one line naming the command (as argparse does)."""
    from agenticvbench.cli.main import main as avb

    assert avb(["score", "repair", *_files(tmp_path), "--cell", "v1/s1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["avb score repair: error: --source-mp4 is required with --cell or --profile"]


@pytest.fixture
def mirror(tmp_path) -> Path:
    """A one-task local dataset mirror: task 65 is repair cell v1/s1 with its source under repair/sources/."""
    root = tmp_path / "mirror"
    (root / "data").mkdir(parents=True)
    (root / "repair" / "sources").mkdir(parents=True)
    shutil.copy(GOLDEN_DIR / "source.mp4", root / "repair" / "sources" / "v1_source.mp4")
    rows = {
        "task_id": [65],
        "task_family": ["repair"],
        "prompt": ["fix it"],
        "reference_file_urls": [["repair/materials/65/broken.mp4"]],
        "verifier_reference_urls": [["repair/sources/v1_source.mp4"]],
        "rubric_json": [json.dumps({"cell": "v1/s1"})],
    }
    pq.write_table(pa.table(rows), root / "data" / "train-00000-of-00001.parquet")
    return root


def test_task_id_mode_fetches_the_source(tmp_path, capsys, edit_calls, mirror):
    code, out, _ = _run(
        capsys,
        [
            *_files(tmp_path, "- start: 22\n- end: 23\n"),
            "--task-id",
            "65",
            "--dataset",
            str(mirror),
            "--cache-dir",
            str(tmp_path / "c"),
        ],
    )
    assert code == 0 and out["task_id"] == "65" and out["cell"] == "v1/s1"
    assert out["localization_score"] == 1.0
    assert edit_calls[0]["source"] == mirror / "repair" / "sources" / "v1_source.mp4"


def test_task_id_not_in_dataset(tmp_path, capsys, edit_calls, mirror):
    code, out, _ = _run(capsys, [*_files(tmp_path), "--task-id", "66", "--dataset", str(mirror)])
    assert code == 1 and out["error"].startswith("could not resolve cell") and set(out) == {"error"}


def test_mistyped_paths_are_named_on_stderr_with_the_official_exit_code(tmp_path, capsys, edit_calls):
    """Regression: a typo in --fixed-mp4 gave rc 0, top-level error "" and final_score 0 with nothing on stderr.
    The official JSON and exit code stay (parity); stderr now names each missing file."""
    code, out, err = _run(
        capsys,
        [
            "--fixed-mp4",
            str(tmp_path / "nope" / "fixed.mp4"),
            "--report-md",
            str(tmp_path / "nope" / "report.md"),
            "--source-mp4",
            str(GOLDEN_DIR / "source.mp4"),
            "--cell",
            "v4/s1",
        ],
    )
    assert code == 0 and out["error"] == "" and out["final_score"] == 0.0
    assert f"avb: warning: --fixed-mp4 {tmp_path / 'nope' / 'fixed.mp4'}: not found" in err
    assert f"--report-md {tmp_path / 'nope' / 'report.md'}: not found" in err
    _, _, err = _run(
        capsys, [*_files(tmp_path), "--source-mp4", str(GOLDEN_DIR / "source.mp4"), "--cell", "v4/s1"]
    )
    assert "not found" not in err
