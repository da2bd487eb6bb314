"""Write the Harbor job folder `data/usage_job/` with Harbor's own models (run with the Harbor venv's python).

    ~/.cache/agenticvbench-tests/harbor-venv/bin/python tests/harbor/make_usage_job.py tests/harbor/data/usage_job

Every `result.json` is `TrialResult.model_dump_json()` of harbor (version printed into `data/usage_job/HARBOR`);
the agent logs are copied from `data/usage_logs/`. Ids and times are fixed, so the output is deterministic and
`test_usage.py` can check the committed copy against a fresh one.
"""

from __future__ import annotations

import json
import shutil
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import harbor
from harbor.models.agent.context import AgentContext, ModelUsage
from harbor.models.task.id import LocalTaskId
from harbor.models.trial.config import AgentConfig, TaskConfig, TrialConfig
from harbor.models.trial.result import AgentInfo, ExceptionInfo, ModelInfo, TimingInfo, TrialResult

LOGS = Path(__file__).resolve().parent / "data" / "usage_logs"
T0 = datetime(2025, 9, 1, 10, 0, tzinfo=UTC)

# trial name, task, agent, agent version, model, AgentContext or None, logs {dest under agent/: source}, error
TRIALS = [
    (
        "recap-001__aaa",
        "recap-001",
        "claude-code",
        "1.0.100",
        "anthropic/claude-opus-4-1",
        AgentContext(
            n_input_tokens=211000,
            n_cache_tokens=200000,
            n_output_tokens=5000,
            cost_usd=0.8787,
            model_usage={
                "claude-opus-4-1-20250805": ModelUsage(
                    n_input_tokens=211000, n_cache_tokens=200000, n_output_tokens=5000, cost_usd=0.8775
                )
            },
        ),
        {"claude-code.txt": "claude-code.txt"},
        None,
    ),
    (
        "recap-002__bbb",
        "recap-002",
        "claude-code",
        "1.0.100",
        "anthropic/claude-opus-4-1",
        AgentContext(n_input_tokens=50000, n_cache_tokens=40000, n_output_tokens=1000),
        {},
        None,
    ),
    (
        "assembly-083__ccc",
        "assembly-083",
        "claude-code",
        "1.0.100",
        "anthropic/claude-opus-4-1",
        None,
        {},
        "AgentTimeoutError",
    ),
    (
        "sequencing-037__ddd",
        "sequencing-037",
        "codex",
        "0.36.0",
        "openai/gpt-5",
        AgentContext(n_input_tokens=120000, n_cache_tokens=None, n_output_tokens=6000),
        {"sessions/2025/09/01/rollout-2025-09-01T10-00-00-0199a0b0.jsonl": "codex-rollout.jsonl"},
        None,
    ),
    (
        "repair-065__eee",
        "repair-065",
        "gemini-cli",
        "0.5.0",
        "google/gemini-2.5-pro",
        None,
        {"gemini-cli.txt": "gemini-cli.txt"},
        None,
    ),
    (
        "recap-003__fff",
        "recap-003",
        "terminus-2",
        "2.0.0",
        "acme/unlisted-model",
        AgentContext(n_input_tokens=1000, n_cache_tokens=0, n_output_tokens=100, cost_usd=0.01),
        {},
        None,
    ),
]


def main(out: Path) -> None:
    """Write the job folder."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "config.json").write_text(json.dumps({"job_name": "usage-job"}) + "\n")
    (out / "HARBOR").write_text(f"harbor {harbor.__version__}\n")
    for i, (name, task, agent, version, model, ctx, logs, error) in enumerate(TRIALS):
        start = T0 + timedelta(minutes=10 * i)
        provider, _, bare = model.partition("/")
        exc = None
        if error:
            exc = ExceptionInfo(
                exception_type=error,
                exception_message="agent ran past its 1800 s timeout",
                exception_traceback="Traceback (most recent call last): ...",
                occurred_at=start,
            )
        result = TrialResult(
            id=uuid.UUID(int=i + 1),
            task_name=task,
            trial_name=name,
            trial_uri=f"file:///jobs/usage-job/{name}",
            task_id=LocalTaskId(path=Path(f"/export/{task}")),
            task_checksum="0" * 64,
            config=TrialConfig(
                task=TaskConfig(path=Path(f"/export/{task}")),
                trial_name=name,
                agent=AgentConfig(name=agent, model_name=model),
            ),
            agent_info=AgentInfo(
                name=agent, version=version, model_info=ModelInfo(name=bare, provider=provider)
            ),
            agent_result=ctx,
            exception_info=exc,
            started_at=start,
            finished_at=start + timedelta(minutes=9),
            agent_execution=TimingInfo(
                started_at=start + timedelta(minutes=1), finished_at=start + timedelta(minutes=8)
            ),
        )
        trial = out / name
        trial.mkdir()
        (trial / "result.json").write_text(result.model_dump_json(indent=2) + "\n")
        for dest, src in logs.items():
            target = trial / "agent" / dest
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(LOGS / src, target)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
