"""The JSON of the leaderboard, the report and the comparison is a published format: fields are added, never
renamed. These are the fields people parse (listed in docs/decisions/one-board.md); a rename or a
removal fails here before it reaches a user's parser."""

from __future__ import annotations

import json

from agenticvbench.cli.main import main

FAMILY = ("mean", "ci_low", "ci_high")
BOARD_ROW = ("harness", "model", "macro", "micro", "macro_ci", "micro_ci", "families", "signatures")
BOOTSTRAP = ("resamples", "seed", "level", "clustering")


def _runs(make_run):
    a = make_run("a", {1: ("recap", 0.8), 37: ("sequencing", 0.5), 38: ("sequencing", 0.2)}, harness="x")
    b = make_run("b", {1: ("recap", 0.4), 37: ("sequencing", 0.1), 38: ("sequencing", 0.3)}, harness="y")
    return str(a), str(b)


def _json(capsys, *argv: str) -> dict:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_leaderboard_and_report_json_keep_their_fields(make_run, capsys) -> None:
    """`rows[]` (leaderboard) and `groups[]` (report) carry harness, model, macro, micro, their intervals and
    `families.<f>.mean/ci_low/ci_high`; both carry `caption` or `bootstrap` with resamples, seed, level and
    clustering."""
    a, b = _runs(make_run)
    board = _json(capsys, "leaderboard", a, b, "--format", "json", "--no-floor", "--resamples", "50")
    report = _json(capsys, "report", a, b, "--format", "json", "--no-floor", "--resamples", "50")
    assert isinstance(board["caption"], str) and board["caption"]
    for doc, rows in ((board, board["rows"]), (report, report["groups"])):
        assert all(k in doc["bootstrap"] for k in BOOTSTRAP)
        for row in rows:
            assert all(k in row for k in BOARD_ROW)
            for fam in row["families"].values():
                assert all(k in fam for k in FAMILY)


def test_compare_json_keeps_its_fields(make_run, capsys) -> None:
    """`clustering`, `rows[].cell`, `rows[].stat.n_clusters` and the numbers of each row stay where they are."""
    a, b = _runs(make_run)
    doc = _json(capsys, "compare", a, b, "--format", "json")
    assert isinstance(doc["clustering"], str) and isinstance(doc["caption"], str)
    cells = [r["cell"] for r in doc["rows"]]
    assert cells[-2:] == ["macro", "micro"]
    for row in doc["rows"]:
        assert all(k in row for k in ("mean_a", "mean_b", "p_holm", "won", "lost", "tied", "verdict"))
        assert all(
            k in row["stat"] for k in ("estimate", "ci_low", "ci_high", "p_value", "mdd", "n_clusters")
        )
