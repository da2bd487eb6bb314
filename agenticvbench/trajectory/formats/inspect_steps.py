"""One Inspect `EvalSample` (as inspect_ai's reader returns it) as the audit's steps.

The steps come from `sample.messages`: system and user messages; per assistant message its text and one step
per tool call (`ToolCall.function`, `arguments`), or per server-side tool use (`ContentToolUse`), paired with the
`ChatMessageTool` result of the same call id (its `ToolCallError` as the error). `sample.events` give the times
(a `ToolEvent` per call id, a `ModelEvent` per output message) and tokens (the model event's input + output
tokens, on the message's first step), and the tool calls that appear only there (sub-agents), added after the
messages. URL citations on an answer mark it grounded; a sample's error is a `system` step. The objects are
inspect_ai's pydantic models, validated by its reader, so their fields have their declared types. Before that
reader sees a sample's JSON, what the steps do not read is dropped from it (`cleared`).
"""

from __future__ import annotations

from typing import Any

from agenticvbench.trajectory.formats.common import StepBuilder, get
from agenticvbench.trajectory.model import MAX_STEPS, Step, token_sum

SampleSteps = tuple[list[Step], int]  # a sample's steps, and how many of them only its events gave


def _text(content: Any) -> str:
    """The text of a message content: a string, or its text parts joined (reasoning, media and tool use left)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return " ".join(p.text for p in parts[:1000] if getattr(p, "type", None) == "text")


def _grounded(content: Any) -> bool:
    """An answer citing URLs (a provider's web search grounding it)."""
    parts = content if isinstance(content, list) else []
    return any(
        getattr(c, "type", None) == "url" for p in parts[:1000] for c in (getattr(p, "citations", None) or ())
    )


def _when(value: Any) -> str | None:
    return value.isoformat() if hasattr(value, "isoformat") else None


def _result(value: Any) -> str:
    """A tool result (a string, a number, a content part or a list of them) as text."""
    if isinstance(value, (str, list)):
        return _text(value)
    text = getattr(value, "text", None)
    return text if isinstance(text, str) else str(value)


def _error(err: Any) -> str | None:
    return f"{err.type}: {err.message}" if err is not None else None


def _assistant(
    b: StepBuilder, msg: Any, at: tuple[str | None, int | None], tool_times: dict[str, str | None] | None
) -> None:
    """The steps of one assistant message: its text, its tool calls (each at its `ToolEvent`'s time) and its
    server-side tool uses; `at` is (time, tokens) of the model call that wrote it. `tool_times` None marks a
    message seen only in the events: its tool calls come as `ToolEvent`s, and its text only when grounded."""
    time, tokens = at
    grounded = _grounded(msg.content)
    text = _text(msg.content)
    if (tool_times is not None and text.strip()) or grounded:
        b.add(None, role="agent", arguments=text, time=time, tokens=tokens, grounded=grounded)
        tokens = None
    parts = msg.content if isinstance(msg.content, list) else []
    for part in parts[:1000]:
        if getattr(part, "type", None) == "tool_use":
            b.add(
                part.id,
                role="agent",
                tool=part.name,
                arguments=part.arguments,
                result=part.result,
                error=part.error,
                time=time,
                tokens=tokens,
                grounded=grounded,
            )
            tokens = None
    if tool_times is None:
        return
    for call in (msg.tool_calls or [])[:1000]:
        b.add(
            call.id,
            role="agent",
            tool=call.function,
            arguments=call.arguments,
            time=tool_times.get(call.id) or time,
            tokens=tokens,
            grounded=grounded,
        )
        tokens = None


def sample_steps(sample: Any) -> SampleSteps:
    """(the steps of one `EvalSample`, how many of them only its events gave): see the module docstring."""
    b = StepBuilder()
    tool_times: dict[str, str | None] = {}
    models: dict[str, tuple[str | None, int | None, Any]] = {}
    for e in sample.events:
        if e.event == "tool":
            tool_times[e.id] = _when(e.timestamp)
        elif e.event == "model" and e.output.choices:
            usage = e.output.usage
            tokens = token_sum(usage.input_tokens, usage.output_tokens) if usage else None
            message = e.output.choices[0].message
            models[str(message.id)] = (_when(e.completed or e.timestamp), tokens, message)
    seen: set[str] = set()
    for msg in sample.messages[:MAX_STEPS]:
        if msg.role in ("system", "user"):
            b.add(None, role=msg.role, arguments=_text(msg.content))
        elif msg.role == "assistant":
            seen.add(str(msg.id))
            time, tokens, _ = models.get(str(msg.id), (None, None, None))
            _assistant(b, msg, (time, tokens), tool_times)
        elif msg.role == "tool":
            b.result(msg.tool_call_id, _text(msg.content), _error(msg.error), None)
    before = len(b.steps)
    for mid, (time, _, message) in models.items():
        if mid not in seen:
            _assistant(b, message, (time, None), None)
    for e in sample.events:
        if e.event == "tool" and e.id not in b.calls:
            b.add(
                e.id,
                role="agent",
                tool=e.function,
                arguments=e.arguments,
                result=_result(e.result),
                error=_error(e.error),
                time=_when(e.timestamp),
            )
    extra = len(b.steps) - before
    if sample.error is not None:
        b.add(None, role="system", error=sample.error.message or "error")
    return b.steps, extra


def without_configs(*holders: Any) -> None:
    """Drop the sandbox configuration of each holder's `sandbox` (a sample, a `sample_init` event's sample, the
    eval spec): a configuration is deserialised by its sandbox provider, which may not be installed here or,
    like Inspect's `local` sandbox given inspect-harbor's compose configuration, cannot deserialise one."""
    for holder in holders:
        spec = get(holder, "sandbox")
        if isinstance(spec, dict) and isinstance(spec.get("config"), dict):
            spec["config"] = None


def cleared(sample: Any) -> Any:
    """A parsed sample without its sandbox configurations (its own and its `sample_init` event's) and without
    what the steps do not read and inspect_ai would rebuild: each model event's input and call payload, lists
    it expands from `events_data` (an 11-byte range of messages becomes a list of a thousand: quadratic in an
    honest sample, a bomb in a crafted one)."""
    events = get(sample, "events") if isinstance(get(sample, "events"), list) else []
    without_configs(sample, *(get(e, "sample") for e in events if get(e, "event") == "sample_init"))
    for event in events:
        if isinstance(event, dict) and event.get("event") == "model":
            event.update(input=[], input_refs=None, call=None)
    if isinstance(sample, dict):
        sample["events_data"] = None
    return sample
