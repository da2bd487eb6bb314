"""The judge's one entry point: `VideoJudge(settings, video).judge(request) -> JudgeCall`.

`VideoJudge` judges any number of rubric items against one video (one instance per task). It picks the mode's
class from `modes.JUDGES` (off | human | replay | cache) and owns what every mode shares:

1. modes that do not consult the cache (`off`, `human`) answer at once, once per item;
2. otherwise, per (model, sample) of the ensemble, the verdict is looked up in the on-disk cache (`cache.py`); a
   hit makes no network call at all;
3. on a miss, a mode that calls the endpoint is first gated: an endpoint found dead earlier in the task (401/403/
   404, unreachable after retries, a video whose frames cannot be sampled) or an open run-wide breaker
   (`breaker.py`) leaves the item `unscored` with that reason, so a dead endpoint costs one item's retries;
4. the item's route (`routing.route_item`, carried by the request) names its modality; the modality's model and
   endpoint come from `JudgeSettings.judge_for`; before asking, the parts it needs are checked by capability
   probes (`probe.py`, cached) and the first acceptable delivery is chosen (`delivery.plan`): an item the judge
   cannot receive is `unscored` with a reason naming the missing capability;
5. the mode answers (`replay`: "replay miss ..."; `cache`: one chat completion through `endpoint.Endpoint`, which
   owns the SDK client, the request deadline, retries and the JSON-mode fallback); decisive verdicts are cached
   under a key of (model, the profile's template version, prompt, the delivery's media digest);
6. an ensemble (`settings.models`, `settings.samples`) takes the majority of the decisive answers
   (`calls.vote`); anything unforeseen makes that one item `unscored`, never the task's other items.

Items run concurrently on `max_concurrency` threads. `stats` counts HTTP calls, cache hits, retries, tokens and
cost (from the settings' price table; None for an unpriced model).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import openai

from agenticvbench.judge.breaker import CircuitBreaker, breaker_for, marker_dir_for
from agenticvbench.judge.cache import JudgeCache, cache_key
from agenticvbench.judge.calls import JudgeCall, JudgeRequest, JudgeStats, Tally, vote
from agenticvbench.judge.delivery import Delivery, Unreceivable, candidates, plan
from agenticvbench.judge.endpoint import CallFailed, Endpoint, short
from agenticvbench.judge.media import AudioFacts, JudgedVideo
from agenticvbench.judge.modes import JUDGES, EndpointJudge, HumanJudge, HumanLookup, JudgeMode
from agenticvbench.judge.probe import CapabilityProbe
from agenticvbench.judge.profiles import get_profile
from agenticvbench.judge.routing import Route, route_item
from agenticvbench.judge.settings import JudgeSettings

__all__ = ["JudgeCall", "JudgeRequest", "JudgeStats", "VideoJudge"]


class VideoJudge:
    """Judges rubric items against one video (one instance per task); see the module docstring."""

    def __init__(
        self,
        settings: JudgeSettings,
        video: str | Path,
        *,
        cache: JudgeCache | None = None,
        audio_facts: AudioFacts | None = None,
        client: openai.OpenAI | None = None,
        breaker: CircuitBreaker | None = None,
        human: HumanLookup | None = None,
        task_id: int | None = None,
    ) -> None:
        self.settings = settings
        self.task_id = task_id
        self.cache = cache
        self.breaker = breaker or breaker_for(
            settings.run_id, marker_dir_for(cache.root.parent if cache else None), settings.breaker_threshold
        )
        self._tally = Tally()
        self.profile = get_profile(settings.profile)
        self.endpoint = Endpoint(settings, self.breaker, self._tally, client)
        self._endpoints = {self.endpoint.base_url: self.endpoint}
        self._endpoints_lock = threading.Lock()
        self.probe = CapabilityProbe(
            cache_root=cache.root if cache else None,
            audio_format=settings.audio_format,
            audio_style=settings.audio_style,
            tally=self._tally,
        )
        self.media = JudgedVideo(
            video,
            settings,
            note=self._tally.note,
            audio_facts=audio_facts,
            transcribe=self.endpoint.transcribe,
        )
        self.mode = self._mode(human)
        self._dead: str | None = None
        self._dead_lock = threading.Lock()

    def _mode(self, human: HumanLookup | None) -> JudgeMode:
        cls = JUDGES[self.settings.mode]
        if cls is HumanJudge:
            return HumanJudge(human)
        if cls is EndpointJudge:
            return EndpointJudge(self.settings, self.media, self._tally, self.profile)
        return cls()

    @property
    def stats(self) -> JudgeStats:
        """This task's judge accounting."""
        return self._tally.stats

    @property
    def video(self) -> Path:
        """The judged video."""
        return self.media.path

    def judge_many(self, requests: list[JudgeRequest]) -> list[JudgeCall]:
        """Judge every request (concurrently), returning calls in request order."""
        if not requests:
            return []
        workers = min(self.settings.max_concurrency, len(requests))
        if workers == 1:
            return [self.judge(r) for r in requests]
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="avb-judge") as pool:
            return list(pool.map(self.judge, requests))

    def judge(self, request: JudgeRequest) -> JudgeCall:
        """Judge one item; never raises for endpoint or reply problems (the item is `unscored` instead)."""
        try:
            call = self._judge(request)
        except Exception as exc:  # anything unforeseen costs this item only, never the task's other items
            call = JudgeCall.unscored(request.item_id, f"judge failed: {type(exc).__name__}: {short(exc)}")
        if call.outcome == "unscored":
            self._tally.add(unscored=1)
        return call

    def endpoint_for(self, base_url: str | None) -> Endpoint:
        """The endpoint at `base_url` (None: the default one), created once per task."""
        url = self.settings.resolve_url(base_url)
        with self._endpoints_lock:
            if url not in self._endpoints:
                self._endpoints[url] = Endpoint(self.settings, self.breaker, self._tally, base_url=url)
            return self._endpoints[url]

    def _judge(self, request: JudgeRequest) -> JudgeCall:
        s = self.settings
        if not self.mode.consults_cache:
            return self.mode.answer(request, s.model, 0.0)
        route = request.route or route_item("llm", (), request.prompt)
        models, base_url = s.judge_for(route.modality)
        endpoint = self.endpoint_for(base_url)
        pairs = [(m, i) for m in models for i in range(s.samples)]
        if len(pairs) == 1:
            return self._one(request, route, endpoint, models[0], 0)
        return vote(request, pairs, [self._one(request, route, endpoint, m, i) for m, i in pairs])

    def _template(self, request: JudgeRequest) -> str:
        """The cache key's template part: the profile's version (and, for a violation question, its polarity)."""
        version = self.profile.template_version
        return f"{version}+fires-on:{request.fires_on}" if self.profile.frames_violation(request) else version

    def _one(
        self, request: JudgeRequest, route: Route, endpoint: Endpoint, model: str, sample: int
    ) -> JudgeCall:
        """One (model, sample) answer: from the cache, else from the mode (cached when decisive)."""
        key_model = model if sample == 0 else f"{model}#sample{sample}"
        template = self._template(request)
        keys = {
            parts: cache_key(key_model, template, request.prompt, self.media.delivery_digest(parts))
            for parts in candidates(route.modality)
        }
        for parts, key in keys.items():
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is not None:
                self._tally.add(cache_hits=1)
                return JudgeCall(
                    item_id=request.item_id,
                    outcome=hit["outcome"],
                    reason=str(hit.get("reason", "")),
                    cached=True,
                    audio_included=bool(hit.get("audio_included", False)),
                    raw=str(hit.get("raw", "")),
                    modality=route.modality,
                    delivery=list(parts),
                    profile=self.profile.name,
                )
        self._tally.add(cache_misses=1)
        delivery: Delivery | None = None
        try:
            if self.mode.calls_endpoint:
                gate = self._dead or self.breaker.open_reason()
                if gate is not None:
                    return JudgeCall.unscored(request.item_id, gate)
                planned = plan(
                    route.modality,
                    lambda part: self.probe.check(endpoint, model, part),
                    who=f"{model} at {endpoint.host}",
                )
                if isinstance(planned, Unreceivable):
                    return JudgeCall.unscored(request.item_id, planned.reason)
                delivery = planned
            temperature = self.settings.sample_temperature if sample else 0.0
            call = self.mode.answer(request, model, temperature, delivery=delivery, endpoint=endpoint)
        except CallFailed as exc:
            reason = f"judge unavailable: {exc}"
            if exc.fatal:
                with self._dead_lock:
                    self._dead = self._dead or reason
            return JudgeCall.unscored(request.item_id, reason)
        if call.outcome != "unscored" and self.cache is not None and delivery is not None:
            self._store(keys[delivery.parts], request, call, key_model, template)
        return call

    def _store(self, key: str, request: JudgeRequest, call: JudgeCall, model: str, template: str) -> None:
        """Cache a decisive verdict; a failed write is noted, never fatal (the verdict still counts)."""
        assert self.cache is not None
        try:
            self.cache.put(
                key,
                {
                    "item_id": request.item_id,
                    "outcome": call.outcome,
                    "reason": call.reason,
                    "raw": call.raw,
                    "model": model,
                    "template_version": template,
                    "profile": call.profile,
                    "modality": call.modality,
                    "delivery": call.delivery,
                    "prompt_tokens": call.prompt_tokens,
                    "completion_tokens": call.completion_tokens,
                    "cost_usd": call.cost_usd,
                    "audio_included": call.audio_included,
                    "task_id": self.task_id,
                    "video_sha256": self.media.sha256,
                    "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                },
            )
        except OSError as exc:
            self._tally.note(f"verdict cache write failed ({short(exc)})")
