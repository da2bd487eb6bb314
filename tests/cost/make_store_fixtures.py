"""Write `data/store_job/`: a Harbor job folder with one OpenCode trial (its `opencode.db`) and one OpenClaw trial
(its session JSONL), in the formats those harnesses record, from the messages listed below.

    python tests/cost/make_store_fixtures.py tests/cost/data/store_job

OpenCode (1.2 and later) keeps a SQLite database with a `message` table (`id`, `session_id`, `time_created`,
`time_updated`, `data` = the message JSON without its id); an assistant message's JSON has `role`, `providerID`,
`modelID`, `cost` and `tokens` {input, output, reasoning, cache: {read, write}}; besides the main model it runs a
small model for session titles. OpenClaw appends one JSON line per event to
`agents/<agent>/sessions/<session>.jsonl`; an assistant message carries `usage` {input, output, cacheRead,
cacheWrite, totalTokens, cost: {..., total}}. Ids and times are fixed, so the content is deterministic
(`test_usage_stores.py` checks the committed copy against a fresh one, row by row).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

T0 = 1_780_000_000_000  # ms
OPENCODE_TRIAL = "recap-004__oc1"
OPENCLAW_TRIAL = "sequencing-040__ow1"
OPENCODE_DB = ("agent", "opencode-data", "opencode.db")
OPENCLAW_SESSION = (
    "agent",
    "openclaw",
    "agents",
    "main",
    "sessions",
    "5b0c7e1a-0000-4000-8000-000000000001.jsonl",
)

# (role, providerID, modelID, input, output, reasoning, cache read, cache write, cost)
OPENCODE_MESSAGES: list[tuple[str, str, str, int, int, int, int, int, float]] = [
    ("user", "", "", 0, 0, 0, 0, 0, 0.0),
    ("assistant", "openrouter", "google/gemini-3.1-pro-preview", 12000, 800, 1200, 0, 0, 0.0498),
    ("assistant", "openrouter", "google/gemini-3-flash-preview", 300, 12, 0, 0, 0, 0.000186),  # title
    ("assistant", "openrouter", "google/gemini-3.1-pro-preview", 40, 650, 300, 15200, 0, 0.01452),
    ("user", "", "", 0, 0, 0, 0, 0, 0.0),
    ("assistant", "openrouter", "google/gemini-3.1-pro-preview", 25, 1400, 0, 27000, 0, 0.02235),
]

# (role, provider, model, input, output, cache read, cache write, cost total)
OPENCLAW_MESSAGES: list[tuple[str, str, str, int, int, int, int, float]] = [
    ("user", "", "", 0, 0, 0, 0, 0.0),
    ("assistant", "anthropic", "claude-opus-4-7", 3, 410, 0, 18500, 0.125875),
    ("toolResult", "", "", 0, 0, 0, 0, 0.0),
    ("assistant", "anthropic", "claude-opus-4-7", 2, 950, 18500, 2200, 0.0467),
    ("assistant", "anthropic", "claude-sonnet-4-6", 1200, 300, 0, 0, 0.0081),  # a vision sub-call
    ("assistant", "anthropic", "claude-opus-4-7", 1, 120, 20700, 640, 0.017349),
]


def _result(trial: str, task: str, agent: str, model: str) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "task_name": task,
        "trial_name": trial,
        "started_at": "2026-06-01T10:00:00Z",
        "finished_at": "2026-06-01T10:20:00Z",
        "config": {"agent": {"name": agent, "model_name": model}},
        "agent_info": {"name": agent, "version": "fixture", "model_info": {"name": model}},
        "agent_result": {
            "n_input_tokens": None,
            "n_cache_tokens": None,
            "n_output_tokens": None,
            "cost_usd": None,
        },
        "agent_execution": {"started_at": "2026-06-01T10:00:05Z", "finished_at": "2026-06-01T10:19:50Z"},
        "verifier_result": {"rewards": {"reward": 0.5}},
        "exception_info": None,
    }


def opencode_data(i: int, m: tuple) -> dict[str, Any]:
    """The `data` JSON of one OpenCode message."""
    role, provider, model, inp, out, reasoning, cread, cwrite, cost = m
    base: dict[str, Any] = {"role": role, "time": {"created": T0 + 1000 * i}}
    if role == "assistant":
        base.update(
            {
                "providerID": provider,
                "modelID": model,
                "mode": "build",
                "cost": cost,
                "tokens": {
                    "input": inp,
                    "output": out,
                    "reasoning": reasoning,
                    "cache": {"read": cread, "write": cwrite},
                },
                "finish": "tool-calls",
                "time": {"created": T0 + 1000 * i, "completed": T0 + 1000 * i + 900},
            }
        )
    return base


def write_opencode_db(path: Path) -> None:
    """The database, in OpenCode's schema (the tables the reader needs and the session table)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, title TEXT, time_created INTEGER,"
        " time_updated INTEGER);"
        "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,"
        " time_updated INTEGER NOT NULL, data TEXT NOT NULL);"
        "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,"
        " time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);"
    )
    conn.execute("INSERT INTO session VALUES ('ses_fixture0001', 'global', 'fixture', ?, ?)", (T0, T0))
    for i, m in enumerate(OPENCODE_MESSAGES):
        conn.execute(
            "INSERT INTO message VALUES (?, 'ses_fixture0001', ?, ?, ?)",
            (f"msg_{i:04d}", T0 + 1000 * i, T0 + 1000 * i, json.dumps(opencode_data(i, m), sort_keys=True)),
        )
        conn.execute(
            "INSERT INTO part VALUES (?, ?, 'ses_fixture0001', ?, ?, ?)",
            (f"prt_{i:04d}", f"msg_{i:04d}", T0, T0, json.dumps({"type": "text", "text": f"step {i}"})),
        )
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def openclaw_lines() -> list[str]:
    """The session file's lines: a header, a model change, then the messages."""
    lines: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": "5b0c7e1a-0000-4000-8000-000000000001",
            "timestamp": "2026-06-01T10:00:05Z",
        },
        {"type": "model_change", "provider": "anthropic", "modelId": "claude-opus-4-7"},
    ]
    for i, (role, provider, model, inp, out, cread, cwrite, total) in enumerate(OPENCLAW_MESSAGES):
        msg: dict[str, Any] = {
            "role": role,
            "content": [{"type": "text", "text": f"turn {i}"}],
            "timestamp": T0 + i,
        }
        if role == "assistant":
            msg.update(
                {
                    "api": "anthropic-messages",
                    "provider": provider,
                    "model": model,
                    "usage": {
                        "input": inp,
                        "output": out,
                        "cacheRead": cread,
                        "cacheWrite": cwrite,
                        "totalTokens": inp + out + cread + cwrite,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": total},
                    },
                    "stopReason": "toolUse",
                }
            )
        lines.append({"type": "message", "id": f"e{i:04d}", "message": msg})
    return [json.dumps(line, sort_keys=True) for line in lines]


def write_job(out: Path) -> None:
    """The whole job folder (replacing `out`)."""
    if out.exists():
        shutil.rmtree(out)
    oc = out / OPENCODE_TRIAL
    oc.mkdir(parents=True)
    model_oc = "openrouter/google/gemini-3.1-pro-preview"
    (oc / "result.json").write_text(
        json.dumps(_result(OPENCODE_TRIAL, "recap-004", "opencode", model_oc), indent=2)
    )
    write_opencode_db(oc.joinpath(*OPENCODE_DB))
    ow = out / OPENCLAW_TRIAL
    ow.mkdir(parents=True)
    (ow / "result.json").write_text(
        json.dumps(
            _result(OPENCLAW_TRIAL, "sequencing-040", "openclaw", "anthropic/claude-opus-4-7"), indent=2
        )
    )
    session = ow.joinpath(*OPENCLAW_SESSION)
    session.parent.mkdir(parents=True)
    session.write_text("\n".join(openclaw_lines()) + "\n")
    (out / "README.md").write_text(
        "# Recorded-format OpenCode and OpenClaw usage\n\nWritten by `tests/cost/make_store_fixtures.py`; do not edit.\n"
    )


if __name__ == "__main__":
    write_job(Path(sys.argv[1]))
