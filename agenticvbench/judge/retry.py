"""One judge request with retries, the wall-clock deadline and the run-wide circuit breaker.

`with_retries(fn, settings, breaker)` runs `fn` (one SDK call) under `request_deadline(settings.timeout)`:

- HTTP 408/409/429/5xx, timeouts and connection errors are retried `max_retries` times with exponential backoff
  (`backoff_s`, doubling, capped at `backoff_max_s`; a `Retry-After` header, when sent, replaces the delay);
- other 4xx are not retried; 401/403/404 are `fatal` (later requests would fail the same way);
- timeouts and connection errors count towards the breaker, any HTTP answer resets it, and an open breaker stops
  the loop before the next attempt;
- anything else the SDK or the payload raises (a body that is not JSON, a wrong shape) is a non-fatal failure of
  this request only.

Every failure is raised as `CallFailed`, never as the SDK's own exception.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import openai

from agenticvbench.judge.breaker import CircuitBreaker
from agenticvbench.judge.deadline import request_deadline
from agenticvbench.judge.settings import JudgeSettings


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


def with_retries(
    fn: Callable[[], Any],
    s: JudgeSettings,
    breaker: CircuitBreaker,
    on_retry: Callable[[], None] | None = None,
) -> tuple[Any, int]:
    """Run `fn` with the deadline, retries and breaker described above; returns (result, attempts)."""
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
                raise CallFailed(f"HTTP {status}: {short(exc)}", fatal=status in (401, 403, 404)) from None
            last, fatal, wait = f"HTTP {status}: {short(exc)}", False, _retry_after(exc)
        except openai.APITimeoutError:
            last, fatal = f"no complete answer within the {s.timeout:g} s request deadline", False
            breaker.failure(last)
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc.__context__
            last, fatal = f"cannot connect to {s.base_url_host} ({short(cause or exc)})", True
            breaker.failure(last)
        except openai.OpenAIError as exc:  # e.g. a response the SDK cannot validate: not transient
            raise CallFailed(f"{type(exc).__name__}: {short(exc)}", fatal=False) from None
        except Exception as exc:  # a body that is not JSON, a wrong shape...: this request only
            raise CallFailed(f"unexpected reply ({type(exc).__name__}: {short(exc)})", fatal=False) from None
        if attempt > s.max_retries:
            raise CallFailed(f"{last}; gave up after {attempt} attempt(s)", fatal=fatal)
        delay = min(s.backoff_max_s, s.backoff_s * 2 ** (attempt - 1))
        if wait is not None:
            delay = min(s.backoff_max_s, max(0.0, wait))
        if on_retry is not None:
            on_retry()
        time.sleep(delay)
