"""`avb cost`'s judge section (`agenticvbench.cost.judge`): per-modality rows that add up to the results' totals,
older results under `unknown`, and hostile fields named instead of trusted."""

from __future__ import annotations

import json
from pathlib import Path

from result_fixtures import make_result

from agenticvbench.cost.judge import attach, judge_rows
from agenticvbench.results.model import write_result
from agenticvbench.runs.submission import RESULTS_DIRNAME


def _run(root: Path, extras: list[dict]) -> Path:
    run = root / "run"
    (run / RESULTS_DIRNAME).mkdir(parents=True)
    for tid, extra in enumerate(extras, 1):
        r = make_result(tid, "recap", 0.5, path=str(run))
        r.extra = extra
        write_result(run / RESULTS_DIRNAME, r)
    return run


def _row(calls: int, prompt: int, cost: float, unpriced: int = 0, model: str = "m") -> dict:
    return {
        "calls": calls,
        "prompt_tokens": prompt,
        "completion_tokens": calls * 10,
        "cost_usd": cost,
        "unpriced_calls": unpriced,
        "models": [model],
    }


def test_rows_per_modality_and_all_equal_the_totals(tmp_path: Path) -> None:
    """Two results: one split visual/audio, one written before the split (its totals go to `unknown`); the `all`
    row equals the totals summed independently over the results, and every format but csv carries the table."""
    new = {
        "judge": {
            "prompt_tokens": 300,
            "completion_tokens": 30,
            "cost_usd": 0.003,
            "unpriced_calls": 1,
            "by_modality": {"visual": _row(2, 200, 0.003), "audio": _row(1, 100, 0.0, 1, "aud")},
        }
    }
    old = {"judge": {"calls": 4, "prompt_tokens": 50, "completion_tokens": 5, "cost_usd": 0.001}}
    run = _run(tmp_path, [new, old])
    notes: list[str] = []
    rows = judge_rows([run], notes)
    assert notes == []
    assert [r.modality for r in rows] == ["visual", "audio", "unknown", "all"]
    total = rows[-1]
    assert total.prompt_tokens == 300 + 50 == sum(r.prompt_tokens for r in rows[:-1])
    assert total.completion_tokens == 30 + 5 and abs(total.cost_usd - 0.004) < 1e-12
    assert total.unpriced_calls == 1 and rows[1].models == ["aud"] and rows[2].calls == 4
    md = attach("agents\n", "md", rows)
    assert "| audio | aud |" in md and "0.0000 (+1 unpriced)" in md
    assert "tab:judge-cost-modality" in attach("", "latex", rows)
    assert attach("a,b\n", "csv", rows) == "a,b\n" and attach("x", "md", []) == "x"


def test_a_model_of_several_modalities_is_named_once(tmp_path: Path) -> None:
    """One judge model answering both modalities (the usual setup) was listed twice in the `all` row
    (`gpt-4o-mini, gpt-4o-mini`, and twice in the JSON's `models`); each model is named once, first seen first,
    across modalities and across results."""
    split = {
        "visual": _row(2, 200, 0.002, model="gpt-4o-mini"),
        "audio": _row(1, 100, 0.001, model="gpt-4o-mini"),
    }
    split["audio"]["models"] = ["gpt-4o-mini", "gpt-4o", "gpt-4o-mini"]
    judge = {"prompt_tokens": 300, "completion_tokens": 30, "cost_usd": 0.003, "by_modality": split}
    rows = judge_rows([_run(tmp_path, [{"judge": judge}, {"judge": judge}])], [])
    assert [r.models for r in rows] == [["gpt-4o-mini"], ["gpt-4o-mini", "gpt-4o"], ["gpt-4o-mini", "gpt-4o"]]
    assert "| all | gpt-4o-mini, gpt-4o |" in attach("", "md", rows)
    doc = json.loads(attach("{}", "json", rows))
    assert doc["judge_by_modality"]["rows"][-1]["models"] == ["gpt-4o-mini", "gpt-4o"]


def test_hostile_judge_fields_are_named_and_dropped(tmp_path: Path) -> None:
    """A negative token count, a NaN-like cost string and a made-up modality are each named in a note (file and
    field) and counted as nothing, never a crash or a negative total."""
    bad = {
        "judge": {
            "prompt_tokens": 10,
            "completion_tokens": 0,
            "cost_usd": 0.0,
            "by_modality": {
                "visual": {"calls": 1, "prompt_tokens": -5, "completion_tokens": 0, "cost_usd": "NaN"},
                "smell": _row(1, 10, 0.0),
                "audio": "not an object",
            },
        }
    }
    notes: list[str] = []
    rows = judge_rows([_run(tmp_path, [bad])], notes)
    assert any("by_modality.visual.prompt_tokens" in n for n in notes)
    assert any("by_modality.visual.cost_usd" in n for n in notes)
    assert any("by_modality.smell: not a modality" in n for n in notes)
    assert all(r.prompt_tokens >= 0 for r in rows if r.modality != "unknown")
    assert rows[-1].prompt_tokens == 10  # the totals still hold: the dropped part is `unknown`
