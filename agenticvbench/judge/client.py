"""The OpenAI-compatible judge: asks one yes/no question per rubric item about one video, with cache and retries.

`VideoJudge(settings, video)` judges any number of items against one video. Per item it:

1. returns `unscored` at once in mode `off`;
2. looks the verdict up in the on-disk cache (`cache.py`); a hit makes no network call at all;
3. in mode `replay`, leaves a miss `unscored` ("replay miss ... '<item>'");
4. otherwise sends one chat completion (temperature 0; the frames sampled once per video; for items about sound,
   the measured audio facts and optionally a transcript), asking for strict JSON. `response_format=json_object`
   is requested first; if the endpoint rejects it (HTTP 400/422), the judge drops it for the rest of the task.
5. parses the reply (`verdict.py`); pass/fail verdicts are cached, anything else is `unscored`.

Transient failures (HTTP 408/409/429/5xx, timeouts, connection errors) are retried `max_retries` times with
exponential backoff (a `Retry-After` header, when sent, is honoured up to `backoff_max_s`). Other 4xx errors are
not retried. When the endpoint is unreachable after retries, or answers 401/403/404 (bad key, unknown model), the
judge stops calling it for the rest of the task: every remaining item is `unscored` with the same reason, so a dead
endpoint costs one item's retries, not all of them. Nothing here raises for an endpoint problem; the task finishes.

Each HTTP request has a wall-clock deadline of `timeout` seconds (`deadline.py`: enforced at the socket, so a
trickling or silent endpoint cannot hold a request longer), and timeouts and connection failures feed the run-wide
circuit breaker (`breaker.py`), checked before every request and every retry. Any reply the client cannot read
(a body that is not JSON, a completion of the wrong shape, anything the SDK raises on) makes that one item
`unscored`; it never escapes to the task, so the task's python items keep their scores.

Ensembles (`settings.models`, `settings.samples`) ask every (model, sample) pair and take the majority of the
decisive answers (a tie, or no decisive answer, is `unscored`); mode `human` reads people's verdicts through the
`human` callable instead of calling any model.

Items run concurrently on `max_concurrency` threads. `stats` counts HTTP calls, cache hits, retries, tokens and
cost (from the settings' price table; None for an unpriced model).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import openai

from agenticvbench.errors import MediaError
from agenticvbench.fsutil import file_sha256
from agenticvbench.judge import prompts
from agenticvbench.judge.breaker import CircuitBreaker, breaker_for, marker_dir_for
from agenticvbench.judge.cache import JudgeCache, cache_key, media_digest
from agenticvbench.judge.deadline import deadline_http_client
from agenticvbench.judge.frames import SampledVideo, audio_wav_bytes, sample_video
from agenticvbench.judge.retry import CallFailed as _CallFailed
from agenticvbench.judge.retry import short as _short
from agenticvbench.judge.retry import with_retries
from agenticvbench.judge.settings import JudgeSettings
from agenticvbench.judge.verdict import Outcome, parse_verdict


@dataclass(frozen=True)
class JudgeRequest:
    """One question: the rubric item's id and its (already filled) criterion text."""

    item_id: str
    prompt: str


@dataclass
class JudgeCall:
    """The judge's answer for one item, with what it cost."""

    item_id: str
    outcome: Outcome
    reason: str
    cached: bool = False
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    audio_included: bool = False
    raw: str = ""
    votes: list[dict[str, Any]] = field(default_factory=list)  # ensembles and human majority: every answer

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (for a result's detail)."""
        return asdict(self)


@dataclass
class JudgeStats:
    """Per-task judge accounting (thread-safe updates go through `VideoJudge._lock`)."""

    calls: int = 0  # chat-completion HTTP requests sent (retries included)
    cache_hits: int = 0
    cache_misses: int = 0
    retries: int = 0
    transcriptions: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0  # calls whose model has no price: cost_usd is then a lower bound
    unscored: int = 0
    json_mode: bool = True
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (for a result's extra)."""
        d = asdict(self)
        d["total_tokens"] = self.prompt_tokens + self.completion_tokens
        d["cost_usd"] = round(self.cost_usd, 8)
        return d


def _tokens(usage: Any, name: str) -> int:
    """A token count from a usage object, 0 when absent or not a sane integer (hostile payloads)."""
    value = getattr(usage, name, 0)
    return value if isinstance(value, int) and 0 <= value < 10**9 else 0


class VideoJudge:
    """Judges rubric items against one video (one instance per task)."""

    def __init__(self, settings: JudgeSettings, video: str | Path, *, cache: JudgeCache | None = None,
                 audio_facts: Callable[[], Mapping[str, Any] | None] | None = None,
                 client: openai.OpenAI | None = None, breaker: CircuitBreaker | None = None,
                 human: Callable[[str], tuple[Outcome, str, list[dict[str, Any]]]] | None = None,
                 task_id: int | None = None) -> None:
        self.settings = settings
        self.task_id = task_id
        self.video_sha256: str | None = None
        self.breaker = breaker or breaker_for(settings.run_id, marker_dir_for(cache.root.parent if cache else None),
                                              settings.breaker_threshold)
        self._human = human
        self.video = Path(video)
        self.cache = cache
        self.stats = JudgeStats()
        self._audio_facts = audio_facts
        self._client = client
        self._lock = threading.Lock()
        self._media_lock = threading.Lock()  # guards the digest and the sampled frames
        self._client_lock = threading.Lock()
        self._audio_lock = threading.Lock()
        self._digest: str | None = None
        self._sampled: SampledVideo | None = None
        self._audio_text: str | None = None
        self._dead: str | None = None

    # ---------------------------------------------------------------- public
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
            call = JudgeCall(request.item_id, "unscored", f"judge failed: {type(exc).__name__}: {_short(exc)}")
        if call.outcome == "unscored":
            with self._lock:
                self.stats.unscored += 1
        return call

    # --------------------------------------------------------------- helpers
    def _judge(self, request: JudgeRequest) -> JudgeCall:
        s = self.settings
        if s.mode == "off":
            return JudgeCall(request.item_id, "unscored", "judge off: no llm verdict requested")
        if s.mode == "human":
            if self._human is None:
                return JudgeCall(request.item_id, "unscored", "no human verdict: no verdict store available")
            outcome, reason, votes = self._human(request.item_id)
            return JudgeCall(request.item_id, outcome, reason, cached=True, votes=votes)
        if not s.is_ensemble:
            return self._one(request, s.model, 0)
        return self._vote(request, [self._one(request, m, i) for m in s.models for i in range(s.samples)])

    def _vote(self, request: JudgeRequest, calls: list[JudgeCall]) -> JudgeCall:
        """Majority of the decisive answers of an ensemble; a tie or no decisive answer is unscored."""
        s = self.settings
        pairs = [(m, i) for m in s.models for i in range(s.samples)]
        votes = [{"model": m, "sample": i, "outcome": c.outcome, "reason": c.reason[:300], "cached": c.cached}
                 for (m, i), c in zip(pairs, calls, strict=True)]
        n_pass = sum(c.outcome == "pass" for c in calls)
        n_fail = sum(c.outcome == "fail" for c in calls)
        tally = f"{n_pass} pass, {n_fail} fail, {len(calls) - n_pass - n_fail} unscored of {len(calls)} votes"
        if n_pass == n_fail:
            outcome: Outcome = "unscored"
            reason = f"ensemble {'tie' if n_pass else 'has no decisive vote'}: {tally}"
        else:
            outcome = "pass" if n_pass > n_fail else "fail"
            reason = f"ensemble majority {outcome} ({tally})"
        costs = [c.cost_usd for c in calls]
        return JudgeCall(request.item_id, outcome, reason, cached=all(c.cached for c in calls),
                         attempts=sum(c.attempts for c in calls), prompt_tokens=sum(c.prompt_tokens for c in calls),
                         completion_tokens=sum(c.completion_tokens for c in calls),
                         cost_usd=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
                         audio_included=any(c.audio_included for c in calls), votes=votes)

    def _one(self, request: JudgeRequest, model: str, sample: int) -> JudgeCall:
        """One (model, sample) answer: from the cache, else from the endpoint (cached when decisive)."""
        s = self.settings
        key_model = model if sample == 0 else f"{model}#sample{sample}"
        key = cache_key(key_model, prompts.PROMPT_TEMPLATE_VERSION, request.prompt, self._media_digest())
        hit = self.cache.get(key) if self.cache is not None else None
        with self._lock:
            if hit is not None:
                self.stats.cache_hits += 1
            else:
                self.stats.cache_misses += 1
        if hit is not None:
            return JudgeCall(request.item_id, hit["outcome"], str(hit.get("reason", "")), cached=True,
                             audio_included=bool(hit.get("audio_included", False)), raw=str(hit.get("raw", "")))
        if s.mode == "replay":
            return JudgeCall(request.item_id, "unscored",
                             f"replay miss: no cached verdict for item '{request.item_id}'")
        if self._dead is not None:
            return JudgeCall(request.item_id, "unscored", self._dead)
        tripped = self.breaker.open_reason()
        if tripped is not None:
            return JudgeCall(request.item_id, "unscored", tripped)
        try:
            call = self._ask(request, model, s.sample_temperature if sample else 0.0)
        except _CallFailed as exc:
            reason = f"judge unavailable: {exc}"
            if exc.fatal:
                with self._lock:
                    self._dead = self._dead or reason
            return JudgeCall(request.item_id, "unscored", reason)
        if call.outcome != "unscored" and self.cache is not None:
            self._store(key, request, call, key_model)
        return call

    def _store(self, key: str, request: JudgeRequest, call: JudgeCall, model: str) -> None:
        """Cache a decisive verdict; a failed write is noted, never fatal (the verdict still counts)."""
        try:
            self.cache.put(key, {  # type: ignore[union-attr]
                "item_id": request.item_id, "outcome": call.outcome, "reason": call.reason, "raw": call.raw,
                "model": model, "template_version": prompts.PROMPT_TEMPLATE_VERSION,
                "prompt_tokens": call.prompt_tokens, "completion_tokens": call.completion_tokens,
                "cost_usd": call.cost_usd, "audio_included": call.audio_included,
                "task_id": self.task_id, "video_sha256": self.video_sha256,
                "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            })
        except OSError as exc:
            self._note(f"verdict cache write failed ({_short(exc)})")

    def _media_digest(self) -> str:
        with self._media_lock:
            if self._digest is None:
                self.video_sha256 = file_sha256(self.video)
                self._digest = media_digest(self.video, self.settings.sampling_key(), self.video_sha256)
            return self._digest

    def _openai(self) -> openai.OpenAI:
        with self._client_lock:
            if self._client is None:
                s = self.settings
                self._client = openai.OpenAI(base_url=s.resolved_base_url, api_key=s.api_key() or "no-key",
                                             max_retries=0, timeout=s.timeout,
                                             http_client=deadline_http_client(s.timeout))
            return self._client

    def _frames(self) -> SampledVideo:
        with self._media_lock:
            if self._sampled is None:
                s = self.settings
                try:
                    self._sampled = sample_video(self.video, frame_rate=s.frame_rate, max_frames=s.max_frames,
                                                 max_side=s.max_side, quality=s.jpeg_quality)
                except MediaError as exc:
                    raise _CallFailed(f"cannot sample frames ({exc})", fatal=True) from None
            return self._sampled

    def _audio(self) -> str:
        """The audio block for sound items, computed once per video."""
        with self._audio_lock:
            if self._audio_text is None:
                facts: Mapping[str, Any] | None = None
                if self._audio_facts is not None:
                    try:
                        facts = self._audio_facts()
                    except Exception as exc:  # a measurement failure must not sink the verdict
                        self._note(f"audio facts unavailable: {_short(exc)}")
                transcript = None
                if self.settings.transcribe and not (facts is not None and facts.get("has_audio") is False):
                    transcript = self._transcribe()
                self._audio_text = prompts.describe_audio(facts, transcript)
            return self._audio_text

    def _transcribe(self) -> str | None:
        try:
            wav = audio_wav_bytes(self.video)
        except MediaError as exc:
            self._note(f"transcript unavailable: {exc}")
            return None

        def once() -> Any:
            with self._lock:
                self.stats.transcriptions += 1
            return self._openai().audio.transcriptions.create(
                model=self.settings.transcribe_model, file=("audio.wav", wav, "audio/wav"))

        try:
            result, _ = self._with_retries(once)
        except _CallFailed as exc:
            self._note(f"transcript unavailable: {exc}")
            return None
        return result if isinstance(result, str) else str(getattr(result, "text", "") or "")

    def _note(self, text: str) -> None:
        with self._lock:
            if text not in self.stats.notes:
                self.stats.notes.append(text)

    def _with_retries(self, fn: Callable[[], Any]) -> tuple[Any, int]:
        """Run `fn` with retries on transient errors; returns (result, attempts)."""
        return with_retries(fn, self.settings, self.breaker, on_retry=self._count_retry)

    def _count_retry(self) -> None:
        with self._lock:
            self.stats.retries += 1

    def _ask(self, request: JudgeRequest, model: str, temperature: float) -> JudgeCall:
        s = self.settings
        video = self._frames()
        about_sound = prompts.is_about_sound(request.prompt)
        audio_text = self._audio() if about_sound else None
        messages = prompts.build_messages(request.prompt, duration=video.duration, width=video.width,
                                          height=video.height, frames=video.frames, image_detail=s.image_detail,
                                          audio_text=audio_text)
        resp, attempts = self._with_retries(lambda: self._chat(messages, model, temperature))
        usage = getattr(resp, "usage", None)
        p_tok, c_tok = _tokens(usage, "prompt_tokens"), _tokens(usage, "completion_tokens")
        cost = s.cost_usd(p_tok, c_tok, model)
        with self._lock:
            self.stats.prompt_tokens += p_tok
            self.stats.completion_tokens += c_tok
            if cost is None:
                self.stats.unpriced_calls += 1
            else:
                self.stats.cost_usd += cost
        try:
            content = resp.choices[0].message.content
        except (AttributeError, IndexError, TypeError, KeyError):
            content = None
        if content is not None and not isinstance(content, str):
            return JudgeCall(request.item_id, "unscored", "unexpected reply: not a chat completion with text "
                             f"content ({type(resp).__name__})", attempts=attempts, prompt_tokens=p_tok,
                             completion_tokens=c_tok, cost_usd=cost, audio_included=about_sound)
        verdict = parse_verdict(content)
        return JudgeCall(request.item_id, verdict.outcome, verdict.reason, attempts=attempts, prompt_tokens=p_tok,
                         completion_tokens=c_tok, cost_usd=cost, audio_included=about_sound,
                         raw=(content or "")[:2000])

    def _chat(self, messages: list[dict], model: str, temperature: float) -> Any:
        s = self.settings
        kwargs: dict[str, Any] = {"model": model, "messages": messages, "temperature": temperature,
                                  "max_tokens": s.max_output_tokens}
        json_mode = self.stats.json_mode
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        with self._lock:
            self.stats.calls += 1
        try:
            return self._openai().chat.completions.create(**kwargs)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            if not json_mode:
                raise
            with self._lock:
                self.stats.json_mode = False
                self.stats.calls += 1
            self._note(f"endpoint rejected response_format=json_object ({_short(exc, 80)}); asked without it")
            kwargs.pop("response_format")
            return self._openai().chat.completions.create(**kwargs)
