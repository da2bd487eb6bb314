"""The `costs` table of a publication: the agents' usage and dollars from each run's `run.json`, exactly as
`avb cost` reads and prices them, beside the judge's rows."""

from __future__ import annotations

import io
import json
import math
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from agenticvbench.cli.main import main
from agenticvbench.cost.pricing import load_prices
from agenticvbench.cost.table import build_cost_table
from agenticvbench.hub.publish import stage
from agenticvbench.hub.tables import build_tables

OPUS = "anthropic/claude-opus-4-7-20250805"
#: Claude Opus 4.7 in the paper's Table 7, typed in here (USD per 1M: input, cache read, cache write, output).
OPUS_PRICE = (5.0, 0.5, 6.25, 25.0)


def tokens(i: int, cr: int, cw: int, o: int) -> dict:
    return {
        "input_tokens": i,
        "cache_read_tokens": cr,
        "cache_write_tokens": cw,
        "output_tokens": o,
        "cost_usd": None,
    }


@pytest.fixture
def run_with_usage(scored_demo_runs: dict[str, Path], tmp_path: Path) -> Path:
    """The scored partial run, its run.json given an imported run's usage: task 1 priced (Claude Opus 4.7,
    written as a provider-prefixed dated name), task 2 a model no table prices, task 37 an entry without tokens."""
    run = tmp_path / "agent-run"
    shutil.copytree(scored_demo_runs["partial"], run)
    doc = json.loads((run / "run.json").read_text())
    t1 = tokens(800_000, 200_000, 40_000, 100_000)
    t1["cost_usd"] = 7.5
    t2 = tokens(1_000, 0, 0, 500)
    doc["usage"] = {
        "1": {
            "agent": "claude-code",
            "model": OPUS,
            "source": "claude-code",
            "tokens": t1,
            "by_model": {OPUS: t1},
        },
        "2": {
            "agent": "claude-code",
            "model": "mystery-model-9",
            "source": "harbor",
            "tokens": t2,
            "by_model": {"mystery-model-9": t2},
        },
        "37": {"agent": "claude-code", "model": OPUS, "source": "none", "tokens": {}},
    }
    (run / "run.json").write_text(json.dumps(doc))
    return run


def _costs(folder: Path) -> list[dict]:
    return pq.read_table(folder / "data/costs.parquet").to_pylist()


def test_agent_rows_equal_avb_cost(run_with_usage: Path, tmp_path: Path) -> None:
    staged = stage([run_with_usage], tmp_path / "repo", resamples=10, seed=0)
    assert "costs" in staged.card.tables and "data/costs.parquet" in staged.files
    rows = {r["task_id"]: r for r in _costs(staged.folder) if r["kind"] == "agent"}
    assert sorted(rows) == [1, 2]  # task 37 has no token counts: missing in `avb cost`, no row here

    table = build_cost_table([run_with_usage], load_prices())  # what `avb cost RUN` computes
    by_task = {t.task_id: t for t in table.trials if t.has_usage}
    assert sorted(by_task) == sorted(rows)
    for tid, t in by_task.items():
        row = rows[tid]
        assert row["run"] == "agent-run"
        assert row["input_tokens"] == t.tokens["input_tokens"]
        assert row["cached_input_tokens"] == t.tokens["cache_read_tokens"]
        assert row["cache_write_tokens"] == t.tokens["cache_write_tokens"]
        assert row["output_tokens"] == t.tokens["output_tokens"]
        assert row["cost_usd"] == t.cost_usd
        assert row["price_table_version"] == table.prices.version
        assert row["price_table"] == table.prices.origin
        assert row["judge_calls"] is None and row["prompt_tokens"] is None
    all_row = next(r for r in table.rows if r.slice == "all")
    assert all_row.unpriced_models == ["mystery-model-9"]

    # by hand, from the paper's Table 7 typed in the test: 0.8M x 5 + 0.2M x 0.5 + 0.04M x 6.25 + 0.1M x 25
    i, cr, cw, o = OPUS_PRICE
    assert math.isclose(rows[1]["cost_usd"], (800_000 * i + 200_000 * cr + 40_000 * cw + 100_000 * o) / 1e6)
    assert math.isclose(rows[1]["cost_usd"], 6.85)
    assert (
        rows[1]["reported_cost_usd"] == 7.5 and rows[1]["model"] == "partial"
    )  # the run's model, as `avb cost`
    assert rows[2]["cost_usd"] is None  # unpriced: never $0
    assert rows[2]["unpriced_models"] == ["mystery-model-9"]


def test_another_price_table_and_no_usage(
    run_with_usage: Path, scored_demo_runs: dict[str, Path], tmp_path: Path
) -> None:
    vendors = load_prices("vendors")
    out = tmp_path / "repo"
    args = ["publish", str(run_with_usage), "--repo", "org/x", "--dry-run", str(out), "--prices", "vendors"]
    assert main([*args, "--resamples", "10", "-q"]) == 0
    assert {r["price_table_version"] for r in _costs(out)} == {vendors.version}
    plain = stage([scored_demo_runs["perfect"]], tmp_path / "plain", resamples=10, seed=0)
    assert not (plain.folder / "data/costs.parquet").exists()  # no usage, no judge calls: no table


def test_judge_rows_keep_their_columns() -> None:
    """A judge row keeps the seven published columns and fills the shared ones; agent rows come after."""
    from result_fixtures import make_result

    r = make_result(65, "recap", 0.5)
    r.extra = {
        "judge": {
            "mode": "live",
            "calls": 3,
            "prompt_tokens": 1200,
            "completion_tokens": 40,
            "cost_usd": 0.01,
        }
    }
    raw = build_tables([("run-a", r)], (), load_prices())["costs"]
    row = pq.read_table(io.BytesIO(raw)).to_pylist()[0]
    assert {
        k: row[k]
        for k in (
            "run",
            "task_id",
            "judge_mode",
            "judge_calls",
            "prompt_tokens",
            "completion_tokens",
            "cost_usd",
        )
    } == {
        "run": "run-a",
        "task_id": 65,
        "judge_mode": "live",
        "judge_calls": 3,
        "prompt_tokens": 1200,
        "completion_tokens": 40,
        "cost_usd": 0.01,
    }
    assert row["kind"] == "judge" and row["input_tokens"] == 1200 and row["output_tokens"] == 40
    assert row["price_table"] is None
