"""Cost beside the scores: Pareto marks by hand, the leaderboard's cost and paired columns, the report section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenticvbench.cli.main import main
from agenticvbench.cost.columns import GroupCost, mark_pareto
from agenticvbench.harbor.importer import import_jobs
from agenticvbench.results.model import write_result
from agenticvbench.runs.submission import RESULTS_DIRNAME

JOB = Path(__file__).resolve().parents[1] / "harbor" / "data" / "usage_job"


def _cost(name: str, macro: float, usd: float | None, extracted: int = 1) -> GroupCost:
    return GroupCost(
        harness="h",
        model=name,
        macro=macro,
        macro_ci=(None, None),
        trials=extracted,
        extracted=extracted,
        total_usd=usd,
        unpriced_models=[] if usd is not None else ["x"],
    )


def test_pareto_frontier_by_hand():
    """(macro, $/task): A (0.5, 1.0) and B (0.4, 0.5) are on the frontier; C (0.3, 0.8) is beaten by B on both;
    D (0.5, 2.0) ties A on score and costs more; E is unpriced and never on it."""
    rows = [
        _cost("A", 0.5, 1.0),
        _cost("B", 0.4, 0.5),
        _cost("C", 0.3, 0.8),
        _cost("D", 0.5, 2.0),
        _cost("E", 0.9, None),
    ]
    mark_pareto(rows)
    assert [r.model for r in rows if r.pareto] == ["A", "B"]
    assert rows[0].points_per_usd == pytest.approx(50.0) and rows[4].points_per_usd is None


def _scored(tmp_path: Path, mk, renames: dict[str, str]) -> list[Path]:
    runs = import_jobs([JOB], tmp_path / "runs").runs
    for run in runs:
        text = (run / "run.json").read_text()
        for old, new in renames.items():
            text = text.replace(old, new)
        (run / "run.json").write_text(text)
        meta = json.loads(text)
        for tid in meta["usage"]:
            fam = next(
                f
                for f, lo, hi in (
                    ("recap", 1, 36),
                    ("sequencing", 37, 64),
                    ("repair", 65, 82),
                    ("assembly", 83, 100),
                )
                if lo <= int(tid) <= hi
            )
            write_result(
                run / RESULTS_DIRNAME,
                mk(
                    int(tid),
                    fam,
                    0.6,
                    harness=meta["harness"],
                    model=meta["model"],
                    rep=meta["rep"],
                    path=str(run),
                ),
            )
    return runs


@pytest.fixture()
def scored_runs(tmp_path, mk) -> list[Path]:
    """The usage job imported, with a synthetic scored result per imported task (score 0.6)."""
    return _scored(tmp_path, mk, {})


@pytest.fixture()
def paper_runs(tmp_path, mk) -> list[Path]:
    """As `scored_runs`, with the Claude models renamed to two the paper ran (Opus 4.7, Sonnet 4.6 as the
    subagent), so the default table (the paper's) prices them."""
    return _scored(
        tmp_path,
        mk,
        {
            "claude-opus-4-1-20250805": "claude-opus-4-7-20260101",
            "claude-opus-4-1": "claude-opus-4-7",
            "claude-3-5-haiku-20241022": "claude-sonnet-4-6",
        },
    )


def test_leaderboard_gains_cost_columns_when_runs_have_usage(scored_runs, capsys):
    """claude-code: $1.1637 over the 2 of 3 trials with usage = 0.58185 $/task; the unpriced model says so; the
    caption says what the cost is over."""
    assert (
        main(
            [
                "leaderboard",
                *map(str, scored_runs),
                "--format",
                "json",
                "--resamples",
                "50",
                "--prices",
                "vendors",
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    cols = doc["extra_columns"]
    per_task, cover = cols["$/task"]["claude-code/anthropic/claude-opus-4-1"].split(" ")
    assert float(per_task) == pytest.approx(1.1637 / 2, abs=1e-4) and cover == "(2/3)"
    assert cols["total $"]["claude-code/anthropic/claude-opus-4-1"] == "1.16"
    assert cols["$/task"]["terminus-2/acme/unlisted-model"] == "unpriced: acme/unlisted-model"
    assert cols["Pareto"]["terminus-2/acme/unlisted-model"] == ""
    assert "trials with usage" in doc["caption"]


def test_compare_to_column_is_the_paired_macro(scored_runs, mk, tmp_path, capsys):
    """--compare-to: the reference row says 'reference'; a row with no shared task says why it is not compared."""
    assert (
        main(
            [
                "leaderboard",
                *map(str, scored_runs),
                "--compare-to",
                "codex/openai/gpt-5",
                "--format",
                "json",
                "--resamples",
                "0",
            ]
        )
        == 0
    )
    col = json.loads(capsys.readouterr().out)["extra_columns"]["vs codex/openai/gpt-5 (paired macro, pts)"]
    assert col["codex/openai/gpt-5"] == "reference"
    assert col["claude-code/anthropic/claude-opus-4-1"].startswith("not compared: ")


def test_report_has_a_cost_section_and_plot(paper_runs, tmp_path):
    """report.md and report.html carry the cost table (the paper's prices), report.json an `agent_cost` block;
    the HTML has the score-versus-cost plot and lists the rows it could not plot (never at $0).
    claude-code by hand at Table 7 prices: recap-001 Opus 4.7 1000 x 5 + 200000 x 0.5 + 10000 x 6.25 + 5000 x 25
    = 0.2925 plus Sonnet 4.6 1500 x 3 = 0.0045; recap-002 (Harbor's totals) 10000 x 5 + 40000 x 0.5 + 1000 x 25
    = 0.095 (per 1M); total 0.392."""
    out = tmp_path / "rep"
    assert main(
        ["report", *map(str, paper_runs), "--format", "all", "--out", str(out), "--resamples", "20"]
    ) in (0, 1)
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert "## Agent cost" in md and "| 2/3 | 0.39 |" in md
    assert "macro score versus agent cost per task" in html
    assert "Not plotted (no cost)" in html and "unpriced: acme/unlisted-model" in html
    cost = {
        (c["harness"], c["model"]): c for c in json.loads((out / "report.json").read_text())["agent_cost"]
    }
    assert cost[("claude-code", "anthropic/claude-opus-4-7")]["total_usd"] == pytest.approx(0.392)
    assert cost[("codex", "openai/gpt-5")]["unpriced_models"] == ["openai/gpt-5"]  # not a model of the paper
