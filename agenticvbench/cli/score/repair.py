"""`avb score repair`: placeholder until the repair verifier lands."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score repair` (not yet implemented)."""
