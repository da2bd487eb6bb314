"""OpenCode (`opencode.db`) and OpenClaw (session JSONL) usage: the recorded-format job of `data/store_job/`
(written by `make_store_fixtures.py`) summed against the script's own message lists, priced against Table 7 typed
in by hand, and hostile stores."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import make_store_fixtures as fx
import pytest
from cost_helpers import TABLE_7

from agenticvbench.cli.main import main
from agenticvbench.cost import usage_stores
from agenticvbench.cost.usage import trial_usage
from agenticvbench.runs.jobdir import JobDir

JOB = Path(__file__).resolve().parent / "data" / "store_job"


def _usage(job: Path, trial: str) -> dict:
    result = json.loads((job / trial / "result.json").read_text())
    with JobDir(job) as j:
        return trial_usage(j, trial, result).to_dict()


def _db_rows(path: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [
            (t, conn.execute(f"SELECT * FROM {t} ORDER BY id").fetchall())  # noqa: S608 - fixed table names
            for t in ("session", "message", "part")
        ]
    finally:
        conn.close()


def test_committed_fixture_is_what_the_script_writes(tmp_path):
    """The committed job is the script's output: same files, same database rows, same session lines."""
    fx.write_job(tmp_path / "job")
    fresh = sorted(p.relative_to(tmp_path / "job") for p in (tmp_path / "job").rglob("*") if p.is_file())
    assert fresh == sorted(p.relative_to(JOB) for p in JOB.rglob("*") if p.is_file())
    for rel in fresh:
        if rel.suffix == ".db":
            assert _db_rows(JOB / rel) == _db_rows(tmp_path / "job" / rel)
        else:
            assert (JOB / rel).read_bytes() == (tmp_path / "job" / rel).read_bytes(), rel


def test_opencode_sums_the_assistant_rows_of_its_database():
    """Totals and per-model figures are the sums over the script's assistant messages (user rows skipped;
    reasoning counted as output; the title model kept apart so it is priced as itself)."""
    u = _usage(JOB, fx.OPENCODE_TRIAL)
    asst = [m for m in fx.OPENCODE_MESSAGES if m[0] == "assistant"]
    assert u["source"] == "opencode opencode.db assistant rows"
    t = u["tokens"]
    assert (t["input_tokens"], t["cache_read_tokens"], t["cache_write_tokens"]) == (
        sum(m[3] for m in asst),
        sum(m[6] for m in asst),
        sum(m[7] for m in asst),
    )
    assert t["output_tokens"] == sum(m[4] + m[5] for m in asst)
    assert t["cost_usd"] == pytest.approx(sum(m[8] for m in asst))
    assert sorted(u["by_model"]) == ["google/gemini-3-flash-preview", "google/gemini-3.1-pro-preview"]
    assert u["by_model"]["google/gemini-3-flash-preview"]["input_tokens"] == 300
    assert not u["notes"]


def test_openclaw_sums_the_assistant_usage_of_its_session():
    """Totals are the sums over the script's assistant messages (user and tool-result lines skipped)."""
    u = _usage(JOB, fx.OPENCLAW_TRIAL)
    asst = [m for m in fx.OPENCLAW_MESSAGES if m[0] == "assistant"]
    assert u["source"] == "openclaw session assistant usage"
    t = u["tokens"]
    assert (t["input_tokens"], t["output_tokens"], t["cache_read_tokens"], t["cache_write_tokens"]) == (
        sum(m[3] for m in asst),
        sum(m[4] for m in asst),
        sum(m[5] for m in asst),
        sum(m[6] for m in asst),
    )
    assert t["cost_usd"] == pytest.approx(sum(m[7] for m in asst))
    assert sorted(u["by_model"]) == ["anthropic/claude-opus-4-7", "anthropic/claude-sonnet-4-6"]


def _priced(messages: list, key: dict[str, str], cols: tuple[int, int, int, int]) -> float:
    """Cost of the assistant messages at Table 7 (typed in by hand), model by model."""
    return sum(
        sum(m[c] * p for c, p in zip(cols, TABLE_7[key[m[2]]], strict=True)) / 1e6
        for m in messages
        if m[0] == "assistant"
    )


def test_cost_of_the_job_with_the_papers_prices(capsys):
    """`avb cost JOB`: each harness's cost is its messages priced model by model at Table 7 (OpenCode's
    reasoning at the output rate), computed here without the reader."""
    assert main(["cost", str(JOB), "--format", "json"]) == 0
    rows = {(r["harness"], r["slice"]): r for r in json.loads(capsys.readouterr().out)["rows"]}
    oc_key = {
        "google/gemini-3.1-pro-preview": "gemini-3.1-pro",
        "google/gemini-3-flash-preview": "gemini-3-flash",
    }
    # (role, provider, model, input, output + reasoning, reasoning, cache read, cache write, cost)
    oc = [(*m[:4], m[4] + m[5], *m[5:]) for m in fx.OPENCODE_MESSAGES]
    assert rows[("opencode", "all")]["cost_usd"] == pytest.approx(
        _priced(oc, oc_key, (3, 6, 7, 4)), rel=1e-12
    )
    ow_key = {"claude-opus-4-7": "claude-opus-4-7", "claude-sonnet-4-6": "claude-sonnet-4-6"}
    assert rows[("openclaw", "all")]["cost_usd"] == pytest.approx(
        _priced(fx.OPENCLAW_MESSAGES, ow_key, (3, 5, 6, 4)), rel=1e-12
    )


@pytest.fixture()
def job(tmp_path) -> Path:
    """A private copy of the fixture job, to damage."""
    shutil.copytree(JOB, tmp_path / "job")
    return tmp_path / "job"


def _db(job: Path) -> Path:
    return job / fx.OPENCODE_TRIAL / Path(*fx.OPENCODE_DB)


def test_bad_counts_in_the_database_are_notes_naming_the_trial_and_field(job):
    """A token count "12abc", 1e300 or -5 in a row is dropped with a note naming the trial, the row and the
    field, never summed; the other rows still count."""
    conn = sqlite3.connect(_db(job))
    data = json.loads(conn.execute("SELECT data FROM message WHERE id = 'msg_0001'").fetchone()[0])
    data["tokens"].update({"input": "12abc", "output": 1e300, "reasoning": -5})
    conn.execute("UPDATE message SET data = ? WHERE id = 'msg_0001'", (json.dumps(data),))
    conn.commit()
    conn.close()
    u = _usage(job, fx.OPENCODE_TRIAL)
    asst = [m for m in fx.OPENCODE_MESSAGES if m[0] == "assistant"][1:]
    assert u["tokens"]["input_tokens"] == sum(m[3] for m in asst)
    assert u["tokens"]["output_tokens"] == sum(m[4] + m[5] for m in asst)
    joined = "\n".join(u["notes"])
    assert f"{fx.OPENCODE_TRIAL}/agent/opencode-data/opencode.db: message 'msg_0001'.tokens.input" in joined
    assert "tokens.output" in joined and "tokens.reasoning" in joined


@pytest.mark.parametrize("damage", ["garbage", "no_table", "symlink", "too_big", "huge_row"])
def test_a_hostile_database_is_a_note_never_a_traceback(job, damage, monkeypatch, tmp_path):
    """Not SQLite, no `message` table, a symlink (to a real database elsewhere: never followed), over the size
    cap, a row over the row cap: one note naming the file, no usage from it, no exception."""
    db = _db(job)
    if damage == "garbage":
        db.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    elif damage == "no_table":
        db.unlink()
        sqlite3.connect(db).executescript("CREATE TABLE other (x);")
    elif damage == "symlink":
        outside = tmp_path / "outside.db"
        shutil.copy(db, outside)
        db.unlink()
        db.symlink_to(outside)
    elif damage == "too_big":
        monkeypatch.setattr(usage_stores, "MAX_DB_BYTES", 1000)
    else:
        monkeypatch.setattr(usage_stores, "MAX_ROW_BYTES", 50)
    u = _usage(job, fx.OPENCODE_TRIAL)
    assert u["source"] == "none" and u["tokens"]["input_tokens"] is None
    if damage != "symlink":  # a symlink is not even listed as a store
        assert any("opencode.db" in n for n in u["notes"]), u["notes"]
    assert all("\n" not in n for n in u["notes"])


def test_bad_session_lines_are_dropped_with_a_note(job):
    """OpenClaw: a line with a count "12abc" or 1e300 loses that field (noted), a broken line is skipped, the
    rest still sum."""
    session = job / fx.OPENCLAW_TRIAL / Path(*fx.OPENCLAW_SESSION)
    lines = session.read_text().splitlines()
    bad = json.loads(lines[3])  # the first assistant message
    bad["message"]["usage"].update({"input": "12abc", "output": 1e300})
    lines[3] = json.dumps(bad)
    lines.append('{"type": "message", "message": {"role": "assistant", "usage": ')  # cut off mid-write
    session.write_text("\n".join(lines) + "\n")
    u = _usage(job, fx.OPENCLAW_TRIAL)
    asst = [m for m in fx.OPENCLAW_MESSAGES if m[0] == "assistant"]
    assert u["tokens"]["input_tokens"] == sum(m[3] for m in asst[1:])
    assert u["tokens"]["output_tokens"] == sum(m[4] for m in asst[1:])
    assert u["tokens"]["cache_write_tokens"] == sum(m[6] for m in asst)
    notes = "\n".join(u["notes"])
    assert "usage.input: not a token count ('12abc')" in notes and "usage.output" in notes


def test_a_session_longer_than_the_log_tail_is_summed_whole(job, monkeypatch):
    """The usage is a sum, so the whole session counts, not the last `MAX_LOG_BYTES` that suffice for a final
    result line (a 21 MB session of 50,000 messages used to be summed from its last 8 MB: a third of the
    tokens)."""
    from agenticvbench.cost import tokens as tokens_mod

    monkeypatch.setattr(tokens_mod, "MAX_LOG_BYTES", 600)
    u = _usage(job, fx.OPENCLAW_TRIAL)
    assert u["tokens"]["output_tokens"] == sum(m[4] for m in fx.OPENCLAW_MESSAGES if m[0] == "assistant")


def test_a_session_over_the_cap_is_not_undercounted(job, monkeypatch):
    """A session file over the cap is not summed at all (a partial sum would undercount): no usage, one note."""
    monkeypatch.setattr(usage_stores, "MAX_SESSION_BYTES", 1000)
    u = _usage(job, fx.OPENCLAW_TRIAL)
    assert u["source"] == "none" and any("over the 1000 byte cap" in n for n in u["notes"])


def test_an_overlong_session_line_is_skipped_with_a_note(job, monkeypatch):
    """A line over the line cap (an inlined image, say) is skipped with a note naming the file and line; the
    assistant lines around it still sum."""
    session = job / fx.OPENCLAW_TRIAL / Path(*fx.OPENCLAW_SESSION)
    lines = session.read_text().splitlines()
    lines.insert(3, json.dumps({"type": "message", "message": {"role": "user", "content": "x" * 5000}}))
    session.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(usage_stores, "MAX_LINE_BYTES", 1000)
    u = _usage(job, fx.OPENCLAW_TRIAL)
    assert u["tokens"]["output_tokens"] == sum(m[4] for m in fx.OPENCLAW_MESSAGES if m[0] == "assistant")
    assert any(n.endswith(":4: line over 1000 bytes; skipped") for n in u["notes"]), u["notes"]


def test_imported_runs_give_the_same_costs_as_the_job(tmp_path):
    """`avb harbor import` keeps the stores' usage in run.json, and reading it back through the strict reader
    gives the rows read from the job itself (per-model figures included, so pricing is the same)."""
    from agenticvbench.cost.pricing import load_prices
    from agenticvbench.cost.table import build_cost_table
    from agenticvbench.harbor.importer import import_jobs
    from agenticvbench.harbor.trials import job_trial_costs

    runs = import_jobs([JOB], tmp_path / "runs").runs
    direct = build_cost_table([JOB], load_prices(), read_job=job_trial_costs)
    imported = build_cost_table(runs, load_prices())
    key = lambda r: (r.harness, r.model, r.slice)  # noqa: E731
    assert [(key(r), r.extracted, r.tokens, r.cost_usd) for r in sorted(direct.rows, key=key)] == [
        (key(r), r.extracted, r.tokens, r.cost_usd) for r in sorted(imported.rows, key=key)
    ]
    assert not imported.notes and all(r.cost_usd for r in imported.rows)
