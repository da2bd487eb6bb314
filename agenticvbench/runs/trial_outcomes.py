"""What happened to one Harbor trial, from Harbor's own result fields (`exception_info`, `agent_execution`,
`verifier_result`), in the classes a published table reports separately.

- `scored`: no exception, the verifier ran (the agent may still have written nothing: that scores 0);
- `agent_timeout`: `AgentTimeoutError` (Harbor still grades what the agent wrote);
- `agent_error`: any other failure once the agent had started (non-zero exit, model API errors, context window);
- `infra_failure`: the sandbox failed, not the agent: environment start or build, agent setup, health check,
  sandbox out of memory, remote exec transport, the verifier's environment (tests upload, log download), or
  any exception before the agent started (a harness crash);
- `verifier_error`: the agent finished but Harbor's verifier produced no valid reward (timeout, no or bad
  reward file); the outputs are imported and `avb verify` scores them as usual;
- `cancelled`: the job was cancelled, or the trial never finished (no result fields at all).

The exception names are Harbor 0.26's (`harbor.models.trial.error_policy`, where the infrastructure ones are the
group that is retried and never graded).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import parse_json_bounded, read_capped

OUTCOMES = ("scored", "agent_timeout", "agent_error", "infra_failure", "verifier_error", "cancelled")
INFRA_EXCEPTIONS = frozenset(
    {
        "EnvironmentStartTimeoutError",
        "SandboxBuildFailedError",
        "AgentSetupTimeoutError",
        "HealthcheckError",
        "SandboxLikelyOutOfMemoryError",
        "MemoryLimitExceededError",
        "SSHAccessError",
        "GKEExecStreamClosedError",
        "GKEPodNotFoundError",
        "RuntimeRequestError",
        "AddTestsDirError",
        "DownloadVerifierDirError",
    }
)
VERIFIER_EXCEPTIONS = frozenset(
    {
        "VerifierTimeoutError",
        "RewardFileNotFoundError",
        "RewardFileEmptyError",
        "VerifierOutputParseError",
    }
)
CANCELLED_EXCEPTIONS = frozenset({"CancelledError", "KeyboardInterrupt"})
MAX_MESSAGE = 500


@dataclass(frozen=True)
class Outcome:
    """A trial's class and a one-line reason (the exception, or why none is recorded)."""

    kind: str
    reason: str = ""


def get_path(obj: Any, *keys: str) -> Any:
    """`obj[k1][k2]...`, None where a level is not a dict."""
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _text(value: Any, limit: int = MAX_MESSAGE) -> str:
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


def classify(result: dict[str, Any]) -> Outcome:
    """The outcome of one trial's `result.json` (hostile input: wrong types read as absent)."""
    info = result.get("exception_info")
    kind = _text(get_path(info, "exception_type"), 100)
    message = _text(get_path(info, "exception_message"))
    reason = f"{kind}: {message}".rstrip(": ") if kind else ""
    agent_started = isinstance(get_path(result, "agent_execution", "started_at"), str)
    has_reward = isinstance(get_path(result, "verifier_result", "rewards"), dict)
    if isinstance(info, dict):
        kind = kind or "exception"
        if kind in CANCELLED_EXCEPTIONS:
            return Outcome("cancelled", reason or kind)
        if kind in INFRA_EXCEPTIONS:
            return Outcome("infra_failure", reason)
        if kind == "AgentTimeoutError":
            return Outcome("agent_timeout", reason)
        if kind in VERIFIER_EXCEPTIONS:
            return Outcome("verifier_error", reason)
        if not agent_started:
            return Outcome("infra_failure", f"{reason or kind} (before the agent started)")
        return Outcome("agent_error", reason or kind)
    if has_reward:
        return Outcome("scored")
    if not isinstance(result.get("finished_at"), str):
        return Outcome("cancelled", "the trial never finished (no exception, no verifier result)")
    return Outcome("verifier_error", "no exception and no verifier result recorded")


def failure_text(outcome: Outcome) -> str:
    """How the outcome reads in front of a score's reason, e.g. 'Harbor: the agent timed out (...)'."""
    what = {
        "agent_timeout": "the agent timed out",
        "agent_error": "the agent failed",
        "infra_failure": "infrastructure failure",
        "verifier_error": "Harbor's verifier failed",
        "cancelled": "the trial was cancelled",
    }.get(outcome.kind, outcome.kind)
    return f"Harbor: {what}" + (f" ({outcome.reason})" if outcome.reason else "")


MAX_RUN_JSON_BYTES = 5 * 1024 * 1024
MAX_EXCLUDED = 10_000
MAX_TRIAL_NAME = 300
INFRA_TEXT = failure_text(Outcome("infra_failure"))  # how an infrastructure failure's reason starts
EXCLUDED_TEXT = "infrastructure failure, left out by --infra-policy exclude"


def run_meta(run_dir: str | Path, max_bytes: int = MAX_RUN_JSON_BYTES) -> Any:
    """The run's parsed `run.json` (at most `max_bytes`, no symlink), or None when absent or unreadable."""
    p = Path(run_dir) / "run.json"
    try:
        if p.is_symlink() or not p.is_file():
            return None
        return parse_json_bounded(read_capped(p, max_bytes), str(p))
    except (OSError, ValueError):
        return None


def run_failures(run_dir: str | Path) -> dict[int, str]:
    """Task id -> `failure_text` for every trial of an imported run (`run.json` -> `harbor.outcomes`) that did
    not end `scored`; empty for runs not imported from Harbor or with an unreadable `run.json`."""
    raw = get_path(run_meta(run_dir), "harbor", "outcomes")
    out: dict[int, str] = {}
    for key, value in raw.items() if isinstance(raw, dict) else ():
        kind = get_path(value, "outcome")
        if str(key).isdigit() and kind in OUTCOMES and kind != "scored":
            out[int(key)] = failure_text(Outcome(kind, _text(get_path(value, "reason"))))
    return out


def run_exclusions(run_dir: str | Path) -> tuple[dict[int, str], list[str]]:
    """(task id -> the `excluded` result's reason, problems) for a run imported with `--infra-policy exclude`.

    `run.json` is the submitter's file, so a declaration counts only when it is consistent: `harbor.infra_policy`
    is `exclude`, the key is a task id, the value a trial name (a short string), and `harbor.outcomes` records
    that task's trial as `infra_failure`. Anything else is one problem line (file, field, why) and the task is
    scored as usual (no folder: `missing`, 0)."""
    p = Path(run_dir) / "run.json"
    harbor = get_path(run_meta(run_dir), "harbor")
    raw = get_path(harbor, "excluded")
    if not raw:
        return {}, []
    if not isinstance(raw, dict) or len(raw) > MAX_EXCLUDED:
        return {}, [f"{p}: harbor.excluded is not an object of at most {MAX_EXCLUDED} task ids; ignored"]
    if get_path(harbor, "infra_policy") != "exclude":
        return {}, [f"{p}: harbor.excluded is set but harbor.infra_policy is not 'exclude'; ignored"]
    outcomes = get_path(harbor, "outcomes")
    out: dict[int, str] = {}
    problems: list[str] = []
    for key, trial in raw.items():
        where = f"{p}: harbor.excluded[{_text(str(key), 20)!r}]"
        if not (isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 6):
            problems.append(f"{where}: not a task id; ignored")
        elif not (isinstance(trial, str) and 0 < len(trial) <= MAX_TRIAL_NAME and trial.isprintable()):
            problems.append(
                f"{where}: the trial name is not a string of 1-{MAX_TRIAL_NAME} printable characters; ignored"
            )
        elif (kind := get_path(outcomes, key, "outcome")) != "infra_failure":
            problems.append(
                f"{where}: harbor.outcomes records {_text(str(kind), 40)!r}, not an infrastructure "
                "failure; not excluded"
            )
        else:
            out[int(key)] = f"{EXCLUDED_TEXT}: {trial}"
    return out, problems
