"""`avb score assembly`: placeholder until the assembly verifier lands."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score assembly` (not yet implemented)."""
