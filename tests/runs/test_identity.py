"""Run identity: one `RunIdentity`, resolved for a run folder, written into results and read back by reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenticvbench.analysis.aggregate import RunRef, run_ref
from agenticvbench.results.model import Result, read_result, write_result
from agenticvbench.runs.identity import RunIdentity, folder_model
from agenticvbench.runs.submission import open_run


def _result(run: dict) -> Result:
    return Result(
        task_id=37,
        family="sequencing",
        status="scored",
        final_score=0.5,
        adjusted_final_score=0.5,
        headline_score=0.5,
        run=run,
    )


def test_resolved_identity_writes_the_block_result_files_always_held(tmp_path: Path) -> None:
    """The engine's `Result.run` is unchanged byte for byte (key order too), so hashes and signatures hold."""
    ident = RunIdentity.resolve(tmp_path, {"harness": " h ", "rep": 2}, {"model": "m"})
    legacy = {
        "path": str(tmp_path),
        "harness": "h",
        "model": "m",
        "rep": 2,
        "identity_source": {"harness": "run.json", "model": "option", "rep": "run.json"},
    }
    assert json.dumps(ident.to_dict()) == json.dumps(legacy)
    assert RunIdentity.resolve(tmp_path, None, {"rep": "7"}).rep == 7  # --rep 7 is an int, as in run.json


def test_round_trip_through_a_result_file(tmp_path: Path) -> None:
    """to_dict -> result file -> from_dict gives the identity back, for new and for older result blocks."""
    ident = RunIdentity.resolve(tmp_path / "run", {"harness": "h", "model": "m", "rep": "a"})
    write_result(tmp_path / "out", _result(ident.to_dict()))
    back = read_result(tmp_path / "out" / "37.json")
    assert back is not None and back.identity == ident and back.identity.to_dict() == ident.to_dict()
    old = {"path": "/runs/x", "harness": "h", "model": "m", "rep": None}  # written before identity_source
    assert RunIdentity.from_dict(old).to_dict() == old
    copied = {**ident.to_dict(), "recorded_path": "/elsewhere"}  # what a reader sets for a copied run
    assert RunIdentity.from_dict(copied).to_dict() == copied


def test_folder_name_fallback_is_the_same_from_a_run_folder_and_from_a_result(tmp_path: Path) -> None:
    """The fallback used to live in the engine's identity and again in the report's `run_ref`; now one rule.
    A run folder without run.json and an older result saying model "unknown" give the same report key."""
    run = tmp_path / "alpha-run"
    (run / "37").mkdir(parents=True)
    resolved = RunIdentity.resolve(open_run(run).path, open_run(run).meta)
    assert (resolved.harness, resolved.model, dict(resolved.source)["model"]) == (
        "unknown",
        "alpha-run",
        "folder name",
    )
    write_result(
        run / "avb-results",
        _result({"path": str(run.resolve()), "harness": "unknown", "model": "unknown", "rep": None}),
    )  # an older file
    back = read_result(run / "avb-results" / "37.json")
    assert back is not None and back.run["model"] == "unknown"  # the file is read as written
    assert (
        run_ref(back)
        == RunRef.of(resolved)
        == RunRef(harness="unknown", model="alpha-run", rep="", path=str(run.resolve()))
    )
    assert dict(back.identity.named().source)["model"] == "folder name"


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/runs/alpha", "alpha"),
        ("/runs/alpha/", "alpha"),
        ("C:\\runs\\beta", "beta"),
        ("/runs/a\\b", "a\\b"),
        ("/", None),
        ("", None),
    ],
)
def test_folder_model_names_the_last_folder(path: str, name: str | None) -> None:
    """POSIX paths name their last component as `Path.name` does; a Windows-recorded path its last folder."""
    assert folder_model(path) == name


@pytest.mark.parametrize(
    "run",
    [
        None,
        7,
        "x",
        [],
        {"path": 5, "harness": ["h"], "model": {"m": 1}, "rep": True},
        {"path": "/r/q", "identity_source": 7, "recorded_path": [1], "rep": 2.5},
        {"path": "/r/q", "identity_source": {"model": 3, 4: "x"}, "rep": 1.0},
    ],
)
def test_run_blocks_of_the_wrong_shape_read_as_absent_fields(run: object) -> None:
    """Hostile input: a `run` block with wrong types gives defaults (never an exception), and the report key
    still builds (the folder name when there is a path)."""
    ident = RunIdentity.from_dict(run)
    assert ident.harness == "unknown" and ident.rep in (None, 1) and ident.source == ()
    ref = RunRef.of(ident)
    assert ref.model == ("q" if ident.path == "/r/q" else "unknown")
    assert RunIdentity.from_dict(ident.to_dict()) == ident


def test_crafted_run_block_in_a_result_file_does_not_crash_report_or_leaderboard(
    tmp_path: Path, capsys
) -> None:
    """A result file whose `run` passes the schema but holds wrong types elsewhere (identity_source, recorded_path,
    a float rep) is reported like any other run."""
    from agenticvbench.cli.main import main

    run = tmp_path / "crafted"
    write_result(
        run / "avb-results",
        _result(
            {
                "path": "/nowhere/else",
                "harness": "h",
                "model": "unknown",
                "rep": 3.0,
                "identity_source": 7,
                "recorded_path": [1],
                "extra": {"x": 1},
            }
        ),
    )
    assert main(["report", str(run), "--resamples", "0", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "crafted" in json.dumps(report)
    assert main(["leaderboard", str(run), "--resamples", "0", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["harness"], r["model"]) for r in rows] == [("h", "crafted")]
