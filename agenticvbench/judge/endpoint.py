"""The OpenAI-compatible endpoint as the judge sees it: one chat completion or one transcription, with retries.

`Endpoint` owns the `openai` client (created on first use, `max_retries=0`: retries are ours) and runs each
request (one SDK call) through `Endpoint.with_retries`, under `request_deadline(settings.timeout)`
(`deadline.py`):

- HTTP 408/409/429/5xx, timeouts and connection errors are retried `max_retries` times with exponential backoff
  (`backoff_s`, doubling, capped at `backoff_max_s`; a `Retry-After` header, when sent, replaces the delay);
- other 4xx are not retried; 401/403/404 are `fatal` (later requests would fail the same way);
- timeouts and connection errors count towards the run-wide breaker (`breaker.py`), any HTTP answer resets it,
  and an open breaker stops the loop before the next attempt;
- anything else the SDK or the payload raises (a body that is not JSON, a wrong shape) is a non-fatal failure of
  this request only.

If the endpoint rejects `response_format=json_object` (HTTP 400/422), it is dropped for the rest of the task.
Every failure is raised as `CallFailed`, never as the SDK's own exception; the counters go to the task's `Tally`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import openai

from agenticvbench.judge.breaker import CircuitBreaker
from agenticvbench.judge.calls import Tally
from agenticvbench.judge.deadline import deadline_http_client, request_deadline
from agenticvbench.judge.settings import JudgeSettings, url_host


class CallFailed(Exception):
    """A request failed for good; `fatal` means later requests would fail the same way."""

    def __init__(self, message: str, *, fatal: bool) -> None:
        super().__init__(message)
        self.fatal = fatal


def short(exc: BaseException, limit: int = 160) -> str:
    """An exception's text on one line, cut to `limit` characters."""
    text = " ".join(str(exc).split())
    return text[:limit] + ("..." if len(text) > limit else "")


def _retry_after(exc: openai.APIStatusError) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError):
        return None


class Endpoint:
    """One task's connection to the judge endpoint."""

    def __init__(
        self,
        settings: JudgeSettings,
        breaker: CircuitBreaker,
        tally: Tally,
        client: openai.OpenAI | None = None,
        *,
        base_url: str | None = None,
    ) -> None:
        self.settings = settings
        self.base_url = settings.resolve_url(
            base_url
        )  # the endpoint's full URL (never recorded: may hold a token)
        self.host = url_host(self.base_url)
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
                    base_url=self.base_url,
                    api_key=s.api_key() or "no-key",
                    max_retries=0,
                    timeout=s.timeout,
                    http_client=deadline_http_client(s.timeout),
                )
            return self._client

    def with_retries(self, fn: Callable[[], Any]) -> tuple[Any, int]:
        """Run `fn` (one SDK call) with the deadline, retries and breaker (module docstring); returns (result,
        attempts)."""
        s, breaker = self.settings, self.breaker
        attempt = 0
        while True:
            attempt += 1
            wait: float | None = None
            tripped = breaker.open_reason()
            if tripped is not None:
                raise CallFailed(tripped, fatal=True)
            try:
                with request_deadline(s.timeout):
                    result = fn()
                breaker.success()
                return result, attempt
            except openai.APIStatusError as exc:
                breaker.success()  # the endpoint answered: not a dead-endpoint failure
                status = exc.status_code
                if not (status in (408, 409, 429) or status >= 500):
                    raise CallFailed(
                        f"HTTP {status}: {short(exc)}", fatal=status in (401, 403, 404)
                    ) from None
                last, fatal, wait = f"HTTP {status}: {short(exc)}", False, _retry_after(exc)
            except openai.APITimeoutError:
                last, fatal = f"no complete answer within the {s.timeout:g} s request deadline", False
                breaker.failure(last)
            except openai.APIConnectionError as exc:
                cause = exc.__cause__ or exc.__context__
                last, fatal = f"cannot connect to {self.host} ({short(cause or exc)})", True
                breaker.failure(last)
            except openai.OpenAIError as exc:  # e.g. a response the SDK cannot validate: not transient
                raise CallFailed(f"{type(exc).__name__}: {short(exc)}", fatal=False) from None
            except Exception as exc:  # a body that is not JSON, a wrong shape...: this request only
                raise CallFailed(
                    f"unexpected reply ({type(exc).__name__}: {short(exc)})", fatal=False
                ) from None
            if attempt > s.max_retries:
                raise CallFailed(f"{last}; gave up after {attempt} attempt(s)", fatal=fatal)
            delay = s.backoff_s * 2 ** (attempt - 1) if wait is None else max(0.0, wait)
            self._tally.add(retries=1)
            time.sleep(min(s.backoff_max_s, delay))

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
