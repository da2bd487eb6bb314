"""Agent usage on import: the Harbor job of `data/usage_job/` (written with Harbor 0.26.0's own models) and the
recorded-format harness logs of `data/usage_logs/`, plus hostile logs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agenticvbench.cost import tokens as tokens_mod
from agenticvbench.cost.usage import claude_code_totals, codex_totals, gemini_totals, trial_usage
from agenticvbench.harbor.importer import import_jobs
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.submission import read_run_json

DATA = Path(__file__).resolve().parents[1] / "harbor" / "data"
JOB = DATA / "usage_job"
LOGS = DATA / "usage_logs"
HARBOR_PY = (
    Path(os.environ.get("AVB_HARBOR_VENV") or Path.home() / ".cache/agenticvbench-tests/harbor-venv")
    / "bin"
    / "python"
)


@pytest.fixture()
def imported(tmp_path: Path) -> dict[str, dict]:
    """run.json of every run imported from the usage job, by harness."""
    summary = import_jobs([JOB], tmp_path / "runs")
    return {
        json.loads((r / "run.json").read_text())["harness"]: json.loads((r / "run.json").read_text())
        for r in summary.runs
    }


def test_claude_code_log_totals_win_and_carry_cache_writes(imported):
    """recap-001: the stream-json `result` line is read; its `modelUsage` (Opus plus a Haiku subagent) makes the
    totals (input 1000 + 1500, cache read 200000, cache write 10000, output 5000), its total_cost_usd is kept,
    and Harbor's own fields are kept beside them as reported."""
    u = imported["claude-code"]["usage"]["1"]
    assert u["source"] == "claude-code stream-json result"
    assert u["tokens"] == {
        "input_tokens": 2500,
        "cache_read_tokens": 200000,
        "cache_write_tokens": 10000,
        "output_tokens": 5000,
        "cost_usd": 0.8787,
    }
    assert sorted(u["by_model"]) == ["claude-3-5-haiku-20241022", "claude-opus-4-1-20250805"]
    assert u["harbor"] == {
        "n_input_tokens": 211000,
        "n_cache_tokens": 200000,
        "n_output_tokens": 5000,
        "cost_usd": 0.8787,
    }
    assert (u["agent"], u["agent_version"], u["model"]) == (
        "claude-code",
        "1.0.100",
        "anthropic/claude-opus-4-1",
    )
    assert u["input_includes_cache"] is True and u["errored"] is False
    assert u["agent_started"].startswith("2025-09-01T10:01:00") and u["agent_finished"].startswith(
        "2025-09-01T10:08"
    )


def test_harbor_totals_alone_split_the_cache_out_of_input(imported):
    """recap-002 has no log: Harbor's n_input_tokens 50000 includes its 40000 cache tokens, so uncached input is
    10000; cost_usd None stays None; no cache-write bucket is known."""
    u = imported["claude-code"]["usage"]["2"]
    assert u["source"] == "harbor result.json"
    assert u["tokens"] == {
        "input_tokens": 10000,
        "cache_read_tokens": 40000,
        "cache_write_tokens": None,
        "output_tokens": 1000,
        "cost_usd": None,
    }


def test_an_errored_trial_has_no_usage_and_says_why(imported):
    """assembly-083 timed out before Harbor filled agent_result: no usage, errored, the exception type kept."""
    u = imported["claude-code"]["usage"]["83"]
    assert u["source"] == "none" and u["errored"] is True and u["exception_type"] == "AgentTimeoutError"
    assert all(v is None for v in u["tokens"].values())


def test_codex_rollout_and_gemini_stats_are_read(imported):
    """Codex: the last token_count with totals (120000 input incl. 100000 cached, 6000 output), Harbor's
    n_cache_tokens None kept as None. Gemini: prompt 50000 incl. 30000 cached; output = candidates 3000 +
    thoughts 2000."""
    c = imported["codex"]["usage"]["37"]
    assert c["source"] == "codex-cli token_count" and c["harbor"]["n_cache_tokens"] is None
    assert (c["tokens"]["input_tokens"], c["tokens"]["cache_read_tokens"], c["tokens"]["output_tokens"]) == (
        20000,
        100000,
        6000,
    )
    g = imported["gemini-cli"]["usage"]["65"]
    assert g["source"] == "gemini-cli stats"
    assert (g["tokens"]["input_tokens"], g["tokens"]["cache_read_tokens"], g["tokens"]["output_tokens"]) == (
        20000,
        30000,
        5000,
    )


def test_run_json_usage_is_a_known_key(tmp_path):
    """The usage block is informational: read_run_json accepts it without an 'unknown key' note."""
    summary = import_jobs([JOB], tmp_path / "runs")
    for run in summary.runs:
        _meta, notes = read_run_json(run / "run.json")
        assert not any("'usage'" in n for n in notes), notes


def test_bad_token_fields_are_dropped_with_a_note():
    """Negative, boolean and text token counts, and a NaN-like cost, are not numbers of tokens: each becomes
    None with a note naming the field; the good fields stay."""
    notes: list[str] = []
    line = json.dumps(
        {
            "type": "result",
            "total_cost_usd": -1,
            "usage": {
                "input_tokens": -5,
                "cache_read_input_tokens": True,
                "cache_creation_input_tokens": "9",
                "output_tokens": 7,
            },
        }
    )
    tokens, _ = claude_code_totals(line + "\n", "x/claude-code.txt", notes)
    assert (
        tokens.input_tokens,
        tokens.cache_read_tokens,
        tokens.cache_write_tokens,
        tokens.output_tokens,
        tokens.cost_usd,
    ) == (None, None, None, 7, None)
    assert len(notes) == 4 and all("x/claude-code.txt" in n for n in notes)


def test_a_symlinked_log_is_not_followed(tmp_path):
    """An agent log replaced by a symlink (to a file outside the job) is refused; Harbor's totals are used."""
    job = tmp_path / "job"
    shutil.copytree(JOB, job)
    log = job / "recap-001__aaa" / "agent" / "claude-code.txt"
    outside = tmp_path / "outside.txt"
    outside.write_text(json.dumps({"type": "result", "usage": {"input_tokens": 999999999}}) + "\n")
    log.unlink()
    log.symlink_to(outside)
    with JobDir(job) as j:
        u = trial_usage(j, "recap-001__aaa", j.read_json("recap-001__aaa", "result.json"))
    assert u.source == "harbor result.json" and u.tokens.input_tokens == 11000


def test_only_the_tail_of_a_huge_log_is_read(tmp_path, monkeypatch):
    """A log larger than MAX_LOG_BYTES is read from its end only (the result line is last), never whole."""
    monkeypatch.setattr(tokens_mod, "MAX_LOG_BYTES", 4096)
    job = tmp_path / "job"
    shutil.copytree(JOB, job)
    log = job / "recap-001__aaa" / "agent" / "claude-code.txt"
    log.write_text("x" * 100000 + "\n" + (LOGS / "claude-code.txt").read_text().splitlines()[-1] + "\n")
    with JobDir(job) as j:
        text = tokens_mod.read_log_tail(j, ("recap-001__aaa", "agent", "claude-code.txt"))
        u = trial_usage(j, "recap-001__aaa", j.read_json("recap-001__aaa", "result.json"))
    assert len(text.encode()) <= 4096
    assert u.source == "claude-code stream-json result" and u.tokens.cache_write_tokens == 10000


def test_log_parsers_on_the_recorded_fixtures():
    """Each parser on its fixture alone: the codex event with `info: null` is skipped, the gemini chatter line
    before the JSON object is ignored."""
    notes: list[str] = []
    codex = codex_totals((LOGS / "codex-rollout.jsonl").read_text(), "codex", notes)
    assert (codex.input_tokens, codex.cache_read_tokens, codex.output_tokens) == (20000, 100000, 6000)
    total, by_model = gemini_totals((LOGS / "gemini-cli.txt").read_text(), "gemini", notes)
    assert list(by_model) == ["gemini-2.5-pro"] and total.output_tokens == 5000
    assert notes == []


@pytest.mark.skipif(
    not HARBOR_PY.exists(), reason="the cached Harbor venv is not built (see test_harbor_e2e.py)"
)
def test_committed_job_matches_a_fresh_one_from_harbor(tmp_path):
    """The committed job folder is what Harbor's models write today (regenerated with the cached venv)."""
    subprocess.run(
        [
            str(HARBOR_PY),
            str(Path(__file__).resolve().parents[1] / "harbor" / "make_usage_job.py"),
            str(tmp_path / "job"),
        ],
        check=True,
        timeout=300,
    )
    for fresh in sorted(p for p in (tmp_path / "job").rglob("*") if p.is_file()):
        rel = fresh.relative_to(tmp_path / "job")
        assert (JOB / rel).read_bytes() == fresh.read_bytes(), rel
