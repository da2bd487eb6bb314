"""How the LLM judge is configured: endpoint, model, frame sampling, retries, concurrency and prices.

One `JudgeSettings` travels in `VerifyContext.judge` (None there means mode `off`). Modes:

- `cache` (default): use a cached verdict when there is one, otherwise call the endpoint and store the verdict;
- `replay`: cached verdicts only; a miss leaves the item `unscored` with a reason naming it (no network at all);
- `off`: no judge; every llm item (and every compound item that reaches its llm stage) is `unscored`.

The settings that change what the model sees (frame rate and count, downscale, JPEG quality, image detail,
transcription) are part of the cache key through `sampling_key()`; the others (retries, timeout, concurrency,
prices) are not, because they cannot change a verdict.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any, Literal
from urllib.parse import urlparse

JudgeMode = Literal["cache", "replay", "off"]
JUDGE_MODES: tuple[str, ...] = ("cache", "replay", "off")
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: USD per 1M (input, output) tokens for a few common judge models (public list prices, 2025). A model that is not
#: listed gets cost None ("unknown"), never a guess. Override with `JudgeSettings(prices={...})`.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1": (2.00, 8.00),
}


@dataclass(frozen=True)
class JudgeSettings:
    """Everything the judge client needs; immutable so one instance can be shared by worker threads."""

    mode: JudgeMode = "cache"
    model: str = DEFAULT_MODEL
    base_url: str | None = None  # None: $OPENAI_BASE_URL, else the OpenAI API
    api_key_env: str = "OPENAI_API_KEY"
    frame_rate: float = 1.0  # sampled frames per second of video ...
    max_frames: int = 16  # ... but never more than this many, spread evenly over the whole video
    max_side: int = 512  # frames are downscaled so their longer side is at most this (pixels)
    jpeg_quality: int = 85
    image_detail: str = "low"  # the OpenAI `detail` hint for each frame
    transcribe: bool = False  # sound items: add a transcript from the endpoint's audio transcription API
    transcribe_model: str = "whisper-1"
    max_concurrency: int = 4
    max_retries: int = 3  # retries after the first attempt, on 408/409/429/5xx, timeouts and connection errors
    backoff_s: float = 1.0  # first retry delay; doubles each retry, capped at `backoff_max_s`
    backoff_max_s: float = 30.0
    timeout: float = 120.0  # seconds per HTTP request
    max_output_tokens: int = 300
    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))

    def __post_init__(self) -> None:
        if self.mode not in JUDGE_MODES:
            raise ValueError(f"judge mode must be one of {', '.join(JUDGE_MODES)}, got {self.mode!r}")
        if self.frame_rate <= 0 or self.max_frames < 1 or self.max_side < 16:
            raise ValueError("judge sampling needs frame_rate > 0, max_frames >= 1 and max_side >= 16")
        if self.max_concurrency < 1 or self.max_retries < 0:
            raise ValueError("judge needs max_concurrency >= 1 and max_retries >= 0")

    @classmethod
    def from_env(cls, **overrides: Any) -> JudgeSettings:
        """Defaults, then `$AVB_JUDGE_MODE`, `$AVB_JUDGE_MODEL`, `$AVB_JUDGE_BASE_URL`, then non-None overrides."""
        env: dict[str, Any] = {}
        for key, var in (("mode", "AVB_JUDGE_MODE"), ("model", "AVB_JUDGE_MODEL"), ("base_url", "AVB_JUDGE_BASE_URL")):
            if os.environ.get(var):
                env[key] = os.environ[var]
        env.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**env)

    @staticmethod
    def auto_mode(base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY") -> JudgeMode:
        """The mode to use when none is given: `$AVB_JUDGE_MODE` if set; else `cache` when an endpoint is usable
        (an API key in the environment, or an explicit endpoint: local servers often need no key); else `off`,
        so a machine with no judge configured reports `unscored` items at once instead of failing every call."""
        env_mode = os.environ.get("AVB_JUDGE_MODE")
        if env_mode:
            return env_mode  # type: ignore[return-value]  # validated by __post_init__
        configured = base_url or os.environ.get("AVB_JUDGE_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
        return "cache" if os.environ.get(api_key_env) or configured else "off"

    def with_(self, **changes: Any) -> JudgeSettings:
        """A copy with some fields changed."""
        return replace(self, **changes)

    @property
    def resolved_base_url(self) -> str:
        """The endpoint actually used: `base_url`, else `$OPENAI_BASE_URL`, else the OpenAI API."""
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL

    @property
    def base_url_host(self) -> str:
        """Host (and port) of the endpoint, for provenance; never the full URL or user info (may carry a token)."""
        u = urlparse(self.resolved_base_url)
        if not u.hostname:
            return "(unparsed endpoint)"
        return u.hostname + (f":{u.port}" if u.port else "")

    def api_key(self) -> str | None:
        """The API key from `$<api_key_env>` (None when unset: local endpoints often need none)."""
        return os.environ.get(self.api_key_env) or None

    def sampling_key(self) -> dict[str, Any]:
        """The settings that change what the model is shown (part of every cache key)."""
        return {
            "frame_rate": float(self.frame_rate), "max_frames": int(self.max_frames), "max_side": int(self.max_side),
            "jpeg_quality": int(self.jpeg_quality), "image_detail": self.image_detail,
            "transcribe": bool(self.transcribe), "transcribe_model": self.transcribe_model if self.transcribe else None,
        }

    def cost_usd(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """Cost of one call from the price table; None when the model has no listed price."""
        price = self.prices.get(self.model)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6

    def provenance(self) -> dict[str, Any]:
        """What a result records about the judge (no key, no full URL)."""
        return {"judge_mode": self.mode, "judge_model": self.model, "judge_base_url_host": self.base_url_host,
                "judge_sampling": self.sampling_key()}
