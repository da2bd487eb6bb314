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
    return TrialCost(
        harness=harness,
        model=model,
        rep="1",
        task_id=task,
        family="recap" if task <= 36 else "sequencing",
        usage=usage,
    )


@pytest.mark.parametrize("name", ["paper", "vendors"])
def test_shipped_table_has_a_version_and_a_source_for_every_model(name):
    """Every price names its source, and every source has a 'where' and a 'retrieved' date."""
    table = load_prices(name)
    assert table.version and table.models
    for key, price in table.models.items():
        assert price.source in table.sources, key
    assert all({"where", "retrieved"} <= set(s) for s in table.sources.values())


#: The paper's Table 7 (USD per 1M tokens: input / cached input / cache write / output), typed in from the paper.
PAPER_TABLE_7 = {
    "claude-opus-4-7": (5.000, 0.500, 6.250, 25.000),
    "claude-sonnet-4-6": (3.000, 0.300, 3.750, 15.000),
    "gpt-5.5": (5.000, 0.500, 5.000, 30.000),
    "gpt-5.4-mini": (0.750, 0.075, 0.750, 4.500),
    "gemini-3.1-pro": (2.000, 0.200, 0.000, 12.000),
    "gemini-3-flash": (0.500, 0.050, 0.000, 3.000),
    "qwen3-vl-235b-instruct": (0.200, 0.200, 0.200, 0.880),
}


def test_default_table_is_the_papers_table_7_exactly():
    """The default table holds the paper's seven models and nothing else, at the paper's prices, so a cost
    computed with it is comparable with the paper's cost tables (the vendors' table used to be the default and
    priced none of them)."""
    table = load_prices()
    assert table.version == "paper-table-7"
    got = {k: (p.input, p.cache_read, p.cache_write, p.output) for k, p in table.models.items()}
    assert got == PAPER_TABLE_7


@pytest.mark.parametrize(
    "name, key",
    [
        ("gemini-3.1-pro-preview", "gemini-3.1-pro"),
        ("google/gemini-3.1-pro-preview", "gemini-3.1-pro"),
        ("openrouter/google/gemini-3-flash-preview", "gemini-3-flash"),
        ("qwen3-vl-235b-a22b-instruct", "qwen3-vl-235b-instruct"),
        ("openrouter/qwen/qwen3-vl-235b-a22b-instruct", "qwen3-vl-235b-instruct"),
        ("anthropic/claude-opus-4-7-20260101", "claude-opus-4-7"),
        ("Anthropic/Claude-Sonnet-4-6", "claude-sonnet-4-6"),
        ("openai/gpt-5.4-mini-2026-03-17", "gpt-5.4-mini"),
        ("openai/gpt-5.5", "gpt-5.5"),
    ],
)
def test_harness_and_harbor_names_reach_the_papers_models(name, key):
    """The names harnesses and Harbor report (preview names, the a22b id, provider prefixes, date suffixes) are
    the paper's models; without aliases they were unpriced."""
    assert load_prices().lookup(name)[0] == key


def test_paper_table_prices_no_other_model_and_vendors_is_selectable():
    """A model the paper did not run is unpriced under the default table and priced by `vendors`."""
    assert load_prices().lookup("anthropic/claude-opus-4-1") is None
    assert load_prices("vendors").lookup("anthropic/claude-opus-4-1")[0] == "claude-opus-4-1"
    assert load_prices().lookup("claude-opus-4-7-turbo") is None


def test_one_opus_trial_by_hand():
    """The hand check: one claude-opus-4-7 trial with 1,000,000 input tokens of which 200,000 are cache reads
    and 100,000 output tokens costs 0.8 x 5 + 0.2 x 0.5 + 0.1 x 25 = $6.60. Read as Harbor records it
    (`n_input_tokens` includes the cache) and priced with the default table."""
    from agenticvbench.cost.usage import harbor_tokens

    notes: list[str] = []
    tokens = harbor_tokens(
        {"n_input_tokens": 1_000_000, "n_cache_tokens": 200_000, "n_output_tokens": 100_000},
        "t",
        notes,
        True,
    )
    assert (tokens.input_tokens, tokens.cache_read_tokens, tokens.output_tokens) == (
        800_000,
        200_000,
        100_000,
    )
    t = _trial("anthropic/claude-opus-4-7", {k: v for k, v in vars(tokens).items() if k != "cost_usd"})
    price_trial(t, load_prices())
    assert t.cost_usd == pytest.approx(0.8 * 5 + 0.2 * 0.5 + 0.1 * 25, abs=1e-12) and not notes
    assert round(t.cost_usd, 2) == 6.60


def test_model_names_match_without_provider_or_date_and_nothing_fuzzier():
    """'anthropic/claude-opus-4-1-20250805' is claude-opus-4-1; 'openai/gpt-5-codex' is an alias of gpt-5;
    'gpt-5-turbo-x' is not gpt-5 (no prefix matching)."""
    table = load_prices("vendors")
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
    price_trial(t, load_prices("vendors"))
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
    price_trial(t, load_prices("vendors"))
    assert t.cost_usd == pytest.approx(0.8787, abs=1e-12)


def test_unpriced_is_never_zero_and_missing_is_never_free():
    """A row with one unpriced trial has cost None (shown 'unpriced'); a trial without usage is counted as
    missing and adds no tokens; cost per trial divides by the trials with usage only."""
    table = load_prices("vendors")
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
