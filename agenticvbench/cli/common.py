"""Options shared by several commands (dataset selection) and output helpers."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agenticvbench.errors import ConfigError
from agenticvbench.loader import DEFAULT_DATASET


def add_dataset_args(p: argparse.ArgumentParser) -> None:
    """`--dataset`, `--revision`, `--cache-dir`."""
    p.add_argument("--dataset", default=DEFAULT_DATASET,
                   help="Hub dataset id, local mirror directory, or parquet path (default: %(default)s)")
    p.add_argument("--revision", default=None, help="dataset revision (branch, tag or commit sha)")
    p.add_argument("--cache-dir", default=None, help="cache folder (default: $AVB_CACHE, else the user cache folder, e.g. $XDG_CACHE_HOME/agenticvbench)")


def print_json(obj: Any) -> None:
    """Print indented JSON to stdout."""
    json.dump(obj, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")


def add_judge_args(p: argparse.ArgumentParser) -> None:
    """The recap judge options shared by `verify`, `demo` and `score recap`."""
    p.add_argument("--judge", choices=("cache", "replay", "off"), default=None,
                   help="cache: use and fill the verdict cache; replay: cache only; off: no LLM judge (default: "
                        "$AVB_JUDGE_MODE, else cache when an API key or endpoint is configured, else off)")
    p.add_argument("--judge-model", default=None, help="judge model name (default: $AVB_JUDGE_MODEL or gpt-4o-mini)")
    p.add_argument("--judge-base-url", default=None,
                   help="OpenAI-compatible endpoint (default: $AVB_JUDGE_BASE_URL, $OPENAI_BASE_URL, OpenAI)")
    p.add_argument("--judge-frames", type=int, default=None, help="maximum frames shown to the judge (default 16)")
    p.add_argument("--judge-fps", type=float, default=None, help="frames sampled per second of video (default 1)")


def judge_from_args(args: argparse.Namespace):
    """`JudgeSettings` from the judge options; an invalid setting (e.g. `AVB_JUDGE_MODE=bogus`) is a ConfigError."""
    from agenticvbench.judge import JudgeSettings

    try:
        mode = args.judge or JudgeSettings.auto_mode(args.judge_base_url)  # off when no endpoint is configured
        return JudgeSettings.from_env(mode=mode, model=args.judge_model, base_url=args.judge_base_url,
                                      max_frames=args.judge_frames, frame_rate=args.judge_fps)
    except ValueError as exc:
        raise ConfigError(f"judge settings: {exc}") from None
