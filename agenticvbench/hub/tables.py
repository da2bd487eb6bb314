"""The Parquet tables of a published repo, derived from its result files, and the pull's check that they agree.

- `runs`: one row per run: run (its name in the repo), harness, model, rep, results, scored, the key id its
  results are signed with, the dataset they were scored against, the agenticvbench and verifier versions;
- `results`: one row per (run, task): status, headline_score, final_score, adjusted_final_score, reason,
  components (JSON text), integrity flags and warnings (lists), input_hashes (JSON text), result_sha256;
- `recap_items`: one row per rubric item of a judged family (recap): outcome, passed, score, weight, pillar, dispatch, reason;
- `costs` (only when it has rows): one row per (run, task, kind): `kind` "judge" (the judge calls, tokens and
  cost a result file records) or "agent" (the agent's usage `avb cost` reads from the run's `run.json`, priced with
  the same price table and code: `agent_cost_rows`).

Every column is derived from a result file, except the agent rows of `costs` (the runs' `run.json`, read and priced
by `agenticvbench.cost`); nothing here computes a score. `check_tables` is what a pull runs:
the `results` table must have one row per result file with its status, scores and `result_sha256`, every number
finite, so a table that was edited (or holds NaN) cannot stand beside the files it claims to summarise.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from agenticvbench.cost.pricing import PriceTable, TrialCost
from agenticvbench.results.model import Result
from agenticvbench.verifiers import uses_judge

TABLES = ("runs", "results", "recap_items", "costs")
_NUMBERS = ("headline_score", "final_score", "adjusted_final_score")

RunResults = Sequence[tuple[str, Result]]  # (run name in the repo, result)
AgentTrials = Sequence[tuple[str, TrialCost]]  # (run name in the repo, a priced trial with usage)

#: The columns every `costs` row has beyond the judge's original seven (added, never renamed: the card format is
#: published). Token buckets are disjoint: input = uncached input.
_COST_COMMON = (
    "kind",
    "model",
    "input_tokens",
    "cached_input_tokens",
    "cache_write_tokens",
    "output_tokens",
    "reported_cost_usd",
    "unpriced_models",
    "price_table",
    "price_table_version",
)


def _text_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _results_rows(items: RunResults) -> list[dict[str, Any]]:
    rows = []
    for run, r in items:
        ident = r.identity
        rows.append(
            {
                "run": run,
                "harness": ident.harness,
                "model": ident.model,
                "rep": None if ident.rep is None else str(ident.rep),
                "task_id": int(r.task_id),
                "family": r.family,
                "status": r.status,
                "headline_score": float(r.headline_score),
                "final_score": float(r.final_score),
                "adjusted_final_score": r.adjusted_final_score,
                "reason": r.reason,
                "components": _text_json(r.components),
                "integrity": [str(x) for x in r.integrity],
                "warnings": [str(x) for x in r.warnings],
                "input_hashes": _text_json((r.provenance or {}).get("input_hashes", {})),
                "result_sha256": r.result_sha256,
                "signature_key_id": str((r.signature or {}).get("key_id", "")),
                "verifier_version": str((r.provenance or {}).get("verifier_version", "")),
            }
        )
    return rows


def _runs_rows(items: RunResults) -> list[dict[str, Any]]:
    by_run: dict[str, list[Result]] = {}
    for run, r in items:
        by_run.setdefault(run, []).append(r)
    rows = []
    for run, results in by_run.items():
        ident = results[0].identity
        datasets = sorted({_dataset_label(r) for r in results} - {""})
        rows.append(
            {
                "run": run,
                "harness": ident.harness,
                "model": ident.model,
                "rep": None if ident.rep is None else str(ident.rep),
                "results": len(results),
                "scored": sum(r.status == "scored" for r in results),
                "signature_key_ids": sorted(
                    {str((r.signature or {}).get("key_id", "")) for r in results} - {""}
                ),
                "datasets": datasets,
                "package_versions": sorted(
                    {str((r.provenance or {}).get("package_version", "")) for r in results}
                ),
                "verifier_versions": sorted(
                    {str((r.provenance or {}).get("verifier_version", "")) for r in results}
                ),
            }
        )
    return rows


def _dataset_label(r: Result) -> str:
    d = (r.provenance or {}).get("dataset")
    if not isinstance(d, Mapping):
        return ""
    return f"{d.get('kind')}:{d.get('dataset')}@{d.get('resolved_revision')}"


def _recap_rows(items: RunResults) -> list[dict[str, Any]]:
    rows = []
    for run, r in items:
        if not uses_judge(r.family) or not isinstance(r.detail, Mapping):  # rubric families (recap)
            continue
        for item in r.detail.get("items") or []:
            if not isinstance(item, Mapping):
                continue
            score, weight = item.get("score"), item.get("weight")
            rows.append(
                {
                    "run": run,
                    "task_id": int(r.task_id),
                    "item_id": str(item.get("item_id", "")),
                    "pillar": str(item.get("pillar_name", "")),
                    "dispatch": str(item.get("dispatch", "")),
                    "kind": None if item.get("kind") is None else str(item.get("kind")),
                    "outcome": str(item.get("outcome", "")),
                    "passed": item.get("passed") if isinstance(item.get("passed"), bool) else None,
                    "score": float(score) if isinstance(score, (int, float)) else None,
                    "weight": float(weight) if isinstance(weight, (int, float)) else None,
                    "reason": str(item.get("reason", "")),
                }
            )
    return rows


def _judge_cost_rows(items: RunResults) -> list[dict[str, Any]]:
    rows = []
    for run, r in items:
        judge = (r.extra or {}).get("judge") if isinstance(r.extra, Mapping) else None
        if not isinstance(judge, Mapping):
            continue
        prompt, completion = int(judge.get("prompt_tokens") or 0), int(judge.get("completion_tokens") or 0)
        model = judge.get("model")
        rows.append(
            {
                "run": run,
                "task_id": int(r.task_id),
                "judge_mode": str(judge.get("mode", "")),
                "judge_calls": int(judge.get("calls") or 0),
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "cost_usd": float(judge["cost_usd"])
                if isinstance(judge.get("cost_usd"), (int, float))
                else None,
                "kind": "judge",
                "model": model if isinstance(model, str) else None,
                "input_tokens": prompt,  # the judge reports prompt tokens, cached or not
                "cached_input_tokens": None,
                "cache_write_tokens": None,
                "output_tokens": completion,
                "reported_cost_usd": None,
                "unpriced_models": [],
                "price_table": None,  # the judge's cost is the endpoint's own figure
                "price_table_version": None,
            }
        )
    return rows if any(row["judge_calls"] or row["cost_usd"] for row in rows) else []


def agent_cost_rows(trials: AgentTrials, prices: PriceTable) -> list[dict[str, Any]]:
    """One `costs` row per trial with usage, from the `TrialCost`s `avb cost` reads (`cost.table.load_trials`)
    and prices (`cost.pricing.price_trial` under `prices`): the same tokens and dollars; `cost_usd` is None when
    some model of the trial is unpriced (never 0)."""
    rows = []
    for run, t in trials:
        if not t.has_usage:
            continue
        tok = t.tokens
        reported = tok.get("cost_usd")
        rows.append(
            {
                "run": run,
                "task_id": int(t.task_id),
                "judge_mode": None,
                "judge_calls": None,
                "prompt_tokens": None,
                "completion_tokens": None,
                "cost_usd": None if t.unpriced else t.cost_usd,
                "kind": "agent",
                "model": t.model,
                "input_tokens": tok.get("input_tokens"),
                "cached_input_tokens": tok.get("cache_read_tokens"),
                "cache_write_tokens": tok.get("cache_write_tokens"),
                "output_tokens": tok.get("output_tokens"),
                "reported_cost_usd": None if reported is None else float(reported),
                "unpriced_models": list(t.unpriced),
                "price_table": prices.origin,
                "price_table_version": prices.version,
            }
        )
    return rows


_COST_SCHEMA = pa.schema(
    [
        ("run", pa.string()),
        ("task_id", pa.int64()),
        ("judge_mode", pa.string()),
        ("judge_calls", pa.int64()),
        ("prompt_tokens", pa.int64()),
        ("completion_tokens", pa.int64()),
        ("cost_usd", pa.float64()),
        ("kind", pa.string()),
        ("model", pa.string()),
        ("input_tokens", pa.int64()),
        ("cached_input_tokens", pa.int64()),
        ("cache_write_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("reported_cost_usd", pa.float64()),
        ("unpriced_models", pa.list_(pa.string())),
        ("price_table", pa.string()),
        ("price_table_version", pa.string()),
    ]
)
assert _COST_SCHEMA.names[7:] == list(_COST_COMMON)


def build_tables(
    items: RunResults, agent: AgentTrials = (), prices: PriceTable | None = None
) -> dict[str, bytes]:
    """Table name -> Parquet bytes; `recap_items` and `costs` only when they have rows (`costs`: the judge rows
    of `items`, then the agent rows of `agent`, priced with `prices`, the table they were priced with)."""
    agent_rows = agent_cost_rows(agent, prices) if prices is not None else []
    builders = {
        "runs": _runs_rows,
        "results": _results_rows,
        "recap_items": _recap_rows,
        "costs": lambda it: _judge_cost_rows(it) + agent_rows,
    }
    out = {}
    for name in TABLES:
        rows = builders[name](items)
        if not rows and name in ("recap_items", "costs"):
            continue
        buf = io.BytesIO()
        table = (
            pa.Table.from_pylist(rows, schema=_COST_SCHEMA) if name == "costs" else pa.Table.from_pylist(rows)
        )
        pq.write_table(table, buf)
        out[name] = buf.getvalue()
    return out


def check_tables(tables: Mapping[str, bytes], items: RunResults) -> list[str]:
    """What is wrong with a pulled repo's tables against its result files (empty when they agree): the `results`
    table must exist, have one row per result file with the same status, scores and result_sha256, and hold
    no non-finite number in any table."""
    problems: list[str] = []
    read: dict[str, pa.Table] = {}
    for name, raw in tables.items():
        try:
            read[name] = pq.read_table(io.BytesIO(raw))
        except (pa.ArrowException, OSError, ValueError) as exc:
            problems.append(f"table {name}: not readable Parquet ({str(exc)[:200]})")
    for name, table in read.items():
        for col in table.column_names:
            if pa.types.is_floating(table.schema.field(col).type):
                bad = sum(1 for v in table.column(col).to_pylist() if v is not None and not math.isfinite(v))
                if bad:
                    problems.append(
                        f"table {name}: column {col} holds {bad} non-finite value(s) (NaN or inf)"
                    )
    if "results" not in read:
        return problems + ["the results table is missing or unreadable"]
    table = read["results"]
    need = {"run", "task_id", "status", "result_sha256", *_NUMBERS}
    if missing := sorted(need - set(table.column_names)):
        return problems + [f"table results: missing column(s) {', '.join(missing)}"]
    rows = {(str(x["run"]), x["task_id"]): x for x in table.select(sorted(need)).to_pylist()}
    if len(rows) != table.num_rows:
        problems.append("table results: a (run, task_id) appears more than once")
    files = {(run, int(r.task_id)): r for run, r in items}
    for key in sorted(set(rows) ^ set(files), key=str)[:20]:
        where = "the table but no result file" if key in rows else "a result file but no table row"
        problems.append(f"table results: run {key[0]} task {key[1]} is in {where}")
    for key in sorted(set(rows) & set(files), key=str):
        row, r = rows[key], files[key]
        expected = {
            "status": r.status,
            "result_sha256": r.result_sha256,
            **{n: getattr(r, n) for n in _NUMBERS},
        }
        for col, want in expected.items():
            got = row[col]
            same = got == want or (
                isinstance(got, float)
                and isinstance(want, (int, float))
                and math.isclose(got, want, abs_tol=0)
            )
            if not same:
                problems.append(
                    f"table results: run {key[0]} task {key[1]}: {col} is {got!r}, its file says {want!r}"
                )
    return problems
