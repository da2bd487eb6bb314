"""One trust rule for every reader of results: the Python API, `avb leaderboard`, `avb compare` and `avb power`
look the result key up the same way (as `avb verify` finds it) and count the same signatures; compare and power
name the runs whose results are not signed with it, and `--require-signed` refuses them."""

from __future__ import annotations

import json

from agenticvbench.cli.main import main
from agenticvbench.report.leaderboard import leaderboard_from_runs
from agenticvbench.report.summary import build_report, load_comparison
from agenticvbench.results.model import canonical_sha256, load_results


def _scored_pair(hostile_run, score_run):
    """Two runs with the same two assembly tasks scored (signed by the session's key), and one planted result."""
    a, b = hostile_run("partial"), hostile_run("perfect")
    score_run(a.root, [83, 84])
    score_run(b.root, [83, 84])
    planted = json.loads((b.results() / "84.json").read_text())
    planted.pop("signature", None)
    planted["result_sha256"] = canonical_sha256(planted)
    (b.results() / "84.json").write_text(json.dumps(planted))
    return a, b


def test_python_api_counts_signatures_like_the_cli(hostile_run, score_run, capsys):
    """`leaderboard_from_runs(paths)` used to check no key (signed 0/2) where `avb leaderboard` showed 2/2; the
    API now looks the key up as the CLI does, and `load_results` / `build_report(load_comparison(...))` agree."""
    a, _ = _scored_pair(hostile_run, score_run)
    board = leaderboard_from_runs([a.root], resamples=0)
    assert board.frame().iloc[0][["signed", "results"]].tolist() == [2, 2]
    assert main(["leaderboard", str(a.root), "--no-floor", "--resamples", "0"]) in (0, 1)
    assert "| 2/2 |" in capsys.readouterr().out
    assert set(load_results(a.root)["signature"]) == {"valid"}
    report = build_report(load_comparison([a.root]), resamples=0)
    assert report.signatures["total"] == {"results": 2, "valid": 2}
    assert "no result key" not in report.signatures["key"]


def test_compare_and_power_name_unsigned_results_and_can_refuse_them(hostile_run, score_run, capsys):
    """`avb compare` and `avb power` read a planted (never scored) result without a word; they now warn by run,
    and `--require-signed` makes it a one-line refusal (exit 3) instead of a number."""
    a, b = _scored_pair(hostile_run, score_run)
    assert main(["compare", str(a.root), str(b.root), "--no-cluster"]) == 0
    err = capsys.readouterr().err
    assert f"{b.root}: 1 result(s) not signed with the result key" in err and "(1 unsigned)" in err
    assert str(a.root) + ":" not in err
    assert main(["compare", str(a.root), str(b.root), "--no-cluster", "--require-signed"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--require-signed refuses them" in err[0]
    assert main(["power", str(a.root), str(b.root), "--no-cluster", "--require-signed"]) == 3
    assert "--require-signed refuses them" in capsys.readouterr().err
    assert main(["power", str(a.root), str(b.root), "--no-cluster"]) == 0
    assert "1 result(s) not signed" in capsys.readouterr().err


def test_results_of_one_run_stay_by_task(hostile_run, score_run):
    """Guard for the fixtures above: the planted file is task 84 of the second run, and it still reads."""
    _, b = _scored_pair(hostile_run, score_run)
    assert {r.task_id: r.signature_status for r in load_comparison([b.root])} == {83: "valid", 84: "unsigned"}


def test_every_reader_that_shows_signatures_can_refuse_unsigned_results(
    hostile_run, score_run, capsys, tmp_path
):
    """`--require-signed` is on every command that shows signature status: report, leaderboard, view and explain
    refuse the planted result in one line (exit 3), as compare and power do; the signed run passes."""
    a, b = _scored_pair(hostile_run, score_run)
    refusals = [
        ["report", str(b.root), "--no-floor", "--resamples", "0", "--require-signed"],
        ["leaderboard", str(b.root), "--no-floor", "--resamples", "0", "--require-signed"],
        ["view", str(b.root), "--bundle", str(tmp_path / "bundle"), "--media", "none", "--require-signed"],
        ["explain", str(b.root), "84", "--require-signed"],
    ]
    for argv in refusals:
        capsys.readouterr()
        assert main(argv) == 3, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--require-signed refuses them" in err[0], argv
    assert not (tmp_path / "bundle").exists()
    assert main(["explain", str(a.root), "84", "--require-signed"]) == 0
    assert main(["leaderboard", str(a.root), "--no-floor", "--resamples", "0", "--require-signed"]) == 0
