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

import os
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from agenticvbench.judge.config import AUDIO_FORMATS, AUDIO_STYLES, load_config, with_audio_judge
from agenticvbench.judge.profiles import get_profile
from agenticvbench.judge.routing import MODALITIES

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
    profile: str = "legacy"  # the prompt contract (`profiles.PROFILES`): legacy | violation
    # per modality (visual | audio | audio_visual | video): {"model": ..., "base_url": ...}; unset: model/base_url
    modality_judges: dict[str, dict[str, str]] = field(default_factory=dict)
    audio_format: str = "mp3"  # the audio part's encoding: mp3 (bitrate-capped) or wav (16-bit PCM)
    audio_bitrate_kbps: int = 32  # mp3 bitrate cap (mono)
    audio_sample_rate: int = 16000
    audio_max_s: float = 60.0  # longest audio sent (the item's time range when it names one)
    audio_style: str = (
        "auto"  # input_audio (OpenAI) | audio_url (vLLM) | auto: the first the endpoint accepts
    )
    max_audio_bytes: int = 4_000_000  # inline size cap of one audio part
    video_max_bytes: int = 8_000_000  # the endpoint's limit for one inline video part
    video_max_s: float = 120.0
    video_fps: float = 4.0  # video parts are re-encoded at this rate, `max_side`, mono audio
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
        _check_media(self)

    @property
    def models(self) -> tuple[str, ...]:
        """The judge models (`model` split on commas): one model, or an ensemble."""
        return tuple(m.strip() for m in self.model.split(",") if m.strip())

    @property
    def is_ensemble(self) -> bool:
        """True when several models or several samples vote on each item."""
        return len(self.models) > 1 or self.samples > 1

    @classmethod
    def from_env(cls, *, config: str | Path | None = None, **overrides: Any) -> JudgeSettings:
        """The one resolver: defaults, then the judge config file (`config`, else `$AVB_JUDGE_CONFIG`; see
        `config.load_config`), then `$AVB_JUDGE_MODE`, `$AVB_JUDGE_MODEL`, `$AVB_JUDGE_BASE_URL`,
        `$AVB_JUDGE_PROFILE`, `$AVB_JUDGE_TIMEOUT`, `$AVB_JUDGE_RETRIES`, then non-None overrides. An
        `audio_model` / `audio_base_url` override fills the modalities that carry audio (audio, audio_visual,
        video) the config file does not set. A non-numeric timeout/retries variable is a ValueError."""
        path = config or os.environ.get("AVB_JUDGE_CONFIG")
        env: dict[str, Any] = load_config(path) if path else {}
        for key, var, conv in (
            ("mode", "AVB_JUDGE_MODE", str),
            ("model", "AVB_JUDGE_MODEL", str),
            ("base_url", "AVB_JUDGE_BASE_URL", str),
            ("profile", "AVB_JUDGE_PROFILE", str),
            ("timeout", "AVB_JUDGE_TIMEOUT", float),
            ("max_retries", "AVB_JUDGE_RETRIES", int),
        ):
            if os.environ.get(var):
                try:
                    env[key] = conv(os.environ[var])
                except ValueError:
                    raise ValueError(f"${var} must be a number, got {os.environ[var]!r}") from None
        audio_model, audio_base_url = (
            overrides.pop("audio_model", None),
            overrides.pop("audio_base_url", None),
        )
        env.update({k: v for k, v in overrides.items() if v is not None})
        env["modality_judges"] = with_audio_judge(
            env.get("modality_judges") or {}, audio_model, audio_base_url
        )
        return cls(**env)

    def judge_for(self, modality: str) -> tuple[tuple[str, ...], str | None]:
        """The models and endpoint (None: the default one) that judge `modality`: its `modality_judges` entry,
        else `model` and `base_url`."""
        entry = self.modality_judges.get(modality) or {}
        model = entry.get("model") or self.model
        return tuple(m.strip() for m in model.split(",") if m.strip()), entry.get("base_url") or self.base_url

    def media_key(self, kind: str) -> dict[str, Any]:
        """The settings that change what the model hears or sees through a part of `kind` (image | audio |
        video): part of the cache key of every item that sends such a part."""
        if kind == "image":
            return self.sampling_key()
        audio = {
            "format": self.audio_format,
            "bitrate_kbps": int(self.audio_bitrate_kbps) if self.audio_format == "mp3" else None,
            "sample_rate": int(self.audio_sample_rate),
            "max_s": float(self.audio_max_s),
            "max_bytes": int(self.max_audio_bytes),
        }
        if kind == "audio":
            return audio
        return {
            "fps": float(self.video_fps),
            "max_side": int(self.max_side),
            "max_s": float(self.video_max_s),
            "max_bytes": int(self.video_max_bytes),
            "audio": audio,
        }

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
        return url_host(self.resolved_base_url)

    def resolve_url(self, base_url: str | None) -> str:
        """An endpoint as used: `base_url`, else the default one (`resolved_base_url`)."""
        return base_url or self.resolved_base_url

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
            "judge_profile": self.profile,
            "judge_media": {"audio": self.media_key("audio"), "video": self.media_key("video")},
        }
        if self.modality_judges:
            prov["judge_modalities"] = {
                m: {
                    "model": e.get("model"),
                    "base_url_host": url_host(e["base_url"]) if e.get("base_url") else None,
                }
                for m, e in sorted(self.modality_judges.items())
            }
        if self.is_ensemble:
            prov["judge_ensemble"] = {
                "models": list(self.models),
                "samples": self.samples,
                "sample_temperature": self.sample_temperature,
                "vote": "majority, tie unscored",
            }
        return prov


def _check_media(s: JudgeSettings) -> None:
    """Validate the profile, modality and media settings (ValueError naming the bad one)."""
    get_profile(s.profile)
    if s.audio_format not in AUDIO_FORMATS:
        raise ValueError(
            f"judge audio_format must be one of {', '.join(AUDIO_FORMATS)}, got {s.audio_format!r}"
        )
    if s.audio_style not in AUDIO_STYLES:
        raise ValueError(f"judge audio_style must be one of {', '.join(AUDIO_STYLES)}, got {s.audio_style!r}")
    if s.audio_bitrate_kbps < 8 or s.audio_sample_rate < 8000 or not (s.audio_max_s > 0):
        raise ValueError("judge audio needs bitrate_kbps >= 8, sample_rate >= 8000 and max_s > 0")
    if s.max_audio_bytes < 1024 or s.video_max_bytes < 1024 or not (s.video_max_s > 0 and s.video_fps > 0):
        raise ValueError("judge media caps need max bytes >= 1024 and video max_s, fps > 0")
    unknown = set(s.modality_judges) - set(MODALITIES)
    if unknown:
        raise ValueError(f"unknown judge modality {sorted(unknown)[0]!r} (known: {', '.join(MODALITIES)})")


def url_host(url: str) -> str:
    """Host (and port) of `url`, never its user info or path."""
    u = urlparse(url)
    if not u.hostname:
        return "(unparsed endpoint)"
    return u.hostname + (f":{u.port}" if u.port else "")


def judge_provenance(settings: JudgeSettings | None) -> dict[str, Any]:
    """The judge provenance of a result: `OFF_PROVENANCE` for no judge (None) or mode `off`, else the settings'."""
    return settings.provenance() if settings is not None else dict(OFF_PROVENANCE)
