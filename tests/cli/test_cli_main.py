"""The CLI shell: commands exist, errors map to documented exit codes, tasks/download work on a mirror."""

from __future__ import annotations

import json
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agenticvbench.cli.main import EXIT_INPUT, EXIT_USAGE, main


@pytest.fixture
def mirror(tmp_path):
    root = tmp_path / "mirror"
    (root / "data").mkdir(parents=True)
    (root / "sequencing" / "materials").mkdir(parents=True)
    with zipfile.ZipFile(root / "sequencing" / "materials" / "37.zip", "w") as zf:
        zf.writestr("1.mp4", b"a")
        zf.writestr("2.mp4", b"b")
    rows = {
        "task_id": [37, 65],
        "task_family": ["sequencing", "repair"],
        "prompt": ["Put the shots in order.", "Fix the video."],
        "reference_file_urls": [["sequencing/materials/37.zip"], ["repair/materials/65/broken.mp4"]],
        "verifier_reference_urls": [None, ["repair/sources/v1_source.mp4"]],
        "rubric_json": [
            json.dumps({"correct_order": ["2", "1"], "n_slots": 2}),
            json.dumps({"cell": "v1/s1"}),
        ],
    }
    pq.write_table(pa.table(rows), root / "data" / "train-00000-of-00001.parquet")
    return root


def test_no_command_is_usage_error(capsys):
    assert main([]) == EXIT_USAGE


def test_every_documented_command_is_registered(capsys):
    """README documents these commands; each must parse its --help (argparse exits 0)."""
    for cmd in (["tasks"], ["tasks", "show"], ["download"], ["verify"], ["demo"], ["score"]):
        with pytest.raises(SystemExit) as exc:
            main([*cmd, "--help"])
        assert exc.value.code == 0, cmd


def test_tasks_table_and_json(mirror, capsys):
    assert main(["tasks", "--dataset", str(mirror)]) == 0
    out = capsys.readouterr().out
    assert "sequencing" in out and "2 task(s)" in out
    assert main(["tasks", "--dataset", str(mirror), "--family", "repair", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["task_id"] for d in data] == [65]


def test_tasks_show_prints_parsed_rubric(mirror, capsys):
    """`tasks show` hides the answer by default and prints the parsed rubric with --with-answers."""
    assert main(["tasks", "show", "37", "--dataset", str(mirror)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "correct_order" not in data["rubric"] and data["hidden"] == ["correct_order"]
    assert data["rubric"] == {"n_slots": 2}
    assert main(["tasks", "show", "37", "--dataset", str(mirror), "--with-answers"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rubric"]["correct_order"] == ["2", "1"]


def test_unknown_task_is_input_error_without_traceback(mirror, capsys):
    assert main(["tasks", "show", "99", "--dataset", str(mirror)]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "task 99" in err and "Traceback" not in err


def test_missing_dataset_path_is_input_error(tmp_path, capsys):
    assert main(["tasks", "--dataset", str(tmp_path / "nope" / "x.parquet")]) == EXIT_INPUT
    assert "no such file" in capsys.readouterr().err


def test_download_extracts_zip_materials(mirror, tmp_path, capsys):
    rc = main(
        ["download", "--dataset", str(mirror), "--task", "37", "--cache-dir", str(tmp_path / "c"), "--json"]
    )
    assert rc == 0
    files = json.loads(capsys.readouterr().out)["37"]["materials"]
    assert sorted(p.rsplit("/", 1)[1] for p in files) == ["1.mp4", "2.mp4"]


def test_verify_missing_run_dir_is_input_error(mirror, tmp_path, capsys):
    rc = main(["verify", str(tmp_path / "no-run"), "--dataset", str(mirror), "--jobs", "1"])
    assert rc == EXIT_INPUT
    assert "run directory not found" in capsys.readouterr().err
