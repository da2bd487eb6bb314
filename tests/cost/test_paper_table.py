"""`avb cost --paper`: the paper's Table 8 layout, checked against sums computed here from the trials."""

from __future__ import annotations

import csv
import io
import json

import pytest
from cost_helpers import TABLE_7, tokens

from agenticvbench.cli.main import main
from agenticvbench.cost.paper_table import build_paper_table, scaled
from agenticvbench.cost.pricing import load_prices
from agenticvbench.cost.table import build_cost_table

#: (run, harness, model, rep, {task: (uncached input, cache read, cache write, output) or None = missing})
RUNS = [
    (
        "a1",
        "claude-code",
        "anthropic/claude-opus-4-7",
        1,
        {1: (1000, 50000, 4000, 900), 2: None, 40: (10, 0, 0, 5)},
    ),
    ("a2", "claude-code", "anthropic/claude-opus-4-7", 2, {1: (2000, 0, 0, 100), 70: (300, 7000, 0, 40)}),
    ("b1", "codex", "openai/gpt-5.5", 1, {3: (123456, 654321, 0, 9999), 90: None, 91: (5, 6, 7, 8)}),
    (
        "c1",
        "opencode",
        "openrouter/qwen/qwen3-vl-235b-a22b-instruct",
        3,
        {1: (7, 8, 9, 10), 65: (11, 0, 0, 1)},
    ),
]
KEY = {
    "anthropic/claude-opus-4-7": "claude-opus-4-7",
    "openai/gpt-5.5": "gpt-5.5",
    "openrouter/qwen/qwen3-vl-235b-a22b-instruct": "qwen3-vl-235b-instruct",
}


def _runs(make_run):
    return [
        make_run(n, h, m, k, {t: None if v is None else tokens(*v) for t, v in u.items()})
        for n, h, m, k, u in RUNS
    ]


def _expected(recap: bool) -> dict:
    """Rows, extracted, missing, input (all prompt tokens), output and cost of one slice, summed here."""
    rows = ext = inp = out = 0
    cost = 0.0
    reps: dict[tuple[str, str], set[int]] = {}
    for _, harness, model, rep, usage in RUNS:
        for tid, v in usage.items():
            if (tid <= 36) != recap:
                continue
            rows += 1
            reps.setdefault((harness, model), set()).add(rep)
            if v is None:
                continue
            ext += 1
            inp += v[0] + v[1] + v[2]
            out += v[3]
            cost += sum(n * p for n, p in zip(v, TABLE_7[KEY[model]], strict=True)) / 1e6
    return {
        "rows": rows,
        "extracted": ext,
        "missing": rows - ext,
        "in": inp,
        "out": out,
        "cost": cost,
        "k": max(len(v) for v in reps.values()),
    }


def test_two_slices_match_sums_over_the_trials(make_run):
    """Non-Repurpose (sequencing, repair, assembly) and Repurpose (recap): every column equals the sum computed
    from the trials above with Table 7 typed in by hand; missing trials are counted as rows and add nothing."""
    table = build_cost_table(_runs(make_run), load_prices())
    paper = build_paper_table(table.trials, table.prices)
    non, rep = paper.rows
    for row, exp in ((non, _expected(False)), (rep, _expected(True))):
        assert (row.rows, row.extracted, row.missing) == (exp["rows"], exp["extracted"], exp["missing"])
        assert (row.input_tokens, row.output_tokens, row.reps) == (exp["in"], exp["out"], exp["k"])
        assert row.cost_usd == pytest.approx(exp["cost"], rel=1e-12)
    assert non.label == "Non-Repurpose, 3 slices, K=2" and rep.label == "Repurpose, K=2"
    assert (non.missing, rep.missing) == (1, 1)


def test_the_six_sixty_trial_as_table_8(make_run, capsys):
    """The hand check through the command: one claude-opus-4-7 recap trial, 1,000,000 input tokens of which
    200,000 are cache reads, 100,000 output: input tokens 1.000M, output 100.000K, cost $6.60."""
    run = make_run("r", "claude-code", "claude-opus-4-7", 1, {5: tokens(800_000, 200_000, 0, 100_000)})
    assert main(["cost", str(run), "--paper"]) == 0
    md = capsys.readouterr().out
    assert "| Repurpose, K=1 | 1 | 1 | 0 | 1.000M | 100.000K | $6.60 |" in md
    assert "| Non-Repurpose, 0 slices, K=0 |" not in md  # a slice without trials still says its families
    assert "The two costs sum" not in md  # the empty slice has no cost


def test_paper_number_format():
    """Token counts print as the paper's do (9.338B, 69.278M)."""
    assert (scaled(9_338_000_000), scaled(69_278_000), scaled(12_500), scaled(950)) == (
        "9.338B",
        "69.278M",
        "12.500K",
        "950",
    )


def test_formats_carry_the_same_rows(make_run, capsys):
    """json (strict) and csv hold the two rows with the same numbers; latex is one float; unpriced is named."""
    runs = [str(r) for r in _runs(make_run)]
    assert main(["cost", *runs, "--paper", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["slice"] for r in doc["rows"]] == ["Non-Repurpose", "Repurpose"]
    assert doc["rows"][1]["cost_usd"] == pytest.approx(_expected(True)["cost"])
    assert main(["cost", *runs, "--paper", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [int(r["input_tokens"]) for r in rows] == [_expected(False)["in"], _expected(True)["in"]]
    assert main(["cost", *runs, "--paper", "--format", "latex"]) == 0
    assert capsys.readouterr().out.count("\\begin{table*}") == 1
    assert main(["cost", *runs, "--paper", "--prices", "vendors"]) == 0
    assert "unpriced: anthropic/claude-opus-4-7" in capsys.readouterr().out
