"""Inspect AI eval logs generated in code with inspect_ai's own writer (`write_eval_log` on an `EvalLog` built
here): each sample a user prompt, then per tool call an assistant message with its `ToolCall` and the
`ChatMessageTool` result, with the `ModelEvent` (time, usage) and `ToolEvent` (time) Inspect records for them.
A full `eval()` is not run: mockllm's run counts tokens with tiktoken, which downloads its encoding."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.event import ModelEvent, SampleInitEvent, ToolEvent
from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentText,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.model._model_output import ChatCompletionChoice
from inspect_ai.tool import ToolCall, ToolCallError
from inspect_ai.util import SandboxEnvironmentSpec
from inspect_ai.util._sandbox.compose import ComposeConfig, ComposeService

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
MODEL = "mockllm/model"
PROMPT = "Recut the film into a recap."


@dataclass(frozen=True)
class Call:
    """One tool call: the function, its arguments, its result (or `error`, a `ToolCallError` message)."""

    function: str
    arguments: dict[str, Any]
    result: str = "ok"
    error: str | None = None
    events_only: bool = False  # a sub-agent's call: a ToolEvent, not in the sample's messages


def bash(cmd: str, result: str = "ok") -> Call:
    """Inspect's `bash` tool."""
    return Call("bash", {"cmd": cmd}, result)


@dataclass
class _Sample:
    messages: list[Any] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)


def _model_event(i: int, message: ChatMessageAssistant) -> ModelEvent:
    choice = ChatCompletionChoice(message=message, stop_reason="tool_calls")
    usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    return ModelEvent(
        timestamp=T0 + timedelta(seconds=10 * i),
        completed=T0 + timedelta(seconds=10 * i + 2),
        model=MODEL,
        input=[],
        tools=[],
        tool_choice="auto",
        config=GenerateConfig(),
        output=ModelOutput(model=MODEL, choices=[choice], usage=usage),
    )


def local_sandbox() -> SandboxEnvironmentSpec:
    """Inspect's `local` sandbox with a compose configuration, as inspect-harbor gives the exported tasks when run
    with `-T sandbox_env_name=local`: inspect_ai cannot deserialise that configuration when it reads the log."""
    return SandboxEnvironmentSpec("local", ComposeConfig(services={"default": ComposeService(image="hb__1")}))


def sample(
    sample_id: str | int,
    calls: list[Call],
    *,
    epoch: int = 1,
    cited: str | None = None,
    sandbox: SandboxEnvironmentSpec | None = None,
) -> EvalSample:
    """A sample: system and user messages, then one assistant message per call (text "Next step." and the call),
    its tool result, and a last assistant answer ("done", citing the URL `cited` when given); with `sandbox`,
    the sample's and its `sample_init` event's sandbox."""
    s = _Sample(messages=[ChatMessageSystem(content="You are an editor."), ChatMessageUser(content=PROMPT)])
    if sandbox is not None:
        s.events.append(SampleInitEvent(sample=Sample(input=PROMPT, id=sample_id, sandbox=sandbox), state={}))
    for i, c in enumerate(calls):
        cid = f"call_{epoch}_{i}"
        msg = ChatMessageAssistant(
            id=f"msg_{epoch}_{i}",
            content="Next step.",
            tool_calls=[ToolCall(id=cid, function=c.function, arguments=c.arguments)],
            model=MODEL,
        )
        err = ToolCallError("unknown", c.error) if c.error else None
        result = "" if c.error else c.result
        s.events.append(_model_event(i, msg))
        s.events.append(
            ToolEvent(
                timestamp=T0 + timedelta(seconds=10 * i + 3),
                id=cid,
                function=c.function,
                arguments=c.arguments,
                result=result,
                error=err,
            )
        )
        if not c.events_only:
            s.messages += [
                msg,
                ChatMessageTool(content=result, tool_call_id=cid, function=c.function, error=err),
            ]
    content: Any = "done"
    if cited:
        content = [ContentText(text="done", citations=[{"type": "url", "url": cited}])]
    final = ChatMessageAssistant(id=f"msg_{epoch}_end", content=content, model=MODEL)
    s.events.append(_model_event(len(calls), final))
    s.messages.append(final)
    return EvalSample(
        id=sample_id,
        epoch=epoch,
        input=PROMPT,
        target="",
        messages=s.messages,
        events=s.events,
        sandbox=sandbox,
    )


def write(path: Path, samples: list[EvalSample]) -> Path:
    """An eval log of `samples` at `path` (`.eval` or `.json`, as inspect_ai writes them); returns `path`."""
    spec = EvalSpec(
        created=T0.isoformat(),
        task="inspect_harbor/harbor",
        dataset=EvalDataset(name="tasks"),
        model=MODEL,
        config=EvalConfig(),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(EvalLog(status="success", eval=spec, samples=samples), str(path))
    return path
