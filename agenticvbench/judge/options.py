"""The recap judge's command-line options (`verify`, `demo`, `score recap`, `baselines`) and the settings they
resolve to, through `JudgeSettings.from_env` (the one resolver)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from agenticvbench.judge.config import load_config
from agenticvbench.judge.profiles import PROFILE_NAMES
from agenticvbench.judge.settings import JUDGE_MODES, JudgeSettings


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
        "--judge-profile",
        choices=PROFILE_NAMES,
        default=None,
        help="prompt contract: legacy (every item asked as a criterion) or violation (negative-weight items "
        "asked whether the violation is present; ambiguous declines the penalty) (default: $AVB_JUDGE_PROFILE "
        "or legacy)",
    )
    p.add_argument(
        "--judge-audio-model",
        default=None,
        help="model for items that need audio (audio, audio-visual, video); default: --judge-model",
    )
    p.add_argument(
        "--judge-audio-base-url",
        default=None,
        help="endpoint for items that need audio (default: --judge-base-url)",
    )
    p.add_argument(
        "--judge-config",
        default=None,
        metavar="FILE",
        help="judge config file (TOML or JSON): settings and a model/endpoint per modality "
        "(default: $AVB_JUDGE_CONFIG); options and $AVB_JUDGE_* override it",
    )
    p.add_argument(
        "--graders",
        type=_csv,
        default=None,
        help="--judge human: comma list of graders whose verdicts count (default: all)",
    )


def settings_from_args(args: argparse.Namespace) -> JudgeSettings:
    """`JudgeSettings` from the judge options (ValueError for an invalid setting)."""
    config = getattr(args, "judge_config", None) or os.environ.get("AVB_JUDGE_CONFIG") or None
    from_file = load_config(config) if config else {}
    # off when no endpoint is configured (by option, environment or config file)
    mode = (
        args.judge
        or os.environ.get("AVB_JUDGE_MODE")
        or from_file.get("mode")
        or JudgeSettings.auto_mode(args.judge_base_url or from_file.get("base_url"))
    )
    settings = JudgeSettings.from_env(
        config=config,
        mode=mode,
        model=args.judge_model,
        base_url=args.judge_base_url,
        max_frames=args.judge_frames,
        frame_rate=args.judge_fps,
        timeout=args.judge_timeout,
        max_retries=args.judge_retries,
        samples=args.judge_samples,
        graders=args.graders,
        profile=getattr(args, "judge_profile", None),
        audio_model=getattr(args, "judge_audio_model", None),
        audio_base_url=getattr(args, "judge_audio_base_url", None),
    )
    if settings.mode == "human":
        from agenticvbench.dataset.loader import default_cache_dir
        from agenticvbench.judge.human_store import grades_digest

        cache_dir = getattr(args, "cache_dir", None)
        root = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
        settings = settings.with_(grades_digest=grades_digest(root / "grades", settings.graders))
    return settings
