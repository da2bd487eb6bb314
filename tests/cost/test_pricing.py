"""Pricing agent usage: model matching, the shipped table's shape, and costs computed by hand."""

from __future__ import annotations

import json

import pytest

from agenticvbench.cost.pricing import TrialCost, cost_rows, load_prices, price_trial
from agenticvbench.errors import ConfigError


def _trial(
    model: str,
    tokens: dict,
    *,
    by_model: dict | None = None,
    task: int = 1,
    harness: str = "h",
    errored: bool = False,
) -> TrialCost:
    usage = {"tokens": {"cost_usd": None, **tokens}, "by_model": by_model or {}, "errored": errored}
    return TrialCost(harness, model, "1", task, "recap" if task <= 36 else "sequencing", usage)


def test_shipped_table_has_a_version_and_a_source_for_every_model():
    """Every price names its vendor source, and every source has a 'where' and a 'retrieved' date."""
    table = load_prices()
    assert table.version and table.models
    for key, price in table.models.items():
        assert price.source in table.sources, key
    assert all({"where", "retrieved"} <= set(s) for s in table.sources.values())


def test_model_names_match_without_provider_or_date_and_nothing_fuzzier():
    """'anthropic/claude-opus-4-1-20250805' is claude-opus-4-1; 'openai/gpt-5-codex' is an alias of gpt-5;
    'gpt-5-turbo-x' is not gpt-5 (no prefix matching)."""
    table = load_prices()
    assert table.lookup("anthropic/claude-opus-4-1-20250805")[0] == "claude-opus-4-1"
    assert table.lookup("openai/gpt-5-codex")[0] == "gpt-5"
    assert table.lookup("gpt-5-turbo-x") is None and table.lookup("acme/unlisted") is None


def test_cost_of_four_buckets_by_hand():
    """claude-opus-4-1 (15 / 1.50 / 18.75 / 75 USD per 1M): 1000 input + 200000 cache read + 10000 cache write +
    5000 output = 0.015 + 0.300 + 0.1875 + 0.375 = 0.8775 USD."""
    t = _trial(
        "anthropic/claude-opus-4-1",
        {
            "input_tokens": 1000,
            "cache_read_tokens": 200000,
            "cache_write_tokens": 10000,
            "output_tokens": 5000,
        },
    )
    price_trial(t, load_prices())
    assert t.cost_usd == pytest.approx(0.8775, abs=1e-12)


def test_per_model_breakdown_is_priced_model_by_model():
    """Opus as above (0.8775) plus a Haiku 3.5 subagent with 1500 input at 0.80 per 1M = 0.0012: 0.8787."""
    by_model = {
        "claude-opus-4-1-20250805": {
            "input_tokens": 1000,
            "cache_read_tokens": 200000,
            "cache_write_tokens": 10000,
            "output_tokens": 5000,
        },
        "claude-3-5-haiku-20241022": {"input_tokens": 1500, "output_tokens": 0},
    }
    t = _trial("anthropic/claude-opus-4-1", {"input_tokens": 2500}, by_model=by_model)
    price_trial(t, load_prices())
    assert t.cost_usd == pytest.approx(0.8787, abs=1e-12)


def test_unpriced_is_never_zero_and_missing_is_never_free():
    """A row with one unpriced trial has cost None (shown 'unpriced'); a trial without usage is counted as
    missing and adds no tokens; cost per trial divides by the trials with usage only."""
    table = load_prices()
    trials = [
        _trial("openai/gpt-5", {"input_tokens": 20000, "cache_read_tokens": 100000, "output_tokens": 6000}),
        _trial("openai/gpt-5", {}, task=2, errored=True),
        _trial("acme/unlisted", {"input_tokens": 5}, harness="other"),
    ]
    for t in trials:
        price_trial(t, table)
    rows = {(r.harness, r.slice): r for r in cost_rows(trials)}
    gpt = rows[("h", "all")]
    # 20000 x 1.25 + 100000 x 0.125 + 6000 x 10 = 0.025 + 0.0125 + 0.06 = 0.0975 USD
    assert (gpt.trials, gpt.extracted, gpt.missing, gpt.errored) == (2, 1, 1, 1)
    assert gpt.cost_usd == pytest.approx(0.0975) and gpt.cost_per_trial == pytest.approx(0.0975)
    other = rows[("other", "all")]
    assert (
        other.cost_usd is None and other.unpriced_trials == 1 and other.unpriced_models == ["acme/unlisted"]
    )


def test_a_bad_price_file_is_one_line_naming_the_field(tmp_path):
    """--prices with a negative rate: ConfigError naming the file and the field."""
    bad = tmp_path / "p.json"
    bad.write_text(
        json.dumps(
            {"version": "x", "models": {"m": {"input": -1, "cache_read": 0, "cache_write": 0, "output": 1}}}
        )
    )
    with pytest.raises(ConfigError, match=r"p\.json: field 'models\.m\.input'"):
        load_prices(bad)
