"""Bad user input gets one line on stderr and a documented exit code, never a traceback."""

from __future__ import annotations

import zipfile

import pytest

from agenticvbench.cli.main import EXIT_INPUT, EXIT_USAGE, main
from agenticvbench.dataset.archive import extract_zip
from agenticvbench.errors import ArchiveError


@pytest.fixture
def run_dir(tmp_path):
    (tmp_path / "run" / "37").mkdir(parents=True)
    return tmp_path / "run"


@pytest.mark.parametrize(
    "argv_tail", [["--tasks", "a,b"], ["--tasks", ","], ["--jobs", "0"], ["--jobs", "-1"]]
)
def test_bad_verify_options_are_usage_errors(run_dir, argv_tail, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["verify", str(run_dir), *argv_tail])
    assert exc.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error:" in err


def test_dask_without_scheduler_is_a_usage_error(demo, run_dir, capsys):
    rc = main(["verify", str(run_dir), "--dataset", str(demo.mirror), "--executor", "dask"])
    assert rc == EXIT_USAGE and "--scheduler" in capsys.readouterr().err


def test_bogus_judge_mode_from_environment_is_a_usage_error(demo, run_dir, capsys, monkeypatch):
    monkeypatch.setenv("AVB_JUDGE_MODE", "bogus")
    rc = main(["verify", str(run_dir), "--dataset", str(demo.mirror), "--jobs", "1"])
    assert rc == EXIT_USAGE and "judge" in capsys.readouterr().err


def test_output_path_under_a_file_is_one_line(tmp_path, demo, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc = main(["tasks", "--dataset", str(demo.mirror)])
    assert rc == 0
    capsys.readouterr()
    rc = main(
        ["export", "openvibe", "--dataset", str(demo.mirror), "--out", str(blocker / "sub" / "bench.json")]
    )
    err = capsys.readouterr().err
    assert rc == EXIT_INPUT and "Traceback" not in err and "avb: error:" in err


def test_corrupt_zip_member_is_an_archive_error(tmp_path):
    """Regression: a bad CRC escaped as zipfile.BadZipFile instead of the typed ArchiveError."""
    z = tmp_path / "m.zip"
    with zipfile.ZipFile(z, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("1.mp4", b"A" * 1000)
    data = bytearray(z.read_bytes())
    i = data.find(b"A" * 1000)
    data[i + 10] = ord("B")
    z.write_bytes(bytes(data))
    with pytest.raises(ArchiveError, match="extraction failed"):
        extract_zip(z, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_member_inside_a_file_member_is_rejected(tmp_path):
    z = tmp_path / "m.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("a", b"x")
        zf.writestr("a/b", b"y")
    with pytest.raises(ArchiveError, match="also a file"):
        extract_zip(z, tmp_path / "out")
