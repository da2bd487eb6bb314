"""How the LLM judge is configured: endpoint, model, frame sampling, retries, concurrency and prices.

One `JudgeSettings` travels in `VerifyContext.judge` (None there means mode `off`). Modes:

- `cache` (default): use a cached verdict when there is one, otherwise call the endpoint and store the verdict;
- `replay`: cached verdicts only; a miss leaves the item `unscored` with a reason naming it (no network at all);
- `off`: no judge; every llm item (and every compound item that reaches its llm stage) is `unscored`;
- `human`: verdicts stored by people with `avb grade` (majority across `graders`; a tie or no verdict is
  `unscored`), no model at all.

Ensembles: `model` may be a comma list (`"a,b,c"`) and `samples` > 1 asks each model that many times; the item's
verdict is the majority of the decisive answers (a tie is `unscored`). Each (model, sample) answer is cached on
its own. With `samples` > 1 the calls use `sample_temperature` (repeating a temperature-0 call would not
measure any variance); the first sample of each model keeps temperature 0 and the plain cache key, so an
ensemble reuses earlier single-judge verdicts.

Robustness: `timeout` is a wall-clock deadline per HTTP request (`deadline.py`), `max_retries` bounds the retries
of one request, and `breaker_threshold` consecutive timeouts or connection failures open the run-wide circuit
breaker (`breaker.py`; 0 disables it). `run_id` names the run for the breaker (random per settings object).

The settings that change what the model sees (frame rate and count, downscale, JPEG quality, image detail,
transcription) are part of the cache key through `sampling_key()`; the others (retries, timeout, concurrency,
prices) are not, because they cannot change a verdict.
"""

from __future__ import annotations

import argparse
import os
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

JudgeMode = Literal["cache", "replay", "off", "human"]
JUDGE_MODES: tuple[str, ...] = ("cache", "replay", "off", "human")
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: What a result records when no judge runs: the same whether the judge is `None` (the Python API's default) or
#: `JudgeSettings(mode="off")` (the CLI's), so both entry points fingerprint and compare the same way.
OFF_PROVENANCE: dict[str, Any] = {"judge_mode": "off", "judge_model": None, "judge_base_url_host": None}

#: USD per 1M (input, output) tokens for a few common judge models (public list prices, 2025). A model that is not
#: listed gets cost None ("unknown"), never a guess. Override with `JudgeSettings(prices={...})`.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1": (2.00, 8.00),
}


@dataclass(kw_only=True, frozen=True)
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
    max_retries: int = (
        3  # retries after the first attempt, on 408/409/429/5xx, timeouts and connection errors
    )
    backoff_s: float = 1.0  # first retry delay; doubles each retry, capped at `backoff_max_s`
    backoff_max_s: float = 30.0
    timeout: float = 120.0  # wall-clock seconds per HTTP request (connect + send + the whole answer)
    max_output_tokens: int = 300
    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    breaker_threshold: int = 3  # consecutive timeouts/connection failures that stop the judge for the run
    samples: int = 1  # calls per item and model (majority)
    sample_temperature: float = 0.7  # temperature of samples 2..N
    graders: tuple[str, ...] = ()  # mode human: whose verdicts count (empty: every grader on record)
    grades_digest: str | None = None  # mode human: digest of the verdict files (a new verdict rescores)
    run_id: str = field(default_factory=lambda: secrets.token_hex(8), compare=False)

    def __post_init__(self) -> None:
        if self.mode not in JUDGE_MODES:
            raise ValueError(f"judge mode must be one of {', '.join(JUDGE_MODES)}, got {self.mode!r}")
        if self.frame_rate <= 0 or self.max_frames < 1 or self.max_side < 16:
            raise ValueError("judge sampling needs frame_rate > 0, max_frames >= 1 and max_side >= 16")
        if self.max_concurrency < 1 or self.max_retries < 0:
            raise ValueError("judge needs max_concurrency >= 1 and max_retries >= 0")
        if not (self.timeout > 0) or self.samples < 1 or self.breaker_threshold < 0:
            raise ValueError("judge needs timeout > 0, samples >= 1 and breaker_threshold >= 0")
        if not self.models:
            raise ValueError("judge model list is empty")

    @property
    def models(self) -> tuple[str, ...]:
        """The judge models (`model` split on commas): one model, or an ensemble."""
        return tuple(m.strip() for m in self.model.split(",") if m.strip())

    @property
    def is_ensemble(self) -> bool:
        """True when several models or several samples vote on each item."""
        return len(self.models) > 1 or self.samples > 1

    @classmethod
    def from_env(cls, **overrides: Any) -> JudgeSettings:
        """Defaults, then `$AVB_JUDGE_MODE`, `$AVB_JUDGE_MODEL`, `$AVB_JUDGE_BASE_URL`, `$AVB_JUDGE_TIMEOUT`,
        `$AVB_JUDGE_RETRIES`, then non-None overrides. A non-numeric timeout/retries variable is a ValueError."""
        env: dict[str, Any] = {}
        for key, var, conv in (
            ("mode", "AVB_JUDGE_MODE", str),
            ("model", "AVB_JUDGE_MODEL", str),
            ("base_url", "AVB_JUDGE_BASE_URL", str),
            ("timeout", "AVB_JUDGE_TIMEOUT", float),
            ("max_retries", "AVB_JUDGE_RETRIES", int),
        ):
            if os.environ.get(var):
                try:
                    env[key] = conv(os.environ[var])
                except ValueError:
                    raise ValueError(f"${var} must be a number, got {os.environ[var]!r}") from None
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
            "frame_rate": float(self.frame_rate),
            "max_frames": int(self.max_frames),
            "max_side": int(self.max_side),
            "jpeg_quality": int(self.jpeg_quality),
            "image_detail": self.image_detail,
            "transcribe": bool(self.transcribe),
            "transcribe_model": self.transcribe_model if self.transcribe else None,
        }

    def unconfigured_note(self) -> str | None:
        """A one-line warning when mode `cache` would call the default OpenAI endpoint with no API key (every call
        would fail and each llm item end `unscored`); None when a key or an explicit endpoint is set."""
        if self.mode != "cache" or self.api_key() or self.base_url or os.environ.get("OPENAI_BASE_URL"):
            return None
        return (
            f"judge: no ${self.api_key_env} and no --judge-base-url: calls to {DEFAULT_BASE_URL} will fail, so "
            f"llm items will be unscored (set a key or an endpoint, or pass --judge off)"
        )

    def cost_usd(self, prompt_tokens: int, completion_tokens: int, model: str | None = None) -> float | None:
        """Cost of one call of `model` (default: `model`) from the price table; None when it has no listed price."""
        price = self.prices.get(model or self.model)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6

    def provenance(self) -> dict[str, Any]:
        """What a result records about the judge (no key, no full URL); mode `off` records no model or endpoint,
        exactly as `judge_provenance(None)`."""
        if self.mode == "off":
            return dict(OFF_PROVENANCE)
        if self.mode == "human":
            return {
                "judge_mode": "human",
                "judge_model": None,
                "judge_base_url_host": None,
                "judge_graders": list(self.graders) or "all",
                "judge_grades_digest": self.grades_digest,
            }
        prov: dict[str, Any] = {
            "judge_mode": self.mode,
            "judge_model": self.model,
            "judge_base_url_host": self.base_url_host,
            "judge_sampling": self.sampling_key(),
        }
        if self.is_ensemble:
            prov["judge_ensemble"] = {
                "models": list(self.models),
                "samples": self.samples,
                "sample_temperature": self.sample_temperature,
                "vote": "majority, tie unscored",
            }
        return prov


def judge_provenance(settings: JudgeSettings | None) -> dict[str, Any]:
    """The judge provenance of a result: `OFF_PROVENANCE` for no judge (None) or mode `off`, else the settings'."""
    return settings.provenance() if settings is not None else dict(OFF_PROVENANCE)


def _csv(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",") if p.strip())


def add_judge_args(p: argparse.ArgumentParser) -> None:
    """The recap judge options shared by `verify`, `demo` and `score recap`."""
    p.add_argument(
        "--judge",
        choices=JUDGE_MODES,
        default=None,
        help="cache: use and fill the verdict cache; replay: cache only, no network; off: no judge; "
        "human: verdicts stored with `avb grade` (default: $AVB_JUDGE_MODE, else cache when an API "
        "key or endpoint is configured, else off)",
    )
    p.add_argument(
        "--judge-model",
        default=None,
        help="judge model, or a comma list for an ensemble (default: $AVB_JUDGE_MODEL or gpt-4o-mini)",
    )
    p.add_argument(
        "--judge-base-url",
        default=None,
        help="OpenAI-compatible endpoint (default: $AVB_JUDGE_BASE_URL, $OPENAI_BASE_URL, OpenAI)",
    )
    p.add_argument(
        "--judge-frames", type=int, default=None, help="maximum frames shown to the judge (default 16)"
    )
    p.add_argument(
        "--judge-fps", type=float, default=None, help="frames sampled per second of video (default 1)"
    )
    p.add_argument(
        "--judge-timeout",
        type=float,
        default=None,
        help="wall-clock seconds per judge request (default: $AVB_JUDGE_TIMEOUT or 120)",
    )
    p.add_argument(
        "--judge-retries",
        type=int,
        default=None,
        help="retries of a failed judge request (default: $AVB_JUDGE_RETRIES or 3)",
    )
    p.add_argument(
        "--judge-samples",
        type=int,
        default=None,
        help="calls per item and model, majority vote; a tie is unscored (default 1)",
    )
    p.add_argument(
        "--graders",
        type=_csv,
        default=None,
        help="--judge human: comma list of graders whose verdicts count (default: all)",
    )


def settings_from_args(args: argparse.Namespace) -> JudgeSettings:
    """`JudgeSettings` from the judge options (ValueError for an invalid setting)."""
    mode = args.judge or JudgeSettings.auto_mode(args.judge_base_url)  # off when no endpoint is configured
    settings = JudgeSettings.from_env(
        mode=mode,
        model=args.judge_model,
        base_url=args.judge_base_url,
        max_frames=args.judge_frames,
        frame_rate=args.judge_fps,
        timeout=args.judge_timeout,
        max_retries=args.judge_retries,
        samples=args.judge_samples,
        graders=args.graders,
    )
    if settings.mode == "human":
        from agenticvbench.dataset.loader import default_cache_dir
        from agenticvbench.judge.human_store import grades_digest

        cache_dir = getattr(args, "cache_dir", None)
        root = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
        settings = settings.with_(grades_digest=grades_digest(root / "grades", settings.graders))
    return settings
