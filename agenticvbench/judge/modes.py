"""One small class per judge mode; `client.VideoJudge` picks one from `JUDGES` and wraps it.

A mode only says how one (model, temperature) answer is obtained. The wrapper owns everything around it:
the verdict cache (lookup before, store after), the dead-endpoint and breaker gates, ensemble voting and the
catch-all that turns an unforeseen error into an `unscored` item.

- `off`: every item is `unscored`, no model at all;
- `human`: the majority of people's verdicts on this very video (the `human` lookup; `human_store.py`);
- `replay`: the cache only; a miss is `unscored` ("replay miss ...");
- `cache`: ask the endpoint (`EndpointJudge`) on a cache miss, and cache decisive verdicts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from agenticvbench.errors import MediaError
from agenticvbench.judge import prompts
from agenticvbench.judge.av_parts import audio_part, video_part
from agenticvbench.judge.calls import JudgeCall, JudgeRequest, Tally
from agenticvbench.judge.delivery import Delivery
from agenticvbench.judge.endpoint import CallFailed, Endpoint
from agenticvbench.judge.media import JudgedVideo
from agenticvbench.judge.profiles import Profile
from agenticvbench.judge.routing import item_time_range
from agenticvbench.judge.settings import JudgeSettings
from agenticvbench.judge.verdict import Outcome, Verdict, parse_verdict

HumanLookup = Callable[[str], tuple[Outcome, str, list[dict[str, Any]]]]


class JudgeMode:
    """How one answer is obtained. `consults_cache`: the wrapper asks the verdict cache first, per (model,
    sample) of the ensemble; `calls_endpoint`: the wrapper checks the dead-endpoint and breaker gates first."""

    consults_cache: ClassVar[bool] = False
    calls_endpoint: ClassVar[bool] = False

    def answer(
        self,
        request: JudgeRequest,
        model: str,
        temperature: float,
        *,
        delivery: Delivery | None = None,
        endpoint: Endpoint | None = None,
    ) -> JudgeCall:
        """One answer for `request`, sending `delivery`'s parts to `endpoint` when the mode calls one (may raise
        `endpoint.CallFailed` for an endpoint failure)."""
        raise NotImplementedError


class OffJudge(JudgeMode):
    """Mode `off`: no verdict is requested."""

    def answer(self, request: JudgeRequest, model: str, temperature: float, **_: Any) -> JudgeCall:
        """Always `unscored`."""
        return JudgeCall.unscored(request.item_id, "judge off: no llm verdict requested")


class HumanJudge(JudgeMode):
    """Mode `human`: people's verdicts, read through `lookup` (None: no verdict store available)."""

    def __init__(self, lookup: HumanLookup | None) -> None:
        self.lookup = lookup

    def answer(self, request: JudgeRequest, model: str, temperature: float, **_: Any) -> JudgeCall:
        """The graders' majority for the item (marked `cached`: no model was called)."""
        if self.lookup is None:
            return JudgeCall.unscored(request.item_id, "no human verdict: no verdict store available")
        outcome, reason, votes = self.lookup(request.item_id)
        return JudgeCall(item_id=request.item_id, outcome=outcome, reason=reason, cached=True, votes=votes)


class ReplayJudge(JudgeMode):
    """Mode `replay`: cached verdicts only (the wrapper answers hits; this class answers misses)."""

    consults_cache = True

    def answer(self, request: JudgeRequest, model: str, temperature: float, **_: Any) -> JudgeCall:
        """A cache miss: `unscored`."""
        return JudgeCall.unscored(
            request.item_id, f"replay miss: no cached verdict for item '{request.item_id}'"
        )


def _tokens(usage: Any, name: str) -> int:
    """A token count from a usage object, 0 when absent or not a sane integer (hostile payloads)."""
    value = getattr(usage, name, 0)
    return value if isinstance(value, int) and 0 <= value < 10**9 else 0


class EndpointJudge(JudgeMode):
    """Mode `cache`: one chat completion per answer, carrying the parts of the item's delivery (frames, audio,
    video) and, for items about sound, the measured audio block; the profile frames the question."""

    consults_cache = True
    calls_endpoint = True

    def __init__(self, settings: JudgeSettings, video: JudgedVideo, tally: Tally, profile: Profile) -> None:
        self.settings = settings
        self.video = video
        self.tally = tally
        self.profile = profile

    def _media(
        self, request: JudgeRequest, delivery: Delivery
    ) -> tuple[list[dict[str, Any]], dict[str, int], str]:
        """The audio/video parts (with their labels), their inline sizes, and a note when video fell back."""
        parts: list[dict[str, Any]] = []
        sizes: dict[str, int] = {}
        span = request.time_range or item_time_range(request.prompt, self.video.duration())
        if "video" in delivery.parts:
            try:
                clip = self.video.video(span)
            except MediaError as exc:
                raise CallFailed(f"no video part ({exc})", fatal=False) from None
            label = prompts.VIDEO_PART_LABEL.format(start=clip.start, end=clip.end)
            parts += [{"type": "text", "text": label}, video_part(clip)]
            sizes["video"] = len(clip.data)
        if "audio" in delivery.parts:
            if not self.video.has_audio():
                parts.append({"type": "text", "text": prompts.NO_AUDIO})
            else:
                clip = self.video.audio(span)
                label = prompts.AUDIO_PART_LABEL.format(start=clip.start, end=clip.end)
                parts += [
                    {"type": "text", "text": label},
                    audio_part(clip, delivery.audio_style or "input_audio"),
                ]
                sizes["audio"] = len(clip.data)
        return parts, sizes, delivery.note

    def answer(
        self,
        request: JudgeRequest,
        model: str,
        temperature: float,
        *,
        delivery: Delivery | None = None,
        endpoint: Endpoint | None = None,
    ) -> JudgeCall:
        """Ask the model; an unreadable reply is `unscored`, an endpoint failure raises `CallFailed`."""
        s = self.settings
        assert delivery is not None and endpoint is not None, "the wrapper plans the delivery first"
        sampled = self.video.frames() if "image" in delivery.parts else None
        media, sizes, note = self._media(request, delivery)
        if note:
            self.tally.note(note)
        about_sound = prompts.is_about_sound(request.prompt)
        audio_text = self.video.audio_text() if about_sound else None
        messages = prompts.build_messages(
            self.profile.criterion_block(request),
            duration=sampled.duration if sampled else self.video.duration(),
            width=sampled.width if sampled else 0,
            height=sampled.height if sampled else 0,
            frames=sampled.frames if sampled else None,
            image_detail=s.image_detail,
            audio_text=audio_text,
            media_parts=media,
        )
        if sampled is not None:
            sizes["image"] = sum(len(url) for _, url in sampled.frames)
        resp, attempts = endpoint.chat(messages, model, temperature)
        usage = getattr(resp, "usage", None)
        p_tok, c_tok = _tokens(usage, "prompt_tokens"), _tokens(usage, "completion_tokens")
        cost = s.cost_usd(p_tok, c_tok, model)
        price: dict[str, float] = {"unpriced_calls": 1} if cost is None else {"cost_usd": cost}
        self.tally.add(prompt_tokens=p_tok, completion_tokens=c_tok, **price)
        self.tally.add_modality(delivery.modality, p_tok, c_tok, cost, model)
        try:
            content = resp.choices[0].message.content
        except (AttributeError, IndexError, TypeError, KeyError):
            content = None
        if content is not None and not isinstance(content, str):
            verdict = Verdict(
                "unscored",
                f"unexpected reply: not a chat completion with text content ({type(resp).__name__})",
            )
            content = None
        else:
            verdict = self.profile.outcome(request, parse_verdict(content))
        return JudgeCall(
            item_id=request.item_id,
            outcome=verdict.outcome,
            reason=verdict.reason,
            attempts=attempts,
            prompt_tokens=p_tok,
            completion_tokens=c_tok,
            cost_usd=cost,
            audio_included=about_sound or bool({"audio", "video"} & set(delivery.parts)),
            raw=(content or "")[:2000],
            modality=delivery.modality,
            delivery=list(delivery.parts),
            profile=self.profile.name,
            media_bytes=sizes,
        )


#: mode name -> its class (the wrapper builds the instance with what that mode needs).
JUDGES: dict[str, type[JudgeMode]] = {
    "off": OffJudge,
    "human": HumanJudge,
    "replay": ReplayJudge,
    "cache": EndpointJudge,
}
