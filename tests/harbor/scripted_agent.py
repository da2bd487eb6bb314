"""A scripted Harbor agent for the tests: runs fixed shell commands in the task's environment and logs each as
an ATIF step in `agent/trajectory.json`, written with Harbor's own trajectory models.

Imported by Harbor (Python >= 3.12) through `harbor run --agent-import-path scripted_agent:ScriptedAgent`, never
by the package or by pytest itself. The commands come from the JSON list in `$AVB_SCRIPTED_COMMANDS`.
"""

from __future__ import annotations

import json
import os

from harbor.agents.base import BaseAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories.agent import Agent
from harbor.models.trajectories.observation import Observation
from harbor.models.trajectories.observation_result import ObservationResult
from harbor.models.trajectories.step import Step
from harbor.models.trajectories.tool_call import ToolCall
from harbor.models.trajectories.trajectory import Trajectory


class ScriptedAgent(BaseAgent):
    """Runs `$AVB_SCRIPTED_COMMANDS` one by one (`bash` tool calls), then writes its ATIF trajectory."""

    @staticmethod
    def name() -> str:
        """The agent's name in Harbor's records (the imported run's harness)."""
        return "avb-scripted"

    def version(self) -> str:
        """Fixed."""
        return "1.0"

    async def setup(self, environment: BaseEnvironment) -> None:
        """Nothing to install."""
        return

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        """Each command is one agent step with one `bash` call and its output as the observation."""
        steps = [Step(step_id=1, source="user", message=instruction)]
        for i, command in enumerate(json.loads(os.environ["AVB_SCRIPTED_COMMANDS"]), start=1):
            result = await environment.exec(command=command)
            call_id = f"call_{i}"
            steps.append(
                Step(
                    step_id=i + 1,
                    source="agent",
                    message=f"step {i}",
                    tool_calls=[
                        ToolCall(tool_call_id=call_id, function_name="bash", arguments={"command": command})
                    ],
                    observation=Observation(
                        results=[
                            ObservationResult(
                                source_call_id=call_id, content=(result.stdout or "") + (result.stderr or "")
                            )
                        ]
                    ),
                )
            )
        trajectory = Trajectory(agent=Agent(name=self.name(), version=self.version()), steps=steps)
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        (self.logs_dir / "trajectory.json").write_text(json.dumps(trajectory.to_json_dict(), indent=2))
