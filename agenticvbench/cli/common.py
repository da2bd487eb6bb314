"""Options shared by several commands (dataset selection) and output helpers."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agenticvbench.errors import ConfigError
from agenticvbench.judge.settings import add_judge_args, settings_from_args
from agenticvbench.loader import DEFAULT_DATASET

__all__ = ["add_dataset_args", "add_judge_args", "judge_from_args", "print_json"]


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


def judge_from_args(args: argparse.Namespace):
    """`JudgeSettings` from the judge options; an invalid setting (e.g. `AVB_JUDGE_MODE=bogus`) is a ConfigError."""
    try:
        return settings_from_args(args)
    except ValueError as exc:
        raise ConfigError(f"judge settings: {exc}") from None
