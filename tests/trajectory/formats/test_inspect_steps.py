"""One Inspect sample (inspect_ai's own models) as the audit's steps: what a message, a call, a server-side tool
use, an event and an error each become."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai", reason="the optional extra agenticvbench[inspect]")

import inspect_logs as il  # noqa: E402 - after the skip: it imports inspect_ai
from inspect_ai.log import EvalError  # noqa: E402
from inspect_ai.model import ChatMessageAssistant, ContentText, ContentToolUse  # noqa: E402
from inspect_ai.tool import ToolCall  # noqa: E402

from agenticvbench.trajectory.context import AuditContext  # noqa: E402
from agenticvbench.trajectory.formats.inspect_steps import sample_steps  # noqa: E402
from agenticvbench.trajectory.rules import hits  # noqa: E402


def test_two_calls_of_one_message_share_its_tokens_once() -> None:
    """The model call's input + output tokens go on the message's first step only (its text), so the steps sum
    to the sample's usage; each call keeps its own `ToolEvent` time."""
    sample = il.sample("s", [il.bash("ls")])
    double = ChatMessageAssistant(
        id="msg_1_0",
        content="Two at once.",
        tool_calls=[
            ToolCall(id="call_1_0", function="bash", arguments={"cmd": "ls"}),
            ToolCall(id="call_1_1", function="bash", arguments={"cmd": "pwd"}),
        ],
    )
    sample.messages[2] = double
    steps, extra = sample_steps(sample)
    assert [(s.tool, s.tokens) for s in steps[2:5]] == [(None, 110), ("bash", None), ("bash", None)]
    assert steps[3].time == "2026-01-01T00:00:03+00:00" and steps[4].time == "2026-01-01T00:00:02+00:00"
    assert extra == 0


def test_a_server_side_web_search_is_a_step_the_rules_flag() -> None:
    """A provider's own web search (`ContentToolUse`) runs no tool of the harness but is a step with its query and
    result, flagged web_access; its cited answer is grounded."""
    sample = il.sample("s", [])
    searched = [
        ContentToolUse(
            tool_type="web_search",
            id="ws_1",
            name="web_search",
            arguments='{"query": "film recap"}',
            result="10 results",
        ),
        ContentText(text="Found it.", citations=[{"type": "url", "url": "https://example.com/recap"}]),
    ]
    sample.messages[-1] = ChatMessageAssistant(id="msg_1_end", content=searched)
    steps, _ = sample_steps(sample)
    answer, search = steps[-2:]
    assert answer.grounded and answer.arguments == "Found it."
    assert (search.tool, search.arguments, search.result) == (
        "web_search",
        '{"query": "film recap"}',
        "10 results",
    )
    ctx = AuditContext(repos=frozenset(), inputs={1: ()}, hosts={}, references=frozenset())
    assert {h.rule for s in steps for h in hits(s, 1, ctx, None, "/run")} == {"web_access"}


def test_a_failed_sample_ends_in_a_system_step() -> None:
    """A sample that errored (a sandbox that died, a limit) keeps its steps and ends with its error."""
    sample = il.sample("s", [il.bash("ls")])
    sample.error = EvalError(message="RuntimeError: sandbox died", traceback="", traceback_ansi="")
    steps, _ = sample_steps(sample)
    assert (steps[-1].role, steps[-1].error) == ("system", "RuntimeError: sandbox died")
    assert [s.tool for s in steps if s.tool] == ["bash"]
