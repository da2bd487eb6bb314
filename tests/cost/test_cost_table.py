"""`avb cost` over imported runs and Harbor job folders: the paper-shaped table, formats, and hand-checked sums."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenticvbench.cli.main import main
from agenticvbench.cost.pricing import load_prices
from agenticvbench.cost.table import build_cost_table
from agenticvbench.harbor.importer import import_jobs
from agenticvbench.harbor.trials import job_trial_costs

JOB = Path(__file__).resolve().parents[1] / "harbor" / "data" / "usage_job"


def test_job_folder_and_its_imported_runs_give_the_same_table(tmp_path):
    """Reading the job directly or the run directories `avb import harbor` made from it: the same rows."""
    runs = import_jobs([JOB], tmp_path / "runs").runs
    direct = build_cost_table([JOB], load_prices("vendors"), read_job=job_trial_costs).rows
    imported = build_cost_table(runs, load_prices("vendors")).rows
    key = lambda r: (r.harness, r.model, r.slice)  # noqa: E731
    assert [(key(r), r.trials, r.extracted, r.tokens, r.cost_usd) for r in sorted(direct, key=key)] == [
        (key(r), r.trials, r.extracted, r.tokens, r.cost_usd) for r in sorted(imported, key=key)
    ]


def test_claude_code_row_by_hand():
    """claude-code / claude-opus-4-1: recap-001 = 0.8787 (log, Opus + Haiku subagent); recap-002 from Harbor
    alone: 10000 x 15 + 40000 x 1.50 + 1000 x 75 per 1M = 0.15 + 0.06 + 0.075 = 0.285; assembly-083 errored
    without usage (missing). Row 'all': 3 trials, 2 extracted, 1 missing, cost 1.1637, 1 of 2 with cache writes."""
    rows = {
        (r.harness, r.slice): r
        for r in build_cost_table([JOB], load_prices("vendors"), read_job=job_trial_costs).rows
    }
    r = rows[("claude-code", "all")]
    assert (r.trials, r.extracted, r.missing, r.errored, r.cache_write_reported) == (3, 2, 1, 1, 1)
    assert r.cost_usd == pytest.approx(0.8787 + 0.285)
    assert (
        rows[("claude-code", "assembly")].cost_usd is None and rows[("claude-code", "assembly")].missing == 1
    )
    # gemini-2.5-pro: 20000 x 1.25 + 30000 x 0.31 + 5000 x 10 per 1M = 0.025 + 0.0093 + 0.05 = 0.0843
    assert rows[("gemini-cli", "repair")].cost_usd == pytest.approx(0.0843)
    assert rows[("terminus-2", "all")].cost_usd is None


def test_cli_formats(tmp_path, capsys):
    """md shows 'unpriced' (never $0) and the caption; json and csv carry the same rows; latex is a table."""
    assert main(["cost", str(JOB), "--prices", "vendors"]) == 0
    md = capsys.readouterr().out
    assert "unpriced: acme/unlisted-model" in md and "trials without (counted, never as free)" in md
    assert main(["cost", str(JOB), "--prices", "vendors", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["prices"]["version"] == load_prices("vendors").version and len(doc["rows"]) == 9
    assert main(["cost", str(JOB), "--prices", "vendors", "--format", "csv"]) == 0
    assert capsys.readouterr().out.count("\n") == 10
    out = tmp_path / "cost.tex"
    assert main(["cost", str(JOB), "--prices", "vendors", "--format", "latex", "--out", str(out)]) == 0
    assert out.read_text().startswith("\\begin{table*}")


def test_cli_price_file_overrides_the_table(tmp_path, capsys):
    """--prices FILE of the same shape: a price for the unlisted model makes its row priced (1000 x 1 + 100 x 2
    per 1M = 0.0012)."""
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps(
            {
                "version": "lab-2026",
                "models": {"unlisted-model": {"input": 1, "cache_read": 0.1, "cache_write": 1, "output": 2}},
            }
        )
    )
    assert main(["cost", str(JOB), "--prices", str(prices), "--format", "json"]) == 0
    rows = {(r["harness"], r["slice"]): r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows[("terminus-2", "all")]["cost_usd"] == pytest.approx(0.0012)
    assert rows[("claude-code", "all")]["cost_usd"] is None  # not in this table: unpriced


def test_cli_bad_path_is_exit_3(tmp_path, capsys):
    """A path that is not a folder: exit 3, one line."""
    assert main(["cost", str(tmp_path / "nope")]) == 3
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
