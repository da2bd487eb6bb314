"""`--exclude-flagged` on `avb leaderboard`, `avb report` and `avb compare`: flagged cells are left out of the
means as excluded cells are, counted in the caption and the JSON (`Aggregation`), never listed as infrastructure
failures; by default only the trajectory audit's flags count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenticvbench.analysis.aggregate import FLAGGED_OUT, infra_failures
from agenticvbench.analysis.settings import FLAGGED_DEFAULT, Aggregation, leave_out_flagged
from agenticvbench.cli.main import main
from agenticvbench.results.model import write_result
from agenticvbench.runs.submission import RESULTS_DIRNAME

SENTENCE = (
    "--exclude-flagged: 1 cell(s) flagged answer_access/web_access/foreign_task are left out of the means"
)


def _run(tmp_path: Path, mk, name: str, cells: dict[int, tuple[float, list[str]]]) -> Path:
    run = tmp_path / name
    (run / RESULTS_DIRNAME).mkdir(parents=True)
    for tid, (score, flags) in cells.items():
        r = mk(tid, "sequencing", score, harness=name, path=str(run))
        r.integrity = list(flags)
        write_result(run / RESULTS_DIRNAME, r)
    return run


def test_leave_out_flagged(mk) -> None:
    """Only results with a chosen flag become excluded cells, their reason says why (not an infrastructure
    failure), the chosen flags are dropped and the others kept; applying it twice changes nothing."""
    a, b, c = mk(37, "sequencing", 1.0), mk(38, "sequencing", 0.5), mk(39, "sequencing", 0.2)
    a.integrity, b.integrity = ["rotation", "web_access"], ["rotation"]
    out, n = leave_out_flagged([a, b, c], FLAGGED_DEFAULT)
    assert n == 1 and [r.status for r in out] == ["excluded", "scored", "scored"]
    assert out[0].reason == FLAGGED_OUT + "web_access" and out[0].integrity == ["rotation"]
    assert a.status == "scored" and a.integrity == ["rotation", "web_access"]  # the input is not changed
    assert infra_failures(out) == [] and leave_out_flagged(out, FLAGGED_DEFAULT)[1] == 0
    assert leave_out_flagged([a, b, c], ("rotation",))[1] == 2 and leave_out_flagged([a, b, c], ())[1] == 0
    agg = Aggregation.resolve([a, b, c], cluster=False, exclude_flags=FLAGGED_DEFAULT)
    assert agg.n_flagged == 1 and "1 cell(s) flagged" in agg.exclusion
    assert (
        Aggregation.resolve([a, b, c], cluster=False).exclusion.count("--exclude-flagged") == 0
    )  # off: not said


def test_leaderboard(tmp_path: Path, mk, capsys: pytest.CaptureFixture[str]) -> None:
    """Task 37 (1.0) is flagged answer_access: the mean is 0.75 with it, 0.5 without; the JSON counts the cell,
    the Markdown caption says the rule; `--exclude-flags rotation` leaves this cell in."""
    run = _run(tmp_path, mk, "agent", {37: (1.0, ["answer_access"]), 38: (0.5, [])})
    base = ["leaderboard", str(run), "--resamples", "0", "--no-floor"]

    def board(*extra: str) -> dict:
        assert main([*base, "--format", "json", *extra]) == 0
        return json.loads(capsys.readouterr().out)

    assert board()["rows"][0]["families"]["sequencing"]["mean"] == pytest.approx(0.75)
    doc = board("--exclude-flagged")
    assert doc["rows"][0]["families"]["sequencing"]["mean"] == pytest.approx(0.5)
    assert doc["rows"][0]["infra"] == []
    assert doc["bootstrap"]["flagged_left_out"] == {"flags": list(FLAGGED_DEFAULT), "cells": 1}
    assert board("--exclude-flags", "rotation")["rows"][0]["families"]["sequencing"]["mean"] == pytest.approx(
        0.75
    )
    assert main([*base, "--exclude-flagged"]) == 0
    assert SENTENCE in capsys.readouterr().out.replace("\n", " ")
    with pytest.raises(SystemExit) as exc:
        main([*base, "--exclude-flags", "cheating"])
    assert exc.value.code == 2 and "unknown integrity flag(s) cheating" in capsys.readouterr().err


def test_report(tmp_path: Path, mk, capsys: pytest.CaptureFixture[str]) -> None:
    """The report's headline leaves the flagged cell out, its task row shows it excluded, the caption says so."""
    run = _run(tmp_path, mk, "agent", {37: (1.0, ["foreign_task"]), 38: (0.5, [])})
    assert (
        main(["report", str(run), "--exclude-flagged", "--resamples", "0", "--no-floor", "--format", "json"])
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    text = json.dumps(doc)
    assert SENTENCE in text and FLAGGED_OUT + "foreign_task" in text
    assert main(["report", str(run), "--exclude-flagged", "--resamples", "0", "--no-floor"]) == 0
    out = capsys.readouterr().out
    assert SENTENCE in out.replace("\n", " ") and "| 0.5000 | 0.5000 | 0.5000 |" in out
    assert "| 0 | 0 | 0 | 0/2 |" in out  # infra 0: a flagged cell is not an infrastructure failure


def test_report_task_table_says_why_a_cell_was_excluded(
    tmp_path: Path, mk, capsys: pytest.CaptureFixture[str]
) -> None:
    """The per-task table labelled every excluded cell "excluded (infra)", a flagged cell too: a reader would
    look for an infrastructure failure to rerun. A flagged cell reads "excluded (flagged)", an infra one as before."""
    run = _run(tmp_path, mk, "agent", {37: (1.0, ["foreign_task"]), 38: (0.5, [])})
    infra = mk(39, "sequencing", 0.0, harness="agent", path=str(run))
    infra.status, infra.reason = "excluded", "timeout: the agent did not finish"
    write_result(run / RESULTS_DIRNAME, infra)
    assert main(["report", str(run), "--exclude-flagged", "--resamples", "0", "--no-floor"]) == 0
    rows = {
        line.split("|")[1].strip(): line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| 3")
    }
    assert "excluded (flagged)" in rows["37"] and "excluded (infra)" in rows["39"] and "0.5000" in rows["38"]


def test_compare(tmp_path: Path, mk, capsys: pytest.CaptureFixture[str]) -> None:
    """A's flagged task is left out of the paired differences (as an excluded cell) and the JSON counts it."""
    a = _run(tmp_path, mk, "a", {37: (1.0, ["web_access"]), 38: (0.5, []), 39: (0.9, [])})
    b = _run(tmp_path, mk, "b", {37: (0.0, []), 38: (0.4, []), 39: (0.1, [])})
    assert main(["compare", str(a), str(b), "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["compare", str(a), str(b), "--format", "json", "--exclude-flagged"]) == 0
    doc = json.loads(capsys.readouterr().out)
    seq = {r["cell"]: r for r in doc["rows"]}["sequencing"]
    assert plain["flagged_out"] == 0 and doc["flagged_out"] == 1 and seq["excluded"] == 1
    assert seq["stat"]["n_tasks"] == 2 and SENTENCE in doc["caption"]
    assert "or flagged cells under --exclude-flagged" in doc["caption"]
