"""Writes Harbor job directories with injected failures using Harbor's own models (run by the Harbor venv's
Python, never imported by pytest): `python harbor_trials.py JOB_DIR`.

Each trial's `result.json` is `TrialResult.model_dump_json()`, its exception built with
`ExceptionInfo.from_exception` from Harbor's real exception classes, so the import is tested against exactly what
Harbor records, field names and all.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harbor.agents.installed.base import NonZeroAgentExitCodeError
from harbor.environments.base import SandboxBuildFailedError
from harbor.job import CANCELLED_ERROR_TYPE
from harbor.models.task.id import LocalTaskId
from harbor.models.trajectories.agent import Agent
from harbor.models.trajectories.step import Step
from harbor.models.trajectories.tool_call import ToolCall
from harbor.models.trajectories.trajectory import Trajectory
from harbor.models.trial.config import AgentConfig, TaskConfig, TrialConfig
from harbor.models.trial.result import AgentInfo, ExceptionInfo, ModelInfo, TimingInfo, TrialResult
from harbor.models.verifier.result import VerifierResult
from harbor.trial.errors import AgentTimeoutError, EnvironmentStartTimeoutError, VerifierTimeoutError

T0 = datetime(2026, 1, 1, tzinfo=UTC)

#: trial name -> (task, exception or None, agent ran, reward or None); the expected outcome is in the name.
TRIALS = {
    "sequencing-037__scored": ("sequencing-037", None, True, 0.5),
    "assembly-083__agent_timeout": (
        "assembly-083",
        AgentTimeoutError("Agent execution timed out after 1800 s"),
        True,
        0.0,
    ),
    "repair-065__agent_error": ("repair-065", NonZeroAgentExitCodeError("claude exited with 1"), True, 0.0),
    "repair-066__infra_failure": (
        "repair-066",
        EnvironmentStartTimeoutError("sandbox not ready in 600 s"),
        False,
        None,
    ),
    "repair-067__infra_failure": ("repair-067", SandboxBuildFailedError("apt-get exited 100"), False, None),
    "sequencing-038__verifier_error": (
        "sequencing-038",
        VerifierTimeoutError("verifier ran 300 s"),
        True,
        None,
    ),
    "assembly-084__cancelled": ("assembly-084", None, False, None),
}


def _exception(exc: BaseException) -> ExceptionInfo:
    try:
        raise exc
    except BaseException as raised:  # from_exception reads the traceback being handled
        return ExceptionInfo.from_exception(raised)


def _trajectory() -> Trajectory:
    """The scored trial's agent: 3 turns, ffprobe once, one frame extraction, a file read, a plain ffmpeg cut."""

    def call(i: int, name: str, **args: str) -> ToolCall:
        return ToolCall(tool_call_id=str(i), function_name=name, arguments=args)

    return Trajectory(
        agent=Agent(name="claude-code", version="1"),
        steps=[
            Step(step_id=1, source="user", message="the task"),
            Step(
                step_id=2,
                source="agent",
                message="look",
                tool_calls=[
                    call(1, "Bash", command="ffprobe -v error -show_streams /workspace/materials/3.mp4"),
                    call(2, "Read", file_path="/workspace/materials/brief.md"),
                ],
            ),
            Step(
                step_id=3,
                source="agent",
                message="frames",
                tool_calls=[
                    call(3, "Bash", command="ffmpeg -i /workspace/materials/3.mp4 -vf fps=1 /tmp/f/%03d.png")
                ],
            ),
            Step(
                step_id=4,
                source="agent",
                message="cut",
                tool_calls=[
                    call(4, "Bash", command="ffmpeg -i a.mp4 -c copy -t 3 /workspace/output/solution.mp4")
                ],
            ),
        ],
    )


def write_job(job: Path) -> None:
    """A job directory with one trial per entry of TRIALS (and the job's own config.json and result.json)."""
    job.mkdir(parents=True, exist_ok=True)
    (job / "config.json").write_text(json.dumps({"job_name": job.name}))
    (job / "result.json").write_text(json.dumps({"id": "00000000-0000-0000-0000-000000000001"}))
    for i, (name, (task, exc, ran, reward)) in enumerate(TRIALS.items()):
        start = T0 + timedelta(minutes=i)
        result = TrialResult(
            task_name=f"agenticvbench/{task}",
            trial_name=name,
            trial_uri=f"file:///jobs/{job.name}/{name}",
            task_id=LocalTaskId(path=Path(f"/tasks/{task}")),
            source="tasks",
            task_checksum="0" * 64,
            config=TrialConfig(
                task=TaskConfig(path=Path(f"/tasks/{task}")),
                agent=AgentConfig(name="claude-code", model_name="anthropic/claude-x"),
            ),
            agent_info=AgentInfo(name="claude-code", version="1", model_info=ModelInfo(name="claude-x")),
            started_at=start,
            finished_at=None if name.endswith("cancelled") else start + timedelta(seconds=30),
            agent_execution=TimingInfo(started_at=start, finished_at=start + timedelta(seconds=20))
            if ran
            else None,
            verifier_result=VerifierResult(rewards={"reward": reward}) if reward is not None else None,
            exception_info=_exception(exc) if exc is not None else None,
        )
        if name.endswith("cancelled"):
            result.exception_info = ExceptionInfo(
                exception_type=CANCELLED_ERROR_TYPE,
                exception_message="",
                exception_traceback="",
                occurred_at=start,
            )
        d = job / name
        (d / "artifacts" / "workspace" / "output").mkdir(parents=True, exist_ok=True)
        (d / "result.json").write_text(result.model_dump_json(indent=4))
        if name.endswith("__scored"):
            (d / "agent").mkdir()
            (d / "agent" / "trajectory.json").write_text(json.dumps(_trajectory().to_json_dict(), indent=2))


if __name__ == "__main__":
    write_job(Path(sys.argv[1]))
