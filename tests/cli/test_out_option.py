"""`--out` names a file for commands that write one table and a folder for commands that write many, and no
command makes a folder where a file was asked for: `avb baselines --out floor.md` used to make a folder
`floor.md/` holding 16 runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenticvbench.cli.main import main

FOLDER_COMMANDS = [
    ["baselines", "--out"],
    ["report", "RUN", "--out"],
    ["gold", "--out"],
    ["harbor", "export", "--out"],
    ["harbor", "import", "JOB", "--out"],
]


@pytest.mark.parametrize("argv", FOLDER_COMMANDS, ids=lambda a: " ".join(a[:-1]))
@pytest.mark.parametrize("name", ["floor.md", "board.json", "t.CSV"])
def test_folder_option_refuses_a_file_name(argv, name, tmp_path: Path, monkeypatch, capsys) -> None:
    """A document-like name is refused before any work: exit 2, one line naming the value, nothing created."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main([*argv, name])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert name in err and "names a folder" in err
    assert not (tmp_path / name).exists()


def test_folder_option_refuses_an_existing_file(tmp_path: Path, capsys) -> None:
    """An existing file is never turned into (or written over as) a folder."""
    target = tmp_path / "floor"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["baselines", "--out", str(target)])
    assert exc.value.code == 2 and "is a file" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "keep me"


def test_table_commands_still_take_a_file(tmp_path: Path, make_run, capsys) -> None:
    """The commands that write one table keep `--out FILE` (a leaderboard written to board.md is a file)."""
    run = make_run("r", {37: ("sequencing", 0.5)})
    out = tmp_path / "board.md"
    assert main(["leaderboard", str(run), "--out", str(out), "--no-floor", "--resamples", "0"]) == 0
    assert out.is_file() and "| # | harness |" in out.read_text(encoding="utf-8")


def test_power_takes_out_file_as_the_other_table_commands(tmp_path: Path, make_run, capsys) -> None:
    """`avb power ... --out x.md` used to be a usage error with the top-level usage line; it now writes the table
    (and, in JSON, the document) to the file, as compare, cost and leaderboard do."""
    cells = {37: ("sequencing", 0.5), 38: ("sequencing", 0.2), 39: ("sequencing", 0.9)}
    a = make_run("a", cells, model="a")
    b = make_run("b", {t: (f, 1 - s) for t, (f, s) in cells.items()}, model="b")
    assert main(["power", str(a), str(b)]) == 0
    shown = capsys.readouterr().out
    out = tmp_path / "x.md"
    assert main(["power", str(a), str(b), "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n" and out.read_text(encoding="utf-8") == shown
    assert main(["power", str(a), str(b), "--format", "json", "--out", str(tmp_path / "x.json")]) == 0
    assert "rows" in __import__("json").loads((tmp_path / "x.json").read_text(encoding="utf-8"))
