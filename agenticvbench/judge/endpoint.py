"""The OpenAI-compatible endpoint as the judge sees it: one chat completion or one transcription, with retries.

`Endpoint` owns the `openai` client (created on first use, `max_retries=0`: retries are ours), the wall-clock
deadline of each request (`deadline.py`), the retry loop and the run-wide breaker (`retry.py`, `breaker.py`), and
the `response_format=json_object` fallback: if the endpoint rejects it (HTTP 400/422), it is dropped for the rest
of the task. Every failure is raised as `retry.CallFailed`; the counters go to the task's `Tally`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import openai

from agenticvbench.judge.breaker import CircuitBreaker
from agenticvbench.judge.calls import Tally
from agenticvbench.judge.deadline import deadline_http_client
from agenticvbench.judge.retry import short, with_retries
from agenticvbench.judge.settings import JudgeSettings


class Endpoint:
    """One task's connection to the judge endpoint."""

    def __init__(
        self,
        settings: JudgeSettings,
        breaker: CircuitBreaker,
        tally: Tally,
        client: openai.OpenAI | None = None,
    ) -> None:
        self.settings = settings
        self.breaker = breaker
        self._tally = tally
        self._client = client
        self._client_lock = threading.Lock()

    def client(self) -> openai.OpenAI:
        """The SDK client (created once, with the deadline-enforcing HTTP client)."""
        with self._client_lock:
            if self._client is None:
                s = self.settings
                self._client = openai.OpenAI(
                    base_url=s.resolved_base_url,
                    api_key=s.api_key() or "no-key",
                    max_retries=0,
                    timeout=s.timeout,
                    http_client=deadline_http_client(s.timeout),
                )
            return self._client

    def with_retries(self, fn: Callable[[], Any]) -> tuple[Any, int]:
        """Run `fn` (one SDK call) with the deadline, retries and breaker; returns (result, attempts)."""
        return with_retries(fn, self.settings, self.breaker, on_retry=lambda: self._tally.add(retries=1))

    def chat(self, messages: list[dict], model: str, temperature: float) -> tuple[Any, int]:
        """One chat completion (retried on transient errors); returns (response, attempts)."""
        return self.with_retries(lambda: self._chat_once(messages, model, temperature))

    def transcribe(self, wav: bytes) -> str:
        """The transcript of a WAV file (retried on transient errors)."""

        def once() -> Any:
            self._tally.add(transcriptions=1)
            return self.client().audio.transcriptions.create(
                model=self.settings.transcribe_model, file=("audio.wav", wav, "audio/wav")
            )

        result, _ = self.with_retries(once)
        return result if isinstance(result, str) else str(getattr(result, "text", "") or "")

    def _chat_once(self, messages: list[dict], model: str, temperature: float) -> Any:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": s.max_output_tokens,
        }
        json_mode = self._tally.stats.json_mode
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        self._tally.add(calls=1)
        try:
            return self.client().chat.completions.create(**kwargs)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            if not json_mode:
                raise
            self._tally.drop_json_mode()
            self._tally.add(calls=1)
            self._tally.note(
                f"endpoint rejected response_format=json_object ({short(exc, 80)}); asked without it"
            )
            kwargs.pop("response_format")
            return self.client().chat.completions.create(**kwargs)
