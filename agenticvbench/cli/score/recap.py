"""`avb score recap`: placeholder until the recap verifier lands."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score recap` (not yet implemented)."""
