"""`avb score FAMILY ...`: per-task scoring compatible with the official CLIs (sequencing and assembly share `manifest_cli`)."""

from __future__ import annotations

import argparse
import importlib

SCORE_MODULES = ("manifest_cli", "repair", "recap")


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score` with one subcommand per family."""
    p = sub.add_parser("score", help="score one task's output like the official per-task CLIs")
    fam = p.add_subparsers(dest="family", metavar="FAMILY")
    for name in SCORE_MODULES:
        importlib.import_module(f"agenticvbench.cli.score.{name}").register(fam)
