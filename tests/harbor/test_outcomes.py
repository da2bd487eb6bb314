"""Trial outcome classes from Harbor's result fields: published tables report infrastructure failures apart from
the agent's own failures, so each exception Harbor records must land in the right class."""

from __future__ import annotations

import pytest

from agenticvbench.runs.trial_outcomes import classify

STARTED = {"agent_execution": {"started_at": "2026-01-01T00:00:00Z"}, "finished_at": "2026-01-01T00:10:00Z"}


def _exc(kind: str, msg: str = "m", **extra: object) -> dict:
    return {**STARTED, **extra, "exception_info": {"exception_type": kind, "exception_message": msg}}


@pytest.mark.parametrize(
    ("result", "kind"),
    [
        ({**STARTED, "verifier_result": {"rewards": {"reward": 0.0}}}, "scored"),
        (_exc("AgentTimeoutError"), "agent_timeout"),
        (_exc("NonZeroAgentExitCodeError"), "agent_error"),
        (_exc("ContextWindowExceededError"), "agent_error"),
        (_exc("EnvironmentStartTimeoutError"), "infra_failure"),
        (_exc("SandboxBuildFailedError"), "infra_failure"),
        (_exc("DownloadVerifierDirError"), "infra_failure"),
        (
            {"exception_info": {"exception_type": "RuntimeError", "exception_message": "docker died"}},
            "infra_failure",
        ),
        (_exc("VerifierTimeoutError"), "verifier_error"),
        (_exc("RewardFileNotFoundError"), "verifier_error"),
        (_exc("CancelledError"), "cancelled"),
        ({"task_name": "x"}, "cancelled"),
        ({"exception_info": "not an object", "finished_at": 3}, "cancelled"),
    ],
)
def test_each_harbor_exception_lands_in_its_class(result, kind):
    """One row per class; an unknown exception before the agent started is a harness crash (infrastructure);
    wrong types in a hostile result.json read as absent."""
    assert classify(result).kind == kind


def test_reason_is_one_bounded_line():
    """A multi-line, huge exception message becomes one line of at most 500 characters after the type."""
    out = classify(_exc("AgentTimeoutError", "line1\nline2 " + "x" * 5000))
    assert out.reason.startswith("AgentTimeoutError: line1 line2 ") and "\n" not in out.reason
    assert len(out.reason) <= len("AgentTimeoutError: ") + 500
