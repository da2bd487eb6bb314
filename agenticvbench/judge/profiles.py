"""Prompt contracts as named profiles: how an item's question is framed and how the reply becomes an outcome.

- `legacy`: the package's original contract (template `recap-judge-v1`, `prompts.py`): every item is asked
  "does the video meet this criterion?" and `{"pass": true}` passes it, whatever the item's weight.
- `violation`: the release's contract (template `recap-judge-violation-v1`): positive items are asked as in
  `legacy`; a negative-weight item describes a penalty, and the judge is asked whether the described violation
  is actually present, with "if ambiguous, decline to fire the penalty". Its strict JSON boolean
  (`{"pass": true}` = the violation is present) fires the penalty: the item takes the outcome that deducts
  (`JudgeRequest.fires_on`), and `false` takes the other one.

The profile is chosen with `--judge-profile` (`JudgeSettings.profile`), recorded in result provenance
(`judge_profile`, `prompt_template_version`, `prompt_hash`) and, through its template version, in every verdict
cache key, so verdicts of one profile are never reused for the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from agenticvbench.fsutil import text_sha256
from agenticvbench.judge import prompts
from agenticvbench.judge.calls import JudgeRequest
from agenticvbench.judge.verdict import Outcome, Verdict

VIOLATION_HEADER = (
    "This criterion describes a VIOLATION that costs the video points. Answer whether the described violation "
    "is actually present in the video. Pass only if the described violation is actually present; if the "
    "evidence is ambiguous or insufficient, decline to fire the penalty (answer false)."
)
VIOLATION_SUFFIX = (
    'Reply with exactly one line of strict JSON and nothing else: {"pass": true|false, '
    '"reason": "<explanation of at most 30 words>"}, where "pass" is the JSON boolean true only when the '
    "violation is actually present."
)


@dataclass(frozen=True)
class Profile:
    """One prompt contract: its name, the template version (part of every cache key) and its fixed texts."""

    name: str
    template_version: str
    texts: tuple[str, ...]

    def prompt_hash(self) -> str:
        """SHA-256 of the template version and every fixed text (recorded in provenance)."""
        return text_sha256("\x1f".join((self.template_version, *self.texts)))

    def frames_violation(self, request: JudgeRequest) -> bool:
        """True when this profile asks `request` as a violation (a negative-weight item under `violation`)."""
        return self.name == "violation" and request.fires_on is not None

    def criterion_block(self, request: JudgeRequest) -> str:
        """The text part that closes the request: the criterion and the reply contract."""
        if self.frames_violation(request):
            return f"{VIOLATION_HEADER}\n{prompts.CRITERION_HEADER}\n{request.prompt.strip()}\n\n{VIOLATION_SUFFIX}"
        return f"{prompts.CRITERION_HEADER}\n{request.prompt.strip()}\n\n{prompts.VERDICT_SUFFIX}"

    def outcome(self, request: JudgeRequest, verdict: Verdict) -> Verdict:
        """The item's outcome from the parsed reply (a violation verdict maps to the outcome that deducts)."""
        if not self.frames_violation(request) or verdict.outcome == "unscored":
            return verdict
        fires: Outcome = request.fires_on or "fail"
        other: Outcome = "pass" if fires == "fail" else "fail"
        if verdict.outcome == "pass":
            return Verdict(fires, f"violation present: {verdict.reason}")
        return Verdict(other, f"violation not present: {verdict.reason}")


_LEGACY_TEXTS = (
    prompts.SYSTEM_PROMPT,
    prompts.VIDEO_HEADER,
    prompts.FRAME_LABEL,
    prompts.AUDIO_HEADER,
    prompts.NO_AUDIO,
    prompts.TRANSCRIPT_HEADER,
    prompts.CRITERION_HEADER,
    prompts.VERDICT_SUFFIX,
    ",".join(prompts.SOUND_WORDS),
)

#: profile name -> profile. `legacy` keeps the original template (and its cache keys) unchanged.
PROFILES: dict[str, Profile] = {
    "legacy": Profile("legacy", prompts.PROMPT_TEMPLATE_VERSION, _LEGACY_TEXTS),
    "violation": Profile(
        "violation", "recap-judge-violation-v1", (*_LEGACY_TEXTS, VIOLATION_HEADER, VIOLATION_SUFFIX)
    ),
}
PROFILE_NAMES: tuple[str, ...] = tuple(PROFILES)
DEFAULT_PROFILE = "legacy"


def get_profile(name: str) -> Profile:
    """The profile called `name` (ValueError naming the choices otherwise)."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"judge profile must be one of {', '.join(PROFILES)}, got {name!r}") from None
